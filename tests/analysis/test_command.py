"""``tapete analyse``: the readable report, the JSON lines, and one-line errors with status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapete.cli import main

HERE = Path(__file__).parent
CRAFTED = HERE / "crafted.jsonl"


def test_the_report_puts_the_costliest_decision_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(CRAFTED), "--game", "0", "--quick"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "game 0, deal 0 (club)"
    assert "Ana declared: bid 100, contract 145, took 150 (made)" in out
    costs = [ln for ln in lines if ln.startswith("  trick ")]
    assert costs[0].startswith("  trick 2, Ana") or costs[0].startswith("  trick 3, Bruno")
    assert any("Bruno played 10♥" in ln and "J♥ was better [blunder]" in ln for ln in costs)
    assert "1 deal(s) analysed" in out


def test_json_holds_one_object_per_deal_with_the_documented_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review.jsonl"
    assert main(["analyse", str(CRAFTED), "--quick", "--json", str(out)]) == 0
    rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [(r["game"], r["deal"]) for r in rows] == [(0, 0), (1, 0), (2, 0)]
    for r in rows:
        assert set(r) == {"game", "deal", "open_values", "decisions", "seats"}
    assert len(rows[0]["open_values"]) == 9
    assert "3 deal(s) analysed" in capsys.readouterr().out


def test_json_to_standard_output_and_a_seat_filter(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["analyse", str(CRAFTED), "--game", "2", "--deal", "0", "--seat", "1"]
    assert main([*args, "--quick", "--json", "-"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["decisions"] and {d["seat"] for d in row["decisions"]} == {1}


def test_the_same_seed_prints_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["analyse", str(CRAFTED), "--game", "1", "--seed", "4", "--json", "-"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first


def _error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    assert main(["analyse", *args]) == 2
    cap = capsys.readouterr()
    err = cap.err.strip()
    assert (
        cap.out == "" and len(err.splitlines()) == 1 and err.startswith("tapete analyse: error: ")
    )
    return err


def test_bad_input_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "cannot read" in _error(capsys, [str(tmp_path / "nope.jsonl")])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert "malformed JSON" in _error(capsys, [str(bad)])
    rec = json.loads(CRAFTED.read_text().splitlines()[0])
    rec["deals"][0]["result"]["raw"][0] += 1
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(json.dumps(rec) + "\n")
    assert "result differs" in _error(capsys, [str(wrong)])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "holds no game" in _error(capsys, [str(empty)])
    assert "--deal must be in 0..0, not 3" in _error(capsys, [str(CRAFTED), "--deal", "3"])
    assert "--game must be in 0..2, not 7" in _error(capsys, [str(CRAFTED), "--game", "7"])
    assert "--seat must be in 0..1, not 2" in _error(
        capsys, [str(CRAFTED), "--game", "2", "--seat", "2"]
    )
    assert f"the folder {tmp_path / 'no'} does not exist" in _error(
        capsys, [str(CRAFTED), "--json", str(tmp_path / "no" / "x.jsonl")]
    )
    assert f"--json {tmp_path} is a folder, not a file" in _error(
        capsys, [str(CRAFTED), "--json", str(tmp_path)]
    )
    # (the record file itself, as --json: it was emptied before a line of it was read)
    own = tmp_path / "own.jsonl"
    own.write_text(CRAFTED.read_text())
    assert f"--json {own} is the record file being read: name another" in _error(
        capsys, [str(own), "--json", str(own)]
    )
    assert own.read_text() == CRAFTED.read_text()


def test_a_deal_of_a_game_without_finished_deals_is_one_plain_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a game still in its first deal, as the server's download gives it: the error said
    # "--deal must be in 0..-1, not 0")
    rec = json.loads(CRAFTED.read_text().splitlines()[0])
    rec.update(deals=[], scores=[0, 0, 0], winner=None)
    rec.pop("start", None)
    none = tmp_path / "none.jsonl"
    none.write_text(json.dumps(rec) + "\n")
    err = _error(capsys, [str(none), "--deal", "0"])
    assert err == "tapete analyse: error: game 0 has no finished deal: there is no deal 0"


def test_a_record_that_does_not_replay_is_located_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (replay said "game 1 (line 3), deal 0: ...", analyse only "game 1, deal 0: ...")
    first, second = CRAFTED.read_text().splitlines()[:2]
    rec = json.loads(second)
    rec["deals"][0]["result"]["raw"][0] += 1
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(f"{first}\n\n{json.dumps(rec)}\n")
    err = _error(capsys, [str(wrong), "--game", "1"])
    assert err.startswith(f"tapete analyse: error: {wrong}: game 1 (line 3), deal 0: "), err


@pytest.mark.parametrize("budget", ["0", "-1", "nan", "inf", "ten"])
def test_a_budget_that_measures_nothing_is_refused(
    budget: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--budget 0`` (or less) judged nothing and reported every expected loss as 0.0."""
    with pytest.raises(SystemExit) as stop:
        main(["analyse", str(CRAFTED), f"--budget={budget}"])
    assert stop.value.code == 2
    assert "--budget" in capsys.readouterr().err


def test_decisions_not_judged_are_not_counted_as_judged_nor_as_no_loss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A conceded deal analysed with --quick said "Bruno: 1 decisions, open loss 0.0" and
    "seats": [..., {"decisions": 1, "open_loss": 0.0, ...}] with every loss of his null: a
    rospis is not judged open-handed, and the expected loss is not judged with --quick."""
    from tapete.games import new_game
    from tapete.records import dump

    game = new_game("mil", "club", seed=1, max_deals=1)
    for action in ({"type": "bid", "value": 100}, {"type": "pass"}, {"type": "pass"}):
        game.apply(game.parse_action(action))
    game.apply(game.parse_action({"type": "rospis"}))  # (Bruno, the declarer, concedes)
    record = tmp_path / "conceded.jsonl"
    dump([game.to_record()], record)
    assert main(["analyse", str(record), "--quick", "--json", "-"]) == 0
    seats = json.loads(capsys.readouterr().out.splitlines()[0])["seats"]
    assert [(s["decisions"], s["open_loss"], s["expected_loss"]) for s in seats] == [
        (0, None, None),
        (0, None, None),
        (0, None, None),
    ], seats
    assert main(["analyse", str(record), "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  Bruno: 0 decision(s) judged, 0 mistake(s), 0 blunder(s)" in lines, lines
    assert "  Bruno: no loss judged; 0 mistake(s), 0 blunder(s)" in lines, lines
    assert main(["analyse", str(record), "--json", "-"]) == 0
    seats = json.loads(capsys.readouterr().out.splitlines()[0])["seats"]
    assert seats[1]["decisions"] == 1 and seats[1]["open_loss"] is None, seats
    assert seats[1]["expected_loss"] is not None
