"""The arena: duplicate play, reproducible figures, the JSON summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tapete.arena import run_arena


def _run(tmp_path: Path, *args: Any, **options: Any) -> dict[str, Any]:
    out = tmp_path / "a.json"
    assert run_arena(*args, json_path=str(out), **options) == 0
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def test_mariage_arena_summary(tmp_path: Path, capsys: Any) -> None:
    data = _run(tmp_path, "mariage", None, ["rules", "random"], 20, 1, True)
    assert data["game"] == "mariage" and data["profile"] == "mariage"
    assert data["deals"] >= 20 and data["games"] >= 2
    names = [b["name"] for b in data["bots"]]
    assert names == ["rules", "random"]
    for b in data["bots"]:
        assert set(b) >= {
            "name",
            "points_per_deal",
            "match_share",
            "declarer_success_rate",
            "ms_per_decision",
        }
        lo, hi = b["points_per_deal"]["ci95"]
        assert lo <= b["points_per_deal"]["mean"] <= hi
        assert set(b["ms_per_decision"]) == {"p50", "p95"}
    gp = [b["game_point_share"] for b in data["bots"]]
    assert abs(sum(gp) - 1) < 1e-6
    for b in data["bots"]:
        lo, hi = b["game_point_share_ci95"]
        assert lo <= b["game_point_share"] <= hi
    # duplicate: each match is played with the seats swapped, so shares add up to 1
    shares = [b["match_share"]["mean"] for b in data["bots"]]
    assert abs(sum(shares) - 1) < 1e-6
    assert "rules" in capsys.readouterr().out


def test_mil_arena_is_reproducible(tmp_path: Path) -> None:
    a = _run(tmp_path, "mil", "casa-500", ["rules", "rules", "random"], 2, 9, True)
    b = _run(tmp_path, "mil", "casa-500", ["rules", "rules", "random"], 2, 9, True)
    for x, y in zip(a["bots"], b["bots"], strict=True):
        assert x["points_per_deal"] == y["points_per_deal"]
        assert x["match_share"] == y["match_share"]


def test_paired_single_deals(tmp_path: Path) -> None:
    # one deal per game, each game in the 3 seat rotations: 3 deals a game, 4 games for 10
    players = ["rules", "random", "random"]
    data = _run(tmp_path, "mil", "club", players, 10, 4, True, deals_per_game=1)
    assert data["deals"] == 12 and data["games"] == 4
    rules = next(b for b in data["bots"] if b["name"] == "rules")
    assert (rules["games"], rules["plays"]) == (4, 4 * 3)


def test_one_game_gives_no_interval(tmp_path: Path, capsys: Any) -> None:
    """A single game (a short Mariage match, not duplicate) has no spread to measure: the
    summary says so (null, "n/a") instead of an interval of zero width, which read as
    certainty."""
    data = _run(tmp_path, "mariage", None, ["rules", "random"], 3, 1, False)
    for b in data["bots"]:
        assert b["points_per_deal"]["ci95"] is None and b["game_point_share_ci95"] is None
        assert b["match_share"]["ci95"] is not None  # (Wilson's interval holds for one game)
    out = capsys.readouterr().out
    assert "n/a" in out and "one game gives no interval" in out


def test_rotations_and_seats_of_one_game_are_one_sample(tmp_path: Path, capsys: Any) -> None:
    """A game's seat rotations, and a name's two seats, play the same cards: one game gives
    no interval however it is played (counted apart, they gave intervals as if they were
    independent games)."""
    dup = _run(tmp_path, "mil", "club", ["rules", "random", "random"], 1, 1, True)
    two_seats = _run(tmp_path, "mil", "club", ["rules", "random", "random"], 1, 1, False)
    for data in (dup, two_seats):
        assert data["games"] == 1
        for b in data["bots"]:
            assert b["games"] == 1 and b["points_per_deal"]["ci95"] is None
    assert [b["plays"] for b in dup["bots"]] == [3, 3]
    assert "1 game in 3 seat rotations" in capsys.readouterr().out


def test_a_share_won_in_every_game_keeps_an_interval(tmp_path: Path) -> None:
    """A bot that wins every game point of every game still gets an interval of some width
    for its share (Wilson's for that many games), not the certainty of [1, 1]."""
    data = _run(tmp_path, "mariage", None, ["rules", "random"], 10, 1, True, deals_per_game=1)
    rules = next(b for b in data["bots"] if b["name"] == "rules")
    assert rules["game_point_share"] == 1.0
    lo, hi = rules["game_point_share_ci95"]
    assert lo < 0.7 and hi == 1.0


def _interrupt_at_play(monkeypatch: Any, n: int) -> None:
    """Ctrl-C as the arena starts its ``n``-th play (a game in one seat rotation)."""
    from tapete import arena

    real, calls = arena._play_game, []

    def interrupted(*args: Any) -> int:
        calls.append(args)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(arena, "_play_game", interrupted)


def test_an_interrupted_arena_prints_the_figures_of_the_games_played(
    capsys: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    """Ctrl-C in a long arena said only "interrupted": the table of the games played so far
    comes first (the game under way left out), then the interruption goes on to the CLI.
    The ``--json`` file, left unwritten, holds the same figures, marked ``interrupted``."""
    import pytest

    from tapete import arena

    out = tmp_path / "arena.json"
    _interrupt_at_play(monkeypatch, 4)
    with pytest.raises(KeyboardInterrupt):
        arena.run_arena("mariage", None, ["rules", "random"], 1000, 1, True, str(out))
    captured = capsys.readouterr()
    assert captured.out.startswith("mariage / mariage: ") and "rules" in captured.out
    played = int(captured.out.split(": ")[1].split(" deals")[0])
    assert played > 0 and f"(interrupted after {played} deals:" in captured.err
    assert "the game under way is left out" in captured.err
    summary = json.loads(out.read_text())
    assert summary["interrupted"] is True and summary["deals"] == played
    assert (summary["games"], summary["rotations"]) == (2, 2)  # (the 4th play left out)
    assert {b["name"] for b in summary["bots"]} == {"rules", "random"}


def test_an_arena_interrupted_before_any_deal_writes_no_json(
    monkeypatch: Any, tmp_path: Path
) -> None:
    """No game played: no figures, no table and no file."""
    import pytest

    from tapete import arena

    out = tmp_path / "arena.json"
    _interrupt_at_play(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        arena.run_arena("mariage", None, ["rules", "random"], 1000, 1, True, str(out))
    assert not out.exists()


def test_an_interrupted_duplicate_arena_counts_its_rotations_right(
    capsys: Any, monkeypatch: Any
) -> None:
    """A duplicate Mil run stopped in its second game, after that game's first rotation, said
    "2 games in 2 seat rotations": its rotations were the plays over the games, rounded down.
    Mil has 3; the game under way says how many of them it finished."""
    import pytest

    from tapete import arena

    _interrupt_at_play(monkeypatch, 5)
    with pytest.raises(KeyboardInterrupt):
        arena.run_arena(
            "mil", "club", ["rules", "rules", "random"], 1000, 1, True, None, deals_per_game=1
        )
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(": 4 deals, 2 games in 3 seat rotations (the last game in 1)"), first


def test_a_whole_duplicate_arena_says_its_rotations_and_writes_them(tmp_path: Path) -> None:
    from tapete import arena

    out = tmp_path / "arena.json"
    assert (
        arena.run_arena(
            "mil", "club", ["rules", "rules", "random"], 2, 1, True, str(out), deals_per_game=1
        )
        == 0
    )
    summary = json.loads(out.read_text())
    assert (summary["games"], summary["rotations"], summary["deals"]) == (1, 3, 3)
    assert summary["interrupted"] is False


def test_the_table_says_how_often_a_bot_failed(capsys: Any, monkeypatch: Any) -> None:
    """The count of a failing bot's fallbacks was only in the JSON: the table says it."""
    from tapete import arena

    real = arena._play_game

    def with_faults(*args: Any) -> int:
        played = real(*args)
        args[5]["random"].faults += 7  # (stats: as if its every seventh decision failed)
        return played

    monkeypatch.setattr(arena, "_play_game", with_faults)
    assert run_arena("mariage", None, ["rules", "random"], 1, 1, False, None) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(
        "(failed, a legal action played instead: random 7 times; the first failure is logged above)"
    ), out
