"""The room's load benchmark (benchmarks/bench_room.py) runs: two tables for a few seconds
against a child server, through its command line, so that the harness cannot rot."""

from __future__ import annotations

import concurrent.futures
import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.timeout(60)
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
    # in a thread of its own: a browser test's session-wide Playwright keeps an event loop
    # running in this worker's main thread, where the benchmark's asyncio.run refuses to start
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert pool.submit(bench_room.main, argv).result() == 0
    printed = capsys.readouterr()
    assert "measuring] seated 2/2" in printed.err  # progress lines
    assert "target 1000 tables at p99 <= 50 ms" in printed.out
    out = json.loads(out_file.read_text())
    run, base = out["run"], out["baseline"]
    assert run["tables"] == 2 and base["tables"] == 1
    assert run["client_shards"] == 2 and run["seated_at_start"] == 2
    assert run["seating"] == "room"  # auto-detected: the server has the invitation API
    assert run["error_count"] == 0, run["errors"]
    assert len(run["server_rss_mb"]) == 2 and min(run["server_rss_mb"]) > 10
    assert base["error_count"] == 0, base["errors"]
    for phase in (run, base):
        assert phase["actions"] > 0 and phase["latency_ms"]["count"] > 0
        assert 0 < phase["latency_ms"]["median"] <= phase["latency_ms"]["p99"]
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
