"""Helpers for the server tests: play a table over the WebSocket, and an oracle that knows
which cards a seat may not know at each version of a table."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from unittest import mock

from sqlalchemy import func, select, update
from starlette.applications import Starlette

from tapete.bots.reasons import Reason
from tapete.cards import CARD_NAMES, bits, mask_of, mask_points, parse_card
from tapete.games import kind
from tapete.server.db import ActionRow, SecretRow, TableRow
from tapete.server.fairness import load_key
from tapete.server.limits import Limits
from tapete.server.patches import patched
from tapete.server.tables import game_of

if TYPE_CHECKING:
    from starlette.testclient import TestClient

    from tapete.server.tables import Table, TableManager


#: the ``make_app`` fixture: ``make_app(**create_app_options) -> Starlette``
MakeApp = Callable[..., Starlette]

#: the server's limits with the per-client rate limits lifted (tests play fast)
TEST_LIMITS = Limits(create_burst=100_000, hint_burst=100_000, hint_processes=0, list_cache_s=0)


CARD_RE = re.compile(r"(?<![A-Za-z0-9_])[AKQJT987][SCDH](?![A-Za-z0-9_])")


def wait_until(what: str, done: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for ``done()`` (something the server does beside the request, in another thread
    or task); fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def new_table(client: TestClient, *, counted: bool = False, **body: Any) -> tuple[int, str]:
    """Create a table over HTTP. ``counted=True`` with a ``seed``: the server draws that seed
    itself (the request names none), so the game counts in the statistics and the Ranking
    as a game on a deal nobody chose does."""
    data: dict[str, Any] = {"game": "mil", "name": "Ana"}
    data.update(body)
    if "levels" not in body:
        data["levels"] = ["random"] * (2 if data["game"] == "mil" else 1)
    if counted:
        seed = data.pop("seed")
        # (and a deal key of its own: the fair deals are the same at every run)
        key = seed.to_bytes(32, "big")
        with (
            mock.patch("tapete.server.tables.secrets.randbits", return_value=seed),
            mock.patch("tapete.server.fairness.new_key", return_value=key),
        ):
            r = client.post("/api/tables", json=data)
    else:
        r = client.post("/api/tables", json=data)
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["seat"] == 0 and len(out["token"]) == 32
    return int(out["table"]), str(out["token"])


def waiting_table(
    manager: TableManager, game: str, profile: str | None = None, **options: Any
) -> Table:
    """A listed ``game`` table that Ana created, its other seats open to anyone (it waits
    for them). ``profile``: the game's first by default."""
    seats = len(kind(game).default_players)
    return manager.create(
        game=game,
        profile=profile or kind(game).profiles[0],
        name="Ana",
        language="en",
        seats=[("me", None)] + [("open", None)] * (seats - 1),
        listed=True,
        **options,
    )


def people_table(
    manager: TableManager, game: str, seed: int, profile: str | None = None, **options: Any
) -> Table:
    """A listed ``game`` table of ``max_deals=3`` whose seats are all people: Ana created it
    (:func:`waiting_table`), Bea (and Cid) joined. ``profile``: the game's first by default."""
    table = waiting_table(manager, game, profile, seed=seed, max_deals=3, **options)
    for name in ("Bea", "Cid")[: len(table.seats) - 1]:
        manager.join(table.id, name=name)
    return table


def set_secret(app: Starlette, value: str = "00" * 32) -> None:
    """Give the app's database a known secret for the computer players' random numbers (two
    databases with the same secret make the same computer choices)."""
    manager = app.state.manager
    with manager.sessions.begin() as s:
        s.execute(update(SecretRow).where(SecretRow.name == "bot_rng").values(value=value))
    manager._secret = None


def action_count(app: Starlette, table_id: int) -> int:
    with app.state.manager.sessions() as s:
        return int(
            s.scalar(
                select(func.count()).select_from(ActionRow).where(ActionRow.table_id == table_id)
            )
            or 0
        )


def stored_actions(app: Starlette, table_id: int) -> list[dict[str, Any]]:
    with app.state.manager.sessions() as s:
        return list(
            s.scalars(
                select(ActionRow.action).where(ActionRow.table_id == table_id).order_by(ActionRow.n)
            )
        )


