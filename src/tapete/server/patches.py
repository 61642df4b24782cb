"""View patches: after its first view, a connection that asks for them (``patches=1``) is
sent what changed in its seat's view at each broadcast instead of the whole view
(docs/dev/protocol.md, "Patches"; issue 13, item 13: "events, not whole views, after the
first view").

A patch holds the view's top-level keys whose values changed since the last broadcast and
the names of the keys the view no longer has; the client puts them over the view it holds.
The server sends one only to a connection it knows holds the last broadcast's view (it got
that broadcast, and no other view since: ``Table.patched``), so the patch is always
relative to what the client has; everyone else gets the whole view, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from tapete.game import JSON

#: a view's key as the start of a JSON member (``"hand":``), made once per key name (the
#: engine's views have a few dozen)
_MEMBER_HEADS: dict[str, str] = {}


@dataclass(slots=True)
class SentViews:
    """The views of a table's last broadcast, in parts (``Game.view_parts``), each key's value
    as its JSON text: what the next broadcast's patches are taken against. Kept as text
    (which the garbage collector does not scan), not as the view's lists and dicts: kept
    until the table's next action, those were scanned by every young pass of the server's
    collector meanwhile (at 1,000 tables it made those passes about twice as long)."""

    #: the version those views show (a patch's ``patch_of``)
    version: int
    #: the keys every seat sees alike, encoded (not the ``sheet``: rows are only added, and
    #: the table counts them, ``Table.sheet_sent``)
    shared: dict[str, str]
    #: per seat that got them: its own keys, encoded (a seat missing here gets a whole view)
    owns: dict[int | None, dict[str, str]]
    #: the seat clocks as every connection last got them (in that broadcast, or in a
    #: ``presence`` since): a patch leaves out the same again
    clocks: JSON | None = None


def encoded(part: JSON, skip: str = "") -> dict[str, str]:
    """Each key of ``part`` (but ``skip``) with its value's JSON text (orjson: a TypeError
    for what it cannot write). Each is a ``str`` of its own size: orjson's ``bytes`` keep the
    buffer they were written into (4 KB for a 5-byte value), and a table keeps these until
    its next action (kept as orjson wrote them: 290 MB more memory at 1,000 tables)."""
    return {key: orjson.dumps(value).decode() for key, value in part.items() if key != skip}


def members(part: dict[str, str]) -> list[str]:
    """The members of a JSON object with these keys and encoded values."""
    heads = _MEMBER_HEADS
    out = []
    for key, value in part.items():
        head = heads.get(key)
        if head is None:
            head = heads[key] = orjson.dumps(key).decode() + ":"
        out.append(head + value)
    return out


def changes(now: dict[str, str], before: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The keys of ``now`` whose JSON text is not ``before``'s (or that ``before`` lacks),
    and the keys of ``before`` that ``now`` lacks. The texts are compared, so a ``true``
    that was a ``1`` is a change, as on the wire."""
    changed = {key: value for key, value in now.items() if before.get(key) != value}
    return changed, [key for key in before if key not in now]


def json_object(*parts: list[str]) -> str:
    """The JSON object of these members (from :func:`members`), in order."""
    return "{" + ",".join(member for part in parts for member in part) + "}"


def patched(view: JSON, patch: JSON, removed: list[str], sheet_from: int | None = None) -> JSON:
    """``view`` with a patch put over it (what a client does: the reference for the tests
    and the Python clients); with ``sheet_from`` the patch's ``sheet`` holds the sheet's rows
    from that index on, appended to the rows before it."""
    out = {key: value for key, value in view.items() if key not in removed}
    out.update(patch)
    if sheet_from is not None and "sheet" in patch:
        held = view.get("sheet") or []
        if len(held) < sheet_from:
            raise ValueError(f"the patch's sheet starts at row {sheet_from}; {len(held)} held")
        out["sheet"] = held[:sheet_from] + patch["sheet"]
    return out
