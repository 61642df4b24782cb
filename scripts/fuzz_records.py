#!/usr/bin/env python3
"""Fuzz the record readers for a while: ``scripts/fuzz_records.py --seconds 600``.

The long run of ``tests/test_records_fuzz.py``: mutates the reference records of
``../shared/records`` (the mutations of ``tests/fuzz_helpers.py``: actions and deals deleted,
duplicated or swapped, values of other types, huge numbers, NaN, deep nesting, truncation,
random characters and bytes) and checks that only a one-line RecordError ever escapes
``loads``, ``load``, ``iter_load``, ``replay`` and ``iter_replay``. Prints its progress to
stderr and one summary line; exits 1 if anything else escaped, naming the input's seed so
that ``--seed S --only I`` runs it again.

Run from the repository: ``PYTHONPATH=src .venv/bin/python scripts/fuzz_records.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))

from fuzz_helpers import (  # noqa: E402 - after the paths
    Escape,
    check,
    check_bytes,
    garbled,
    load_references,
    mutated,
    text_of,
)


def shared_records() -> Path | None:
    """The reference records: $TAPETE_SHARED_RECORDS, else shared/records above the repo."""
    if os.environ.get("TAPETE_SHARED_RECORDS"):
        return Path(os.environ["TAPETE_SHARED_RECORDS"])
    for folder in REPO.parents:
        if (folder / "shared" / "records").is_dir():
            return folder / "shared" / "records"
    return None


def one(i: int, seed: int, references: list[dict], folder: Path) -> str:  # type: ignore[type-arg]
    rng = random.Random(f"{seed}:{i}")
    if i % 20 == 19:  # now and then a file of random bytes
        return check_bytes(rng.randbytes(rng.randint(0, 4000)), folder)
    record = mutated(references[rng.randrange(len(references))], rng)
    text = text_of(record)
    return check(record, None if text is None else garbled(text, rng))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fuzz the tapete/1 record readers")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="default: a random one")
    parser.add_argument("--only", type=int, default=None, help="run input I of --seed only")
    parser.add_argument("--records", type=Path, default=None, help="the reference folder")
    args = parser.parse_args(argv)
    folder = args.records or shared_records()
    if folder is None or not folder.is_dir():
        print("error: the reference records are missing (see --records)", file=sys.stderr)
        return 2
    references = load_references(folder)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    counts = {"refused": 0, "read": 0}
    escapes: list[str] = []
    start = last = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        indexes = [args.only] if args.only is not None else range(1 << 62)
        i = 0
        for i in indexes:
            try:
                counts[one(i, seed, references, Path(tmp))] += 1
            except Escape as exc:
                escapes.append(f"--seed {seed} --only {i}: {exc}")
                print(f"ESCAPE --seed {seed} --only {i}: {exc}", file=sys.stderr)
            now = time.monotonic()
            if now - last >= 2:
                last = now
                done = sum(counts.values()) + len(escapes)
                print(
                    f"  {now - start:5.0f} s  {done} inputs  {counts['refused']} refused  "
                    f"{counts['read']} read  {len(escapes)} escaped",
                    file=sys.stderr,
                )
            if now - start >= args.seconds:
                break
    total = sum(counts.values()) + len(escapes)
    secs = time.monotonic() - start
    print(
        f"{'FAIL' if escapes else 'OK'}: {total} inputs in {secs:.0f} s (seed {seed}): "
        f"{counts['refused']} refused with a RecordError, {counts['read']} read, "
        f"{len(escapes)} escaped"
    )
    return 1 if escapes else 0


if __name__ == "__main__":
    raise SystemExit(main())