def _to_act(view: dict[str, Any]) -> bool:
    return bool(view["over"] or (view["turn"] == view["seat"] and view["legal"]))


def assert_hint_reason(hint: dict[str, Any]) -> None:
    """A hint's reason: the English sentence and its key and arguments, which agree."""
    assert isinstance(hint["reason"], str) and hint["reason"], hint
    assert isinstance(hint["reason_key"], str), hint
    args = hint["reason_args"]
    assert isinstance(args, dict) and all(isinstance(v, str) for v in args.values()), hint
    # the reason built again from the key and the arguments gives the same sentence
    typed: dict[str, str | int | float] = {
        k: int(v.removesuffix("%")) / 100 if k == "pct" else float(v) if k == "avg" else v
        for k, v in args.items()
        if k != "sampled_avg"
    }
    avg = args.get("sampled_avg")
    reason = Reason(hint["reason_key"], typed, None if avg is None else float(avg))
    assert str(reason) == hint["reason"], hint


def whole_sheet(message: dict[str, Any], held: dict[str, Any] | None) -> None:
    """Put the whole score sheet into a ``view`` message, as the web client does: the server
    sends it whole once (``sheet_from`` 0) and then only the rows from ``sheet_from`` on, which
    must follow the rows of the view ``held`` (the previous one)."""
    start = message.get("sheet_from", 0)
    view = message["view"]
    if not start or "sheet" not in view:
        return
    assert held is not None, f"sheet_from {start} in the first message"
    old = held["sheet"]
    assert len(old) >= start, f"sheet_from {start} past the {len(old)} rows held"
    view["sheet"] = old[:start] + view["sheet"]


@dataclass
class Received:
    """A message to the watched seat and the table version it describes."""

    version: int
    message: dict[str, Any]


class RealSocket:
    """A ``websockets`` client connection (a server under uvicorn) with the two calls of
    Starlette's test socket that :class:`Session` makes."""

    def __init__(self, ws: Any, timeout_s: float = 10.0) -> None:
        self.ws, self.timeout_s = ws, timeout_s

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=self.timeout_s))

    def send_json(self, data: Any) -> None:
        self.ws.send(json.dumps(data))


@dataclass
class Session:
    """Seat 0 (or a spectator) at a table, driven by random legal choices (``ws``: a test
    client's socket, or a :class:`RealSocket`)."""

    ws: Any
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    log: list[Received] = field(default_factory=list)
    version: int = 0
    view: dict[str, Any] | None = None
    #: True from sending an action until a view of a later version arrives
    waiting: bool = False
    acted_at: int = -1
    #: the ``patch`` messages received (logged as the whole views they make)
    patches: list[dict[str, Any]] = field(default_factory=list)

    def receive(self) -> dict[str, Any]:
        m: dict[str, Any] = self.ws.receive_json()
        if m["type"] == "patch":
            # (a connection with patches=1: the patch as the whole view it makes, the patch
            # itself kept apart for the schema checks)
            self.patches.append(m)
            assert self.view is not None and m["patch_of"] == self.version, (m, self.version)
            view = patched(self.view, m["view"], m["removed"], m["sheet_from"])
            rest = {k: v for k, v in m.items() if k not in ("patch_of", "removed")}
            m = {**rest, "type": "view", "view": view, "sheet_from": 0}
        if m["type"] in ("view", "hint"):
            self.version = m["version"]
        if m["type"] == "view":
            whole_sheet(m, self.view)
            self.view = m["view"]
            if m["version"] > self.acted_at:
                self.waiting = False
        self.log.append(Received(self.version, m))
        return m

    def wait_turn(self) -> dict[str, Any]:
        """Read views until seat 0 is to act (or the game is over); return that view."""
        v = self.view
        if (
            v is not None
            and not self.waiting
            and (v["over"] or (v["turn"] == v["seat"] and v["legal"]))
        ):
            return v
        while True:
            m = self.receive()
            if m["type"] != "view":
                continue
            v = m["view"]
            if not self.waiting and _to_act(v):
                return v

    def act(self, action: dict[str, Any]) -> None:
        self.ws.send_json({"type": "act", "version": self.version, "action": action})
        self.waiting = True
        self.acted_at = self.version

    def play(self, max_actions: int = 100_000, hint_every: int = 0) -> dict[str, Any]:
        """Play random legal actions until the game is over; return the last view."""
        n = 0
        while True:
            v = self.wait_turn()
            if v["over"] or n >= max_actions:
                return v
            if hint_every and n % hint_every == 0:
                self.ws.send_json({"type": "hint"})
                while (h := self.receive())["type"] != "hint":
                    pass
                assert h["action"] in v["legal"], h
                assert_hint_reason(h)
            self.act(self.rng.choice(v["legal"]))
            n += 1

    def error(self) -> dict[str, Any]:
        """The next error message (skipping views)."""
        while True:
            m = self.receive()
            if m["type"] == "error":
                return m


