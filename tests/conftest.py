"""Fixtures for every test: the shared reference records (``../shared/records``).

One policy: the reference records are required. If the folder is missing, every test that
uses them fails with a message saying where they were looked for (never a silent skip).
The folder is ``$TAPETE_SHARED_RECORDS`` when set, else the first ``shared/records`` found in
a folder above the repository (``../shared/records`` of a clone, ``../../shared/records`` of a
worktree under ``wt/``).

* ``shared_records``: the folder (a ``Path``).
* ``read_reference``: ``read_reference("mil-club.jsonl")`` -> that file's non-blank lines.
* ``reference_line``, ``mil_reference_line``, ``mariage_reference_line``: a test that takes
  one of these runs once per record of every reference file, of the Mil files, or of the
  Mariage file; the value is a :class:`ReferenceLine`.

And one for every test that does not drive the browser (``no_borrowed_loop``, autouse): the
browser tests' session-wide Playwright (its sync API) leaves its event loop marked as running
in the worker's main thread between its calls, where ``asyncio.run`` then refuses to start; a
test that ran after one in the same pytest-xdist worker failed with "asyncio.run() cannot be
called from a running event loop". Such a test runs with the mark taken off, and put back
after it for the next browser test.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from loop_guard import no_borrowed_loop  # noqa: F401 (an autouse fixture, for every test)

_REPO = Path(__file__).resolve().parents[1]
_ENV = "TAPETE_SHARED_RECORDS"


def _find() -> Path | None:
    if os.environ.get(_ENV):
        path = Path(os.environ[_ENV])
        return path if path.is_dir() else None
    for folder in _REPO.parents:
        if (folder / "shared" / "records").is_dir():
            return folder / "shared" / "records"
    return None


SHARED_RECORDS = _find()
_MISSING = (
    f"the reference records are missing: no folder {os.environ.get(_ENV)!r} (${_ENV})"
    if os.environ.get(_ENV)
    else f"the reference records are missing: no shared/records folder above {_REPO} "
    f"(set ${_ENV} to the folder that holds mil-club.jsonl ...)"
)


@dataclass(frozen=True)
class ReferenceLine:
    """One record of a reference file: the file's name, the record's index, its line."""

    file: str
    index: int
    text: str

    @property
    def record(self) -> dict[str, Any]:
        record: dict[str, Any] = json.loads(self.text)
        return record


def _lines(folder: Path, name: str) -> list[str]:
    return [ln for ln in (folder / name).read_text(encoding="utf-8").split("\n") if ln.strip()]


def _reference_lines(pattern: str) -> list[ReferenceLine]:
    if SHARED_RECORDS is None:
        return []
    return [
        ReferenceLine(f.name, i, line)
        for f in sorted(SHARED_RECORDS.glob(pattern))
        for i, line in enumerate(_lines(SHARED_RECORDS, f.name))
    ]


_PATTERNS = {
    "reference_line": "*.jsonl",
    "mil_reference_line": "mil-*.jsonl",
    "mariage_reference_line": "mariage.jsonl",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, pattern in _PATTERNS.items():
        if name in metafunc.fixturenames:
            lines: list[ReferenceLine | None] = [*_reference_lines(pattern)] or [None]
            ids = [f"{x.file}:{x.index}" if x else "missing" for x in lines]
            metafunc.parametrize(name, lines, ids=ids, indirect=True)


@pytest.fixture(scope="session")
def shared_records() -> Path:
    if SHARED_RECORDS is None:
        pytest.fail(_MISSING, pytrace=False)
    return SHARED_RECORDS


@pytest.fixture(scope="session")
def read_reference(shared_records: Path) -> Callable[[str], list[str]]:
    def read(name: str) -> list[str]:
        if not (shared_records / name).is_file():
            pytest.fail(f"the reference file {shared_records / name} is missing", pytrace=False)
        return _lines(shared_records, name)

    return read


def _line(request: pytest.FixtureRequest, shared_records: Path) -> ReferenceLine:
    if request.param is None:
        pytest.fail(f"no reference records found in {shared_records}", pytrace=False)
    line: ReferenceLine = request.param
    return line


@pytest.fixture
def reference_line(request: pytest.FixtureRequest, shared_records: Path) -> ReferenceLine:
    return _line(request, shared_records)


@pytest.fixture
def mil_reference_line(request: pytest.FixtureRequest, shared_records: Path) -> ReferenceLine:
    return _line(request, shared_records)


@pytest.fixture
def mariage_reference_line(request: pytest.FixtureRequest, shared_records: Path) -> ReferenceLine:
    return _line(request, shared_records)
