"""Build another commit of Tapete as a baseline for the side-by-side benchmarks: its own
compiled engine, not this tree's.

Not a test. ``bench_mil.py --compare``, ``compare_room.py`` and ``bench_room.py
--server-src`` run another tree's code beside this one. Copying this tree's compiled
modules (``*.so``) and their manifest (``_compiled.json``) into an archive of an older
commit is not enough: where a compiled source differs between the two (``tapete/mil/state.py``
did on 2026-12-03), the older tree's ``tapete`` finds its sources changed since they were
compiled and runs its whole engine as pure Python (about half the speed), so the baseline
is slower than it was and every ratio flatters the change. This script builds the commit's
own wheel (``pip wheel``: its setup.py, its mypyc build) and unpacks it, so that the
baseline runs as its commit ran::

    .venv/bin/python benchmarks/baseline_tree.py 092ae60 /tmp/base   # about a minute
    .venv/bin/python benchmarks/compare_room.py /tmp/base --pairs 3

The folder given to the benchmarks is ``DEST`` itself (it holds the ``tapete`` package).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: run in a child with ``src`` first on the path: how that tree's engine runs
STATUS = """import sys
sys.path.insert(0, {src!r})
import warnings
warnings.simplefilter("ignore")
import tapete
from tapete._compiled import build_status
assert tapete.__file__.startswith({src!r}), tapete.__file__
status = build_status()
print(("pure" if status.pure else "compiled") + ": " + status.reason)"""


def build_of(src: Path) -> str:
    """How the tree whose ``tapete`` package is in ``src`` runs its engine: ``compiled: ...``
    or ``pure: <why>`` (as its own ``tapete`` decides when imported)."""
    code = STATUS.format(src=str(src.resolve()))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"cannot import tapete from {src}: {out.stderr.strip()[-400:]}")
    return out.stdout.strip().splitlines()[-1]


def check_builds(this: Path, other: Path, *, mixed: bool = False) -> None:
    """Print how both trees run their engine; stop when one is compiled and the other pure
    (unless ``mixed``): such a comparison measures the compiler, not the change."""
    builds = {"this": build_of(this), "other": build_of(other)}
    for label, build in builds.items():
        print(f"{label}: {build}", flush=True)
    kinds = {b.split(":")[0] for b in builds.values()}
    if len(kinds) > 1 and not mixed:
        raise SystemExit(
            "one tree runs a compiled engine and the other a pure Python one: build the "
            "other with benchmarks/baseline_tree.py (or pass --mixed-builds to compare anyway)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the commit to build (anything git archive takes)")
    parser.add_argument("dest", type=Path, help="the folder to unpack it into (replaced)")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tapete-baseline-") as tmp:
        tree, wheels = Path(tmp) / "tree", Path(tmp) / "wheels"
        tree.mkdir()
        print(f"[1/3] git archive {args.commit}", flush=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", args.commit],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        print("[2/3] pip wheel (its own build: mypyc and the solver's C core)", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(tree)],
            check=True,
        )
        (wheel,) = wheels.glob("*.whl")
        print(f"[3/3] unpack {wheel.name} into {args.dest}", flush=True)
        if args.dest.exists():
            shutil.rmtree(args.dest)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(args.dest)
    print(
        f"done in {time.monotonic() - started:.0f} s: {args.dest} ({build_of(args.dest)}); "
        f"pass {args.dest} to compare_room.py, bench_mil.py --compare or bench_room.py "
        "--server-src"
    )


if __name__ == "__main__":
    main()
