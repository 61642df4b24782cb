"""The room's load benchmark (benchmarks/bench_room.py) runs: two tables for a few seconds
against a child server, through its command line, so that the harness cannot rot."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.timeout(240)  # (seconds of a loaded machine; the suite's default is 300)
def test_bench_room_plays_two_tables_and_reports_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_room
    finally:
        sys.path.remove(str(BENCHMARKS))
    out_file = tmp_path / "room.json"
    argv = ["--tables", "2", "--seconds", "2", "--think", "0.05-0.15", "--spectators", "1"]
    argv += ["--reconnect", "1", "--drop-every", "0.4-0.8", "--baseline-seconds", "1"]
    argv += ["--clients", "2", "--progress-every", "1", "--json", str(out_file)]
    argv += ["--pause", "0.5-1"]
    assert bench_room.main(argv) == 0
    printed = capsys.readouterr()
    assert "measuring] seated 2/2" in printed.err  # progress lines
    assert "target 1000 tables at p99 <= 50 ms" in printed.out
    assert "think 0.05-0.15 s, 0.5-1.0 s between games" in printed.out
    out = json.loads(out_file.read_text())
    run, base = out["run"], out["baseline"]
    assert out["settings"]["pause"] == [0.5, 1.0]
    assert run["tables"] == 2 and base["tables"] == 1
    assert run["client_shards"] == 2 and run["seated_at_start"] == 2
    assert run["seating"] == "room"  # auto-detected: the server has the invitation API
    assert run["error_count"] == 0, run["errors"]
    assert len(run["server_rss_mb"]) == 2 and min(run["server_rss_mb"]) > 10
    assert base["error_count"] == 0, base["errors"]
    for phase in (run, base):
        assert phase["actions"] > 0 and phase["latency_ms"]["count"] > 0
        lat = phase["latency_ms"]
        assert 0 < lat["median"] <= lat["p99"] <= lat["p999"] <= lat["max"]
        assert phase["server_cpu_ms_per_action"] > 0
        assert phase["bytes"]["first"]["count"] > 0 and phase["bytes"]["later"]["count"] > 0
        assert 0 < phase["bytes"]["later"]["median"] <= phase["bytes"]["later"]["max"]
    assert run["reconnects"] > 0  # every client drops its socket within a second
    assert run["people_per_table"] == 3
    assert run["bytes"]["sync"]["count"] > 0 and run["reconnect_ms"]["count"] > 0
    assert set(out["targets"]) == {
        "p99_at_1000_tables",
        "actions_per_s_flat_out",
        "median_message",
    }
    assert out["targets"]["p99_at_1000_tables"]["met"] is None  # 2 tables cannot tell
    assert out["ratio_to_baseline"]["latency_p99"] is not None
    # the machine's speed, before and after the run, and the server's CPU in its units
    machine = out["machine"]
    assert len(machine["reference_us"]) == 2 and min(machine["reference_us"]) > 0
    assert machine["server_cpu_per_action_in_references"] > 0
    assert "machine: the server's work for an action without sockets" in printed.out


def test_view_filter_never_skips_a_message_the_client_must_read(tmp_path: Path) -> None:
    """The clients skip parsing a view or patch that is neither over nor their turn
    (``bench_room.view_version``): over every message of real games (Mil with a spectator,
    Mariage), to connections with whole views and with patches, a skipped message leaves a
    view that is not over and not the seat's turn; and most are skipped (the filter is
    worth having)."""
    import asyncio
    import random

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_room
    finally:
        sys.path.remove(str(BENCHMARKS))
    from server_helpers import people_table

    from tapete.server.app import create_app
    from tapete.server.patches import patched

    class Listener:
        def __init__(self, seat: int | None, patches: bool) -> None:
            self.seat, self.patches, self.texts = seat, patches, list[str]()

        def push(self, text: str) -> None:
            self.texts.append(text)

        def close(self) -> None:
            pass

    async def play(game: str, seats: int, seed: int) -> list[Listener]:
        app = create_app(f"sqlite:///{tmp_path / f'{game}{seed}.sqlite3'}", 0)
        manager = app.state.manager
        table = people_table(manager, game, seed, "club" if game == "mil" else "mariage")
        loaded = await manager.load(table.id)
        listeners = [Listener(s, p) for s in [*range(seats), None] for p in (False, True)]
        for listener in listeners:
            manager.attach(loaded, listener)
        rng = random.Random(seed)
        while not loaded.game.over:
            action = rng.choice(loaded.game.legal_actions()).to_json()
            await manager.act(loaded, loaded.game.turn, loaded.version, action)
        await manager.close()
        manager.engine.dispose()
        return listeners

    def mine(view: dict[str, Any], seat: int | None) -> bool:
        return seat is not None and view.get("turn") == seat and bool(view.get("legal"))

    skipped = {False: 0, True: 0}
    read = {False: 0, True: 0}
    for game, seats, seed in (("mil", 3, 1), ("mil", 3, 2), ("mariage", 2, 3)):
        for listener in asyncio.run(play(game, seats, seed)):
            view: dict[str, Any] = {}
            for n, text in enumerate(listener.texts):
                message = json.loads(text)
                kinds = message["type"]
                my_turn = mine(view, listener.seat)
                known = bench_room.view_version(text, listener.seat, my_turn) if n else None
                if kinds == "view":
                    view = message["view"]
                elif kinds == "patch":
                    view = patched(view, message["view"], message["removed"])
                if known is None:
                    read[listener.patches] += 1
                    continue
                skipped[listener.patches] += 1
                assert kinds in ("view", "patch") and message["version"] == known
                assert not view.get("over") and not mine(view, listener.seat)
    for patches in (False, True):
        assert skipped[patches] > 2 * read[patches], (patches, skipped, read)


@pytest.mark.timeout(240)  # (seconds of a loaded machine; the suite's default is 300)
def test_bench_floor_plays_two_groups_and_counts_every_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The transport's floor (benchmarks/bench_floor.py): two groups of sockets for a
    second against its bare server; every action it counts was read by every socket."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_floor
    finally:
        sys.path.remove(str(BENCHMARKS))
    out_file = tmp_path / "floor.json"
    argv = ["--groups", "2", "--seconds", "1", "--clients", "1", "--json", str(out_file)]
    assert bench_floor.main(argv) == 0
    printed = capsys.readouterr()
    assert "[floor] 2 groups of 5 sockets (3 acting)" in printed.err  # progress
    assert "ms per action" in printed.out
    out = json.loads(out_file.read_text())
    assert out["actions"] > 10 and out["actions_per_s"] > 10
    assert 0 < out["cpu_ms_per_action"] < 50
    assert (out["groups"], out["listeners"], out["seats"]) == (2, 5, 3)
