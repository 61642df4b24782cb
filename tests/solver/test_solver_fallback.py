"""Without the compiled core the package still works: the pure Python search, same API."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import random, sys
sys.modules["tapete.solver._core"] = None  # as if the extension had not been built
import tapete.solver as s
from tapete.solver.samples import random_play_position
assert s.BACKEND == "python", s.BACKEND
rng = random.Random(3)
for _ in range(40):
    pos = random_play_position(rng, 3)
    v = s.solve(pos)
    assert v == s.reference_solve(pos)
    assert s.can_reach(pos, v) and not s.can_reach(pos, v + 1)
    assert s.best_moves(pos) == s.reference_best_moves(pos)
try:
    s.solve(pos, backend="c")
except RuntimeError as exc:
    assert "not built" in str(exc)
else:
    raise AssertionError("backend='c' without the core")
print("ok")
"""


def test_pure_python_fallback_when_the_core_is_missing() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


STALE = """
import sys, types, warnings
stale = types.ModuleType("tapete.solver._core")  # built from an older _core.c: no ABI
stale.__file__ = "old_core.so"
sys.modules["tapete.solver._core"] = stale
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import tapete.solver as s
assert s.BACKEND == "python", s.BACKEND
assert any("older _core.c" in str(w.message) for w in caught), caught
print("ok")
"""


def test_a_core_built_from_an_older_source_is_not_called() -> None:
    # the calling convention changed (the rules as two flags): an old build would be called
    # with arguments it does not take, so the Python search stands in until a rebuild
    out = subprocess.run(
        [sys.executable, "-c", STALE], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