# ---------------------------------------------------------------------- the card oracle


def _names(mask: int) -> set[str]:
    return {CARD_NAMES[c] for c in bits(mask)}


class Oracle:
    """Replays a table's stored actions and says, at each version, which cards a seat may
    not know (cards in the other hands, the hidden talon or stock), computed from the engine
    state independently of the views."""

    def __init__(self, app: Starlette, table_id: int, seat: int | None) -> None:
        with app.state.manager.sessions() as s:
            row = s.get(TableRow, table_id)
            assert row is not None
            self.game = game_of(row, deal_key=load_key(s, table_id))
        self.actions = stored_actions(app, table_id)
        self.seat = seat
        self.version = 0
        self.state = self.game.state
        self.seen_indicators: set[str] = set()
        #: version -> the cards a redeal applied to reach it showed to everyone
        self.redeal_shown: dict[int, set[str]] = {}
        self._note()
        self.cache: dict[int, set[str]] = {0: self._forbidden(self.state)}
        #: version -> what is hidden from the seat in the deal of the action that led to
        #: that version, right after the action (the events of a deal's last action speak of
        #: that deal, not of the next one)
        self.during: dict[int, set[str]] = {0: self.cache[0]}

    def _note(self) -> None:
        st = self.game.state
        if st is None:
            return
        if st is not self.state:
            self.state = st
            self.seen_indicators = set()
        if self.game.name == "mariage" and st.indicator is not None:
            self.seen_indicators.add(CARD_NAMES[st.indicator])

    def _forbidden(self, st: Any) -> set[str]:
        others = [s for s in range(len(st.hands)) if s != self.seat]
        hidden = 0
        for s in others:
            hidden |= st.hands[s]
        if self.game.name == "mil":
            known = 0
            if st.declarer < 0:
                hidden |= st.talon | mask_of(st.dealt_talon)
            else:
                known |= mask_of(st.dealt_talon)
            for c, to in st.gives:
                if self.seat in (to, st.declarer):
                    known |= 1 << c
            return _names(hidden & ~known)
        stock = st.stock[len(st.stock) - st.stock_count :] if st.stock_count else []
        names = _names(hidden) | {CARD_NAMES[c] for c in stock}
        shown = set(self.seen_indicators)
        for seat, suit, _value in st.marriages:
            if seat != self.seat:
                letter = "SCDH"[suit]
                shown |= {"K" + letter, "Q" + letter}
        return names - shown

    def _redeal_justification(self, data: dict[str, Any]) -> set[str] | None:
        """The cards a Mil redeal about to be applied may show to everyone (computed from
        the rules, not from the server): the four 9s, the asking seat's dealt hand, or the
        dealt talon."""
        if self.game.name != "mil" or data.get("type") != "redeal":
            return None
        st = self.state
        reason = data.get("reason")
        if reason == "four_nines":
            return {"9S", "9C", "9D", "9H"}
        if reason == "low_points":
            return _names(mask_of(st.dealt_hands[st.turn]))
        if reason == "low_talon":
            return _names(mask_of(st.dealt_talon))
        return set()

    def shown_by_redeal(self, version: int) -> set[str]:
        """Cards shown to everyone by the redeal that led to ``version`` (none otherwise)."""
        self.forbidden(version)
        return self.redeal_shown.get(version, set())

    def forbidden(self, version: int) -> set[str]:
        while self.version < version:
            data = self.actions[self.version]
            shown = self._redeal_justification(data)
            old = self.game.state
            self.game.apply(self.game.parse_action(data))
            self.version += 1
            if shown is not None:
                self.redeal_shown[self.version] = shown
            if self.game.name == "mariage" and old.indicator is not None:
                self.seen_indicators.add(CARD_NAMES[old.indicator])
            self.during[self.version] = self._forbidden(old)
            self._note()
            self.cache[self.version] = self._forbidden(self.state)
        return self.cache[version]

    def forbidden_during(self, version: int) -> set[str]:
        """What the events of the action that led to ``version`` must not show."""
        self.forbidden(version)
        return self.during[version]


