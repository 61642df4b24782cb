"""``tapete solve``: tapete.solver.command.run_solve on records written by the engine."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tapete.mil.game import MilGame
from tapete.mil.profiles import CASA
from tapete.records import dump
from tapete.solver import solve
from tapete.solver.command import position_at, run_solve


def random_game(seed: int, profile: str, deals: int) -> MilGame:
    rng = random.Random(seed)
    game = MilGame(profile, seed=seed, max_deals=deals)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[MilGame]]:
    games = [random_game(s, p, 8) for s, p in ((1, "club"), (2, "casa"), (3, "club"))]
    path = tmp_path_factory.mktemp("solve") / "games.jsonl"
    dump([g.to_record() for g in games], path)
    return path, games


def played(game: MilGame) -> list[int]:
    return [i for i, (st, _) in enumerate(game.deals) if not st.annulled and not st.rospis]


def test_json_value_is_the_solved_position(
    records: tuple[Path, list[MilGame]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, games = records
    for g, game in enumerate(games):
        for d in played(game)[:2]:
            for trick in (None, 0, 3, 7, 8):
                assert run_solve(str(path), g, d, trick, True) == 0
                out = json.loads(capsys.readouterr().out)
                assert set(out) == {"value", "whose", "declarer", "declarer_name", "ms"}
                st0 = game.deals[d][0]
                assert out["whose"] == "declarer" and out["declarer"] == st0.declarer
                assert out["declarer_name"] == game.players[st0.declarer]
                pos = position_at(str(path), g, d, trick)
                assert pos.tricks_played == (trick or 0)
                assert out["value"] == solve(pos)
                st = game.deals[d][0]
                final = st.raw()[st.declarer]
                if trick == 8:
                    assert out["value"] == final
                assert pos.points[st.declarer] <= out["value"] <= 400


def test_text_output(
    records: tuple[Path, list[MilGame]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, games = records
    d = played(games[0])[0]
    assert run_solve(str(path), 0, d, 2, False) == 0
    out = capsys.readouterr().out
    seat = games[0].deals[d][0].declarer
    assert f"game 0 deal {d} after trick 2: declarer seat {seat} ({games[0].players[seat]}, " in out
    assert "raw points" in out


def test_position_after_trick_t_matches_the_engine(records: tuple[Path, list[MilGame]]) -> None:
    path, games = records
    game = games[1]
    d = played(game)[0]
    st = game.deals[d][0]
    pos = position_at(str(path), 1, d, 5)
    assert pos.leader == st.tricks[5][0] == st.tricks[4][2]
    assert pos.hands[0] | pos.hands[1] | pos.hands[2] == sum(
        1 << c for _, cs, _ in st.tricks[5:] for c in cs
    )
    assert pos.profile == CASA and pos.declarer == st.declarer  # the deal's own profile


def errors(records: tuple[Path, list[MilGame]]) -> list[tuple[list[object], str]]:
    path, games = records
    cases: list[tuple[list[object], str]] = [
        ([str(path), 7, 0, None], "holds 3 game"),
        ([str(path), 0, 99, None], "--deal must be in"),
        ([str(path), -1, 0, None], "--game must be in"),
        ([str(path), 0, played(games[0])[0], 9], "--trick must be in 0..8"),
        ([str(path) + ".missing", 0, 0, None], "cannot read"),
    ]
    for g, game in enumerate(games):
        for d, (st, _) in enumerate(game.deals):
            if st.annulled:
                cases.append(([str(path), g, d, None], "annulled"))
            if st.rospis:
                cases.append(([str(path), g, d, None], "rospis"))
    return cases


def test_errors_exit_2_with_a_message(
    records: tuple[Path, list[MilGame]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cases = errors(records)
    assert any("annulled" in w for _, w in cases) and any("rospis" in w for _, w in cases)
    from tapete.games import new_game

    mariage = new_game("mariage", seed=5, max_deals=1)
    rng = random.Random(5)
    while not mariage.over:
        mariage.apply(rng.choice(mariage.legal_actions()))
    other = tmp_path / "mariage.jsonl"
    dump(mariage.to_record(), other)
    cases.append(([str(other), 0, 0, None], "not a Mil game"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    cases.append(([str(bad), 0, 0, None], "malformed JSON"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    cases.append(([str(empty), 0, 0, None], "holds no game"))
    for args, want in cases:
        path, g, d, t = args
        assert run_solve(str(path), int(str(g)), int(str(d)), t, False) == 2  # type: ignore[arg-type]
        err = capsys.readouterr().err
        assert err.startswith("tapete solve: error: ") and want in err, (args, err)


def test_a_record_that_does_not_replay_is_located_by_its_line(
    records: tuple[Path, list[MilGame]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # (replay said "game 1 (line 3), deal 0, action 0", solve only "game 1, deal 0, ...")
    path, _ = records
    lines = path.read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    second["deals"][0]["actions"][0]["seat"] = 9
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{lines[0]}\n\n{json.dumps(second)}\n", encoding="utf-8")
    assert run_solve(str(bad), 1, 0, None, False) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tapete solve: error: {bad}: game 1 (line 3), deal 0, action 0: "), err
