"""The dependency audit (``scripts/audit``, its verdict in ``scripts/audit_verdict.py``):
packages pip-audit could not check are said to be unchecked, never "No known
vulnerabilities found"; that passes, and a known vulnerability fails."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PINNED = sum("==" in line for line in (ROOT / "constraints.txt").read_text().splitlines())


def _load() -> ModuleType:
    path = ROOT / "scripts/audit_verdict.py"
    spec = importlib.util.spec_from_file_location("audit_verdict", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verdict = _load().verdict

SKIPPED = {
    "name": "idna",
    "skip_reason": "Dependency not found on PyPI and could not be audited: idna (3.20)",
}
CLEAN = {"name": "anyio", "version": "4.16.0", "vulns": []}
VULNERABLE = {
    "name": "requests",
    "version": "2.31.0",
    "vulns": [
        {
            "id": "GHSA-9wx4-h78v-vm56",
            "fix_versions": ["2.32.0"],
            "aliases": ["CVE-2024-35195"],
            "description": "...",
        }
    ],
}


def report(*deps: dict[str, Any]) -> dict[str, Any]:
    return {"dependencies": list(deps), "fixes": []}


def test_nothing_checked_says_so_and_passes() -> None:
    code, lines = verdict(3, 0, report(SKIPPED, SKIPPED, SKIPPED), "No known vulnerabilities found")
    assert code == 0
    assert lines[0].startswith(
        "audit: could not check 3 of 3 packages: the vulnerability database is not reachable"
    )
    assert "idna (3.20)" in lines[0]
    assert not any("no known" in line.lower() for line in lines)


def test_no_network_says_so_and_passes() -> None:
    stderr = (
        "Traceback (most recent call last):\n...\nrequests.exceptions.ConnectionError: "
        "HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded\n"
    )
    code, lines = verdict(5, 1, None, stderr)
    assert code == 0
    assert lines == [
        "audit: could not check 5 of 5 packages: the vulnerability database is not reachable "
        "(requests.exceptions.ConnectionError: HTTPSConnectionPool(host='pypi.org', port=443): "
        "Max retries exceeded)"
    ]


def test_a_known_vulnerability_fails() -> None:
    code, lines = verdict(3, 1, report(CLEAN, VULNERABLE, SKIPPED), "")
    assert code == 1
    assert lines[0] == (
        "audit: requests 2.31.0: GHSA-9wx4-h78v-vm56 (CVE-2024-35195), fixed in 2.32.0"
    )
    assert "could not check 1 of 3 packages" in lines[1]
    assert lines[-1] == "audit: 1 known vulnerability in 1 of the 2 packages checked"


def test_all_checked_and_clean_passes() -> None:
    assert verdict(2, 0, report(CLEAN, CLEAN), "") == (
        0,
        ["audit: 2 of 2 packages checked: no known vulnerability"],
    )


def test_pip_audit_stopping_for_another_reason_fails() -> None:
    code, lines = verdict(2, 1, None, "ERROR: invalid requirement: 'x=='\n")
    assert code == 2 and lines == [
        "audit: pip-audit stopped (exit status 1): ERROR: invalid requirement: 'x=='"
    ]


#: a stand-in for pip-audit (the real one needs the network): ``FAKE_AUDIT`` is the report
#: it gives; like the real one it says "No known vulnerabilities found" on stderr when it
#: found none, even for packages it did not check
FAKE = textwrap.dedent(
    """
    import json, os, sys
    args = sys.argv[1:]
    if "--version" in args:
        print("pip-audit 2.10.1"); sys.exit(0)
    report = json.loads(os.environ["FAKE_AUDIT"])
    vulns = any(d.get("vulns") for d in report["dependencies"])
    if "--output" in args:
        with open(args[args.index("--output") + 1], "w") as f:
            json.dump(report, f)
    else:
        for d in report["dependencies"]:
            print(d["name"], d.get("skip_reason", ""))
    if not vulns:
        print("No known vulnerabilities found", file=sys.stderr)
    sys.exit(1 if vulns else 0)
    """
)


@pytest.mark.parametrize(
    ("deps", "status", "words"),
    [
        ([SKIPPED], 0, f"could not check {PINNED} of {PINNED} packages"),
        ([CLEAN, VULNERABLE], 1, "GHSA-9wx4-h78v-vm56"),
    ],
)
def test_the_script(tmp_path: Path, deps: list[dict[str, Any]], status: int, words: str) -> None:
    fake = tmp_path / "pip_audit"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text(FAKE)
    skipped = [dict(SKIPPED, name=f"p{i}") for i in range(PINNED)]
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "PYTHONPATH": str(tmp_path),
        "FAKE_AUDIT": json.dumps(report(*(skipped if deps == [SKIPPED] else deps))),
    }
    done = subprocess.run(
        ["bash", str(ROOT / "scripts/audit")], env=env, capture_output=True, text=True, timeout=60
    )
    out = done.stdout + done.stderr
    assert done.returncode == status, out
    assert words in out, out
    assert "No known vulnerabilities found" not in out, out
