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
from itertools import compress
from operator import is_not

from tapete.game import JSON

_ABSENT = object()


@dataclass(slots=True)
class SentViews:
    """The views of a table's last broadcast, in parts (``Game.view_parts``): what the next
    broadcast's patches are taken against.

    Kept as the engine built them (lists and dicts), compared as Python values: the cheapest
    way at the pace of the flat-out benchmark. Each key's JSON text instead would not be
    scanned by the garbage collector while a table waits for its next action (at 1,000
    tables at a person's pace the server collector's young passes took 6.5 ms instead of
    17.6 ms), but encoding every key apart to compare them made a broadcast's messages cost
    1.6 times those of whole views (docs/benchmarks.md, "Patches")."""

    #: the version those views show (a patch's ``patch_of``)
    version: int
    #: the keys every seat sees alike (the ``sheet`` is not compared: rows are only added,
    #: and the table counts them, ``Table.sheet_sent``)
    shared: JSON
    #: per seat that got them: its own keys (a seat missing here gets a whole view)
    owns: dict[int | None, JSON]
    #: the seat clocks as every connection last got them (in that broadcast, or in a
    #: ``presence`` since): a patch leaves out the same again
    clocks: JSON | None = None


def changes(now: JSON, before: JSON, skip: str = "") -> tuple[JSON, list[str]]:
    """The keys of ``now`` whose values are not those of ``before`` (or that ``before``
    lacks), with their values, and the keys of ``before`` that ``now`` lacks; ``skip`` (a
    key) is left out of both.

    Values are compared as Python values, the type of each top-level value too (``True ==
    1`` in Python, not in JSON). Inside a list or an object, a view never holds a ``true``
    where it held a ``1`` at the same place (the tests compare the patched views' JSON text
    with the whole views' over whole games: ``tests/server/test_server_patches.py``).

    A value that is the same object in both is unchanged without a look inside (no view
    holds a NaN, the one value unequal to itself): the engines hand out again the values
    they kept (``MilGame.view_parts``), and a view's values are never changed in place
    (``Game.views``). Two views of the same keys in the same order
    (nearly every broadcast) are first scanned for such values in C, pairwise, so that only
    the keys whose values are new objects are compared one by one (the broadcast's main cost
    before: about 80 keys an action, each through a line of Python)."""
    if now is before:
        return {}, []
    if len(now) == len(before) and list(now) == list(before):
        fresh = compress(now, map(is_not, now.values(), before.values()))
        return {
            key: value
            for key in fresh
            if key != skip
            and ((old := before[key]) != (value := now[key]) or type(old) is not type(value))
        }, []
    changed = {
        key: value
        for key, value in now.items()
        if key != skip
        and ((old := before.get(key, _ABSENT)) != value or type(old) is not type(value))
    }
    return changed, [key for key in before if key not in now and key != skip]


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
