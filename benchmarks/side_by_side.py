"""Two builds of an engine timed side by side, for bench_mil.py and bench_mariage.py.

The builds: the one this process runs (compiled with mypyc at install, or pure Python), and
next to it either the pure Python sources of this tree or an older tree (``--compare SRC``).
Each is imported under its own module names (:func:`tapete._compiled.import_copy`), and the
measures run in alternating rounds of 0.5 s of CPU time, so that load on the machine hits
both alike; a rate is the median of its rounds.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from baseline_tree import check_builds

import tapete
from tapete._compiled import import_copy

ROUND = 0.5


@dataclass(frozen=True)
class Build:
    """One build of the engine: ``label`` for the output, ``prefix`` of its module names."""

    label: str
    prefix: str

    def module(self, name: str) -> Any:
        """This build's module ``name`` (e.g. ``tapete.mil``)."""
        if not self.prefix:
            return importlib.import_module(name)
        return sys.modules[self.prefix + name]


def builds(package: str, compare: str | None, *, mixed: bool = False) -> list[Build]:
    """The builds of ``package`` to time; the one this process runs comes last. With
    ``compare`` (another tree), both trees' builds are printed and a compiled engine against
    a pure Python one is refused unless ``mixed`` (``baseline_tree.check_builds``)."""
    if compare:
        check_builds(Path(tapete.__file__).parent.parent, Path(compare), mixed=mixed)
        import_copy(package, "before_", src=compare)
        return [Build("before", "before_"), Build("after", "")]
    if tapete.compiled_modules():
        import_copy(package, "pure_", pure=True)
        return [Build("pure", "pure_"), Build("compiled", "")]
    return [Build("pure", "")]


def describe(compare: str | None) -> str:
    if compare:
        return f"before: the engine in {compare}; after: this tree ({running()})"
    return f"this tree: {running()}"


def running() -> str:
    modules = tapete.compiled_modules()
    if modules:
        return f"compiled with mypyc ({', '.join(modules)}), beside its pure Python sources"
    return f"pure Python ({tapete._compiled.build_status().reason})"


def alternate(steps: dict[str, Callable[[], int]], seconds: float) -> dict[str, float]:
    """Units per CPU second of each step (a call does some units and returns how many),
    from alternating rounds until each step has had ``seconds``; medians of the rounds."""
    rates: dict[str, list[float]] = {label: [] for label in steps}
    spent = dict.fromkeys(steps, 0.0)
    while min(spent.values()) < seconds:
        for label, step in steps.items():
            done = 0
            start = time.process_time()
            while (elapsed := time.process_time() - start) < ROUND:
                done += step()
            spent[label] += elapsed
            rates[label].append(done / elapsed)
    return {label: statistics.median(r) for label, r in rates.items()}


def ratio(rates: dict[str, float]) -> str:
    """The last build's rate over the first's (empty for a single build)."""
    values = list(rates.values())
    return f"{values[-1] / values[0]:.2f}" if len(values) > 1 else ""


def figures(rates: dict[str, float]) -> str:
    """``pure 6,158  compiled 12,738  ratio 2.07`` (no ratio for a single build)."""
    text = "  ".join(f"{label} {rate:10,.0f}" for label, rate in rates.items())
    return f"{text}  ratio {ratio(rates)}" if len(rates) > 1 else text
