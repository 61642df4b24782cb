"""The ``tapete`` command end to end: simulate -> replay round trips and clear failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapete.cli import main


@pytest.mark.parametrize(
    ("game", "profile", "players"),
    [
        ("mil", "club", "random,random,random"),
        ("mil", "casa", "random,random,random"),
        ("mil", "casa-500", "random,random,random"),
        ("mariage", None, "random,random"),
    ],
)
def test_simulate_then_replay_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, profile: str | None, players: str
) -> None:
    out = tmp_path / "games.jsonl"
    args = ["simulate", "--game", game, "--games", "6", "--seed", "11", "--players", players]
    args += ["--out", str(out), "--max-deals", "25"]
    if profile:
        args += ["--profile", profile]
    assert main(args) == 0
    summary = capsys.readouterr().out
    assert "simulated 6" in summary and "deals per game" in summary
    assert main(["replay", str(out)]) == 0
    assert "every result reproduced" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert len(lines) == 6
    assert all(json.loads(ln)["game"] == game for ln in lines)


def test_simulate_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        main(["simulate", "--games", "3", "--seed", "5", "--max-deals", "10", "--out", str(path)])
    assert a.read_bytes() == b.read_bytes()


def _write_altered(tmp_path: Path, change: str) -> Path:
    src = tmp_path / "src.jsonl"
    main(["simulate", "--games", "1", "--seed", "3", "--max-deals", "4", "--out", str(src)])
    rec = json.loads(src.read_text())
    deal = rec["deals"][0]
    plays = [i for i, a in enumerate(deal["actions"]) if a["type"] == "play"]
    if change == "wrong_score":
        deal["result"]["scores"][0] += 5
    elif change == "wrong_seat":
        deal["actions"][0]["seat"] = (deal["actions"][0]["seat"] + 1) % 3
    elif change == "duplicate_card":
        deal["hands"][0][0] = deal["hands"][1][0]
    elif change == "illegal_card" and plays:
        deal["actions"][plays[-1]]["card"] = deal["hands"][0][0]
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return path


@pytest.mark.parametrize("change", ["wrong_score", "wrong_seat", "duplicate_card"])
def test_replay_rejects_altered_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    path = _write_altered(tmp_path, change)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "game 0, deal 0" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json\n", "malformed JSON"),
        ('{"format": "tapete/9", "game": "mil"}\n', "unknown format"),
        ('{"format": "tapete/1", "game": "chess"}\n', "unknown game"),
        (
            '{"format": "tapete/1", "game": "mil", "profile": "x", "deals": []}\n',
            "unknown Mil profile",
        ),
        ("[1, 2]\n", "must be a JSON object"),
    ],
)
def test_replay_reports_bad_input_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert expected in err and "game 0" in err


def test_replay_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_simulate_rejects_unknown_player(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["simulate", "--players", "random,random,genius", "--out", str(tmp_path / "x")])
    assert code == 2
    assert "unknown player 'genius'" in capsys.readouterr().err