def _points(cards: list[str]) -> int:
    return mask_points(mask_of(parse_card(c) for c in cards))


def check_view_numbers(view: dict[str, Any], seat: int | None) -> None:
    """The numbers a view adds for display (no client computes them) are the ones ``seat``
    may know: points of its own hand and of the revealed talon only, and each sheet row's
    changes agree with its totals."""
    if view.get("game") != "mil":  # (Mariage's numbers are its points, public already)
        return
    if seat is None:
        assert view["hand_points"] is None and view["redeal_cards"] == {}, view
    elif view["over"]:
        assert view["hand_points"] is None
    else:
        assert view["hand_points"] == _points(view["hand"]), view
    if view["talon"] is None:
        assert view["talon_points"] is None, view
    else:
        assert view["talon_points"] == _points(view["talon"]), view
    for reason, cards in view["redeal_cards"].items():
        assert reason in view["redeal_reasons"] and seat == view["turn"], view
        assert set(cards) <= set(view["hand"]) | set(view["talon"] or ()), view
    assert set(view["pair_cards"]) <= set(view["hand"])
    # (the first row's totals before it are the start position's, which the view omits)
    before: list[float] | None = None
    for row in view["sheet"]:
        if before is not None:
            assert row["deltas"] == [a - b for a, b in zip(row["scores"], before, strict=True)]
        if row["annulled"] or row["rospis"]:
            assert row["made"] is None
        else:
            assert row["made"] == (row["raw"][row["declarer"]] >= row["contract"])
        before = row["scores"]


#: events that speak of the position after the action (a new deal, the game's end); the
#: others speak of the deal the action was in
_NEW_POSITION_EVENTS = frozenset({"deal", "game_over"})


def check_no_leak(app: Starlette, table_id: int, log: list[Received], seat: int | None) -> int:
    """Every card string in every message of ``log`` is one ``seat`` may know; returns the
    number of card strings checked."""
    oracle = Oracle(app, table_id, seat)
    checked = 0
    for item in log:
        m = item.message
        forbidden = oracle.forbidden(item.version)
        if m["type"] == "view":
            check_view_numbers(m["view"], seat)
            body = {k: v for k, v in m.items() if k != "events"}
            during = oracle.forbidden_during(item.version)
            for event in m.get("events", []):
                if event["type"] == "action":
                    action = event["action"]
                    if action.get("type") == "give" and seat not in (event["seat"], action["to"]):
                        assert action["card"] is None, f"give card leaked to seat {seat}: {event}"
                    if "shown" in event:
                        # cards a redeal shows are public from then on: exactly the ones that
                        # justify it, taken from the deal it ended
                        shown = set(event["shown"])
                        allowed = oracle.shown_by_redeal(item.version)
                        assert action.get("type") == "redeal", f"cards shown by {action}: {event}"
                        assert shown == allowed, f"redeal showed {sorted(shown)}: {event}"
                        checked += len(shown)
                        event = {k: v for k, v in event.items() if k != "shown"}
                hidden = forbidden if event["type"] in _NEW_POSITION_EVENTS else during
                cards = CARD_RE.findall(json.dumps(event))
                checked += len(cards)
                leaked = sorted(set(cards) & hidden)
                assert not leaked, f"version {item.version}: seat {seat} was sent {leaked}: {event}"
        else:
            body = m
        cards = CARD_RE.findall(json.dumps(body))
        checked += len(cards)
        leaked = sorted(set(cards) & forbidden)
        assert not leaked, f"version {item.version}: seat {seat} was sent {leaked}: {m}"
    return checked
