"""The dependency audit's verdict (``scripts/audit``): what pip-audit's JSON report says about
the pinned packages, in plain lines, and the exit status.

    python scripts/audit_verdict.py PINNED STATUS REPORT.json STDERR.txt

- A known vulnerability: each one on a line (package, version, advisory, fixed versions);
  exit 1.
- Packages pip-audit could not check (the database does not answer for them, or not at
  all): "could not check N of M packages: the vulnerability database is not reachable",
  never "No known vulnerabilities found"; exit 0 (the audit is a warning light: an offline
  build must not fail for it).
- pip-audit stopped for another reason than the network: its last line; exit 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["verdict"]

#: what a failed connection leaves in pip-audit's traceback (requests, urllib3, DNS)
_NETWORK = (
    "ConnectionError",
    "ProxyError",
    "ConnectTimeout",
    "ReadTimeout",
    "Max retries exceeded",
    "NameResolutionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "SSLError",
)


def _unreachable(count: int, pinned: int, detail: str) -> str:
    return (
        f"audit: could not check {count} of {pinned} packages: the vulnerability database "
        f"is not reachable ({detail})"
    )


def verdict(
    pinned: int, status: int, report: dict[str, Any] | None, stderr: str
) -> tuple[int, list[str]]:
    """The exit status and the lines to print for pip-audit's ``report`` (None: it wrote
    none) after it exited with ``status``; ``pinned``: the number of pinned packages."""
    if report is None or "dependencies" not in report:
        last = next((ln for ln in reversed(stderr.strip().splitlines()) if ln.strip()), "")
        if any(marker in stderr for marker in _NETWORK):
            return 0, [_unreachable(pinned, pinned, last.strip()[:200] or "no answer")]
        return 2, [f"audit: pip-audit stopped (exit status {status}): {last.strip()[:300]}"]
    deps: list[dict[str, Any]] = list(report["dependencies"])
    total = max(pinned, len(deps))
    vulnerable = [d for d in deps if d.get("vulns")]
    skipped = [d for d in deps if d.get("skip_reason") and not d.get("vulns")]
    checked = len(deps) - len(skipped)
    lines = []
    for d in vulnerable:
        for v in d["vulns"]:
            fixed = ", ".join(v.get("fix_versions") or []) or "no fixed release yet"
            aliases = ", ".join(v.get("aliases") or [])
            also = f" ({aliases})" if aliases else ""
            lines.append(
                f"audit: {d['name']} {d.get('version', '?')}: {v.get('id', '?')}{also}, "
                f"fixed in {fixed}"
            )
    if skipped:
        first = str(skipped[0]["skip_reason"])
        lines.append(_unreachable(len(skipped), total, f"for example: {first}"))
    if vulnerable:
        count = sum(len(d["vulns"]) for d in vulnerable)
        lines.append(
            f"audit: {count} known vulnerabilit{'y' if count == 1 else 'ies'} in "
            f"{len(vulnerable)} of the {checked} packages checked"
        )
        return 1, lines
    if checked:
        lines.append(f"audit: {checked} of {total} packages checked: no known vulnerability")
    return 0, lines


def main(argv: list[str]) -> int:
    pinned, status, report_path, stderr_path = argv
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError):
        report = None
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        stderr = f.read()
    code, lines = verdict(int(pinned), int(status), report, stderr)
    for line in lines:
        print(line)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
