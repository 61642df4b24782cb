"""The side-by-side benchmarks refuse a baseline whose engine runs another build than this
tree's (benchmarks/baseline_tree.py): a copy of the sources without its own compiled modules
runs pure Python, and its ratios would measure the compiler, not the change."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import baseline_tree
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


def _copy(tmp_path: Path, *, with_build: bool) -> Path:
    """This tree's tapete package, with or without its compiled modules and manifest."""
    ignore = None if with_build else shutil.ignore_patterns("*.so", "_compiled.json")
    dest = tmp_path / ("built" if with_build else "sources")
    shutil.copytree(ROOT / "src" / "tapete", dest / "tapete", ignore=ignore)
    return dest


def test_a_copy_of_the_sources_alone_runs_pure_and_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    this = baseline_tree.build_of(ROOT / "src")
    assert this.startswith("compiled: "), this  # (CI installs the compiled engine)
    other = _copy(tmp_path, with_build=False)
    assert baseline_tree.build_of(other).startswith("pure: ")
    with pytest.raises(SystemExit, match=r"baseline_tree\.py"):
        baseline_tree.check_builds(ROOT / "src", other)
    baseline_tree.check_builds(ROOT / "src", other, mixed=True)  # asked for: compared
    printed = capsys.readouterr().out
    assert "this: compiled" in printed and "other: pure" in printed


def test_a_copy_with_its_own_build_compares(tmp_path: Path) -> None:
    other = _copy(tmp_path, with_build=True)
    assert baseline_tree.build_of(other).startswith("compiled: ")
    baseline_tree.check_builds(ROOT / "src", other)


def test_changed_sources_beside_an_old_build_run_pure(tmp_path: Path) -> None:
    """What happened on 2026-12-03: an older commit's sources with this tree's compiled
    modules copied in (one compiled source differs) run the pure engine."""
    other = _copy(tmp_path, with_build=True)
    state = other / "tapete" / "mil" / "state.py"
    state.write_text(state.read_text() + "\n# an older version\n")
    build = baseline_tree.build_of(other)
    assert build.startswith("pure: ") and "state.py" in build, build
