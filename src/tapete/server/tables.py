"""Tables: one game, its seats (people, free seats waiting for someone, computer players)
and its append-only action log in the database.

A table whose seats are not all taken is ``waiting``: people sit down with the invitation
code (or, at a table listed in the lobby, at an open seat), and the game starts when every
seat is taken. Each person's seat has its own secret token; several connections of one seat
all follow the game and any of them may act.

The server is the authority. A person's action is parsed and checked here (token, turn,
version), applied by the engine, appended to the log in one transaction (by the write
thread, with the actions of other tables that came meanwhile: :mod:`tapete.server.writes`),
and then every connected listener gets its own view (``game.view(seat)``; spectators
``game.view(None)``) with the events the action caused as its seat may see them
(``event.for_viewer(seat)``: the engine decides who sees a card, never the server). Nothing
sent is ever built from the full state. Computer seats play from an asyncio task per table,
paced by ``delay_ms``; a bot that raises or runs out of time plays the first legal action
instead, and the fault is logged, so a game never stalls.

A table is rebuilt from its seed, its deal key (fair deals: :mod:`tapete.server.fairness`)
and its stored actions (the engine deals only from them), so a restart resumes every table
exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import (
    AsyncIterator,
    Callable,
    Collection,
    Coroutine,
    Iterable,
    Iterator,
    Sequence,
)
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar, cast

import orjson
from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.engine import CursorResult, Engine, Row
from sqlalchemy.orm import Session, sessionmaker

from tapete.errors import IllegalActionError, InvalidNotationError
from tapete.game import JSON, Event, Game
from tapete.games import kind, kinds
from tapete.names import MAX_NAME_CHARS, look_alike
from tapete.replay import RecordError, replay_actions
from tapete.server import fairness, stats
from tapete.server.clock import (
    Abandoned,
    ClockDriver,
    ClockSettings,
    ClockSettingsError,
    Decision,
    GiveBack,
    SeatClocks,
    TakeOver,
)
from tapete.server.db import (
    ActionRow,
    ChatRow,
    DatabaseThreads,
    SeatRow,
    SecretRow,
    TableRow,
    utcnow,
)
from tapete.server.i18n import error_text
from tapete.server.limits import Limits, RefusalLog
from tapete.server.patches import SentViews, changes
from tapete.server.room import (
    CHAT_LINES,
    FREE_KINDS,
    ChatTooLong,
    History,
    Seat,
    chat_message,
    check_chat,
    seat_for_token,
)
from tapete.server.writes import ActionWriter

__all__ = [
    "FinishHook",
    "Listener",
    "NewTable",
    "Table",
    "TableError",
    "TableManager",
    "bot_names",
    "build_game",
    "check_action_fields",
    "game_of",
    "message_text",
    "rebuild_memory",
]

log = logging.getLogger("tapete.server")

_T = TypeVar("_T")

#: seconds after which computers try again to fill a quick table whose fill failed (a
#: locked or unreachable database)
FILL_RETRY_S = 5.0

#: bots cheap enough to run on the event loop (the others think in a worker thread, with a
#: time limit)
_INLINE_BOTS = frozenset({"random"})

_BOT_NAMES = ("Bruno", "Carla", "Dora", "Emil")


#: the wire's JSON when orjson refuses a message (an integer past 64 bits): compact, and no
#: check for cycles (a message is a tree of fresh lists and dicts); text as itself, or, for
#: a message with a lone surrogate (no UTF-8 for it), escaped
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False, ensure_ascii=False)
_ASCII_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def message_text(message: JSON) -> str:
    """A message as the text of one WebSocket frame: compact JSON, non-ASCII text as UTF-8.
    orjson writes a 2 KB view in about a tenth of the standard library's time (four texts
    an action: docs/benchmarks.md, "Online room load"); the same JSON values either way."""
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        pass
    try:
        # (a dict with integer keys: the option makes every message's encoding 60-75 %
        # dearer, so it is only asked for when needed: docs/benchmarks.md)
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        pass
    text = _ENCODER.encode(message)
    try:
        text.encode()
    except UnicodeEncodeError:
        return _ASCII_ENCODER.encode(message)
    return text


def _seen_events(
    seen: dict[int | None, orjson.Fragment], seat: int | None, events: Sequence[Event]
) -> orjson.Fragment:
    """What ``seat`` may see of ``events`` (``Event.for_viewer``) as a JSON text, encoded
    once per broadcast for every seat that sees them as the spectators do (no private part
    of an event for it: most actions), kept in ``seen`` (None: that text; a seat: its own).
    Raises TypeError where orjson cannot encode them (``Table.view_texts`` then encodes
    whole messages with :func:`message_text`)."""
    own = seat is not None and any(seat in e.private for e in events)
    key = seat if own else None
    text = seen.get(key)
    if text is None:
        text = seen[key] = orjson.Fragment(orjson.dumps([e.for_viewer(key) for e in events]))
    return text


def _joined(first: str, second: str) -> str:
    """The JSON object of the keys of two JSON objects' texts (no key in both): the first's
    keys, then the second's."""
    if first == "{}":
        return second
    if second == "{}":
        return first
    return first[:-1] + "," + second[1:]


def _last_action_at() -> Any:
    """The time of a table's last action, as a subquery of a query on ``TableRow``: its row
    of the highest ``n`` (actions are appended in order), found through the primary key's
    index (the latest ``created_at`` read every action of every unfinished table: 0.07-0.8 s
    at 1,000 tables of 100 actions, in the sweep every minute)."""
    return (
        select(ActionRow.created_at)
        .where(ActionRow.table_id == TableRow.id)
        .order_by(ActionRow.n.desc())
        .limit(1)
        .scalar_subquery()
    )


def build_game(
    game: str,
    profile: str,
    *,
    seed: int,
    players: list[str],
    max_deals: int | None,
    start: JSON | None = None,
    deal_key: bytes | None = None,
) -> Game:
    """A table's game: new from ``seed``, or from a position (a record's ``start``, as the
    game's registry entry reads it); with ``deal_key`` its deals are fair ones
    (:mod:`tapete.server.fairness`). Raises ``ValueError`` for a bad position."""
    return kind(game).new(
        profile,
        seed=seed,
        players=players,
        max_deals=max_deals,
        start=start,
        deal_seeds=fairness.deal_seeds(deal_key),
    )


def game_of(row: TableRow, *, cap: int | None = None, deal_key: bytes | None = None) -> Game:
    """A stored table's game before any action (its seed, players, start position and deal
    key: :func:`tapete.server.fairness.load_key`). ``cap``: the deals after which it stops
    when the table sets no ``max_deals`` of its own (:meth:`TableManager.deal_cap`)."""
    return build_game(
        row.game,
        row.profile,
        seed=row.seed,
        players=list(row.players),
        max_deals=row.max_deals if row.max_deals is not None else cap,
        start=row.start,
        deal_key=deal_key,
    )


def bot_names(people: Iterable[str], count: int) -> list[str]:
    """Names for the computer seats that are none of the people's names, in any case, nor
    look like one (:func:`tapete.names.look_alike`, as two people's names at a table)."""
    taken = list(people)
    return [n for n in _BOT_NAMES if not any(look_alike(n, p) for p in taken)][:count]


def _numbered_names(name: str, more: int) -> Iterator[str]:
    """``name``, then ``more`` numbered forms of it (``Jugador 2``, ``Jugador 3``...), each
    within :data:`~tapete.names.MAX_NAME_CHARS` (the name cut to make room)."""
    yield name
    for n in range(2, more + 2):
        suffix = f" {n}"
        yield name[: MAX_NAME_CHARS - len(suffix)].rstrip() + suffix


class TableError(Exception):
    """A refused message: ``code`` is one of protocol.md's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self, language: str = "en") -> JSON:
        """The error message: ``message`` for a person in ``language``, ``detail`` the
        precise English sentence."""
        return {
            "type": "error",
            "code": self.code,
            "message": error_text(self.code, language, self.message),
            "detail": self.message,
        }


#: ``hook(session, table, record)``: run inside the transaction that stores a game's end
FinishHook = Callable[[Session, "Table", JSON], None]


class Listener(Protocol):
    """A connection that receives a table's messages (a WebSocket in the app)."""

    seat: int | None
    #: whether it is sent patches after its first view (``patches=1``; tapete.server.patches)
    patches: bool

    def push(self, text: str) -> None: ...

    def close(self) -> None: ...


#: the statements of taking a seat (``TableManager.join``), starting a game and rebuilding a
#: table (``TableManager.get``), built once: Core statements on the tables, without the
#: ORM's per-statement work (building the clauses, the bulk update's synchronisation of
#: loaded objects, an object per row), which made a join cost several milliseconds of CPU
#: (docs/benchmarks.md). The table's id is ``b_table_id`` in all of them (an UPDATE may not
#: name a bind parameter after one of its columns)
_SEATS = cast(SqlTable, SeatRow.__table__)
_TABLES = cast(SqlTable, TableRow.__table__)
_SEATS_OF = (
    select(_SEATS).where(_SEATS.c.table_id == bindparam("b_table_id")).order_by(_SEATS.c.seat)
)
#: the characters of ``secrets.token_urlsafe`` (invitation codes)
_URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

_LOCK_STATUS = (
    select(_TABLES.c.status).where(_TABLES.c.id == bindparam("b_table_id")).with_for_update()
)
_CLAIM_SEAT = update(_SEATS).where(
    _SEATS.c.table_id == bindparam("b_table_id"),
    _SEATS.c.seat == bindparam("b_seat"),
    _SEATS.c.kind.in_(sorted(FREE_KINDS)),
)
_START = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_table_id"), _TABLES.c.status == "waiting")
    .values(status="playing")
)
_OPENED = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_table_id"), _TABLES.c.opened_at.is_(None))
    .values(opened_at=bindparam("b_now"))
)
#: a table's rows as ``TableManager.get`` rebuilds it
_ACTIONS = ActionRow.__table__
_ACTIONS_OF = (
    select(_ACTIONS.c.action)
    .where(_ACTIONS.c.table_id == bindparam("b_table_id"))
    .order_by(_ACTIONS.c.n)
)
_CHAT = ChatRow.__table__
_CHAT_OF = (
    select(_CHAT)
    .where(_CHAT.c.table_id == bindparam("b_table_id"))
    .order_by(_CHAT.c.id.desc())
    .limit(CHAT_LINES)
)
_SET_PLAYERS = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("b_table_id"))
    .values(players=bindparam("b_players"))
)


def check_action_fields(data: JSON, canonical: JSON) -> None:
    """Refuse fields the action does not have (``false`` flags such as
    ``"marriage": false`` are the same as leaving them out)."""
    if "seat" in data:
        raise TableError(
            "bad_message", "an action must not name a seat: the server knows whose it is"
        )
    extra = sorted(k for k, v in data.items() if k not in canonical and v is not False)
    if extra:
        raise TableError(
            "bad_message",
            f"unexpected field(s) {', '.join(map(repr, extra))} in a {data.get('type')} action",
        )


@dataclass(eq=False)
class Table:
    id: int
    game_name: str
    profile: str
    seed: int
    players: list[str]
    #: per seat: None for a person, else the bot level
    levels: list[str | None]
    token: str
    language: str
    max_deals: int | None
    game: Game
    start: JSON | None = None
    #: the deals after which ``game`` stops when the table sets no ``max_deals`` of its own
    #: (the server's cap as it stood when the game was built: ``TableManager.deal_cap``;
    #: None for a game played past a cap lowered since): every other copy of the game (the
    #: delayed spectators', a computer's memory) is built with the same cap
    deal_cap: int | None = None
    version: int = 0
    status: str = "playing"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[Listener] = field(default_factory=set)
    bots: dict[int, Any] = field(default_factory=dict)
    rngs: dict[int, random.Random] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    #: set when the in-memory game can no longer be trusted (a failed write)
    broken: bool = False
    #: how many sheet rows every listener holds (the sheet's length at the last broadcast):
    #: the next broadcast sends only the rows from there (``sheet_from``)
    sheet_sent: int = 0
    #: the views of the last broadcast (the next one's patches are taken against them)
    sent: SentViews | None = field(default=None, repr=False)
    #: the listeners that asked for patches and hold the last broadcast's view (they got
    #: it, and no other view since): the next broadcast sends them patches
    patched: set[Listener] = field(default_factory=set, repr=False)
    #: after a rebuild from the database: the stored actions and the index of the current
    #: hand's first one, from which the computer seats' memory is rebuilt before they act
    memory: tuple[Game, list[JSON], int] | None = None
    #: the person chose the deal (the "game number"): not ranked, no statistics
    seed_chosen: bool = False
    #: the table's secret key of fair deals (tapete.server.fairness; never sent): None for
    #: a chosen deal
    deal_key: bytes | None = field(default=None, repr=False)
    #: the server's secret key for the computer players' random numbers (never sent)
    rng_key: bytes = field(default=b"", repr=False)
    #: per seat: who sits there (``room.Seat``: a person, a free seat, a computer)
    seats: list[Seat] = field(default_factory=list)
    #: the invitation code (``/?join=CODE``), None when no seat was ever free
    invite: str | None = field(default=None, repr=False)
    #: every seat a signed-in person (the ratings read it); spectators: whether tokenless
    #: sockets may watch, ``spectator_delay`` actions behind; ``listed``: in the lobby
    rated: bool = False
    spectators: bool = True
    spectator_delay: int = 0
    listed: bool = False
    quick: bool = False
    fill_after_s: float | None = None
    #: the seats whose person abandoned the game (stored: ``abandoned_seats``)
    abandoned: set[int] = field(default_factory=set)
    #: the clock setting as created (``ClockSettings`` JSON; None: the defaults)
    clock: JSON | None = None
    #: the seat clocks and their driver (tables of several people, while playing in memory)
    clocks: SeatClocks | None = field(default=None, repr=False)
    driver: ClockDriver | None = field(default=None, repr=False)
    #: the deal number the clocks last saw (a new one refills the banks)
    clock_deal: int = 0
    #: the manager's clock (``TableManager.now``), for the clocks' snapshot
    clock_now: Callable[[], float] = field(default=time.monotonic, repr=False)
    #: the seats taken over whose new computer player must first remember the hand
    remember: set[int] = field(default_factory=set)
    #: the events of the last actions, by version (reconnection: ``sync`` with ``since``)
    history: History = field(default_factory=lambda: History(0))
    #: every applied action's JSON, in order (the delayed spectators' game follows it)
    actions: list[JSON] = field(default_factory=list)
    #: the game as delayed spectators see it, ``spectator_version`` actions in
    spectator_game: Game | None = None
    spectator_version: int = 0
    #: the last chat lines (sent to a seat's new connection; stored: ``table_chat``)
    chat: deque[JSON] = field(default_factory=lambda: deque(maxlen=CHAT_LINES))
    #: a ``presence`` was sent here: the listeners hold one, and must hear of every change
    #: even once computers hold every seat but one (a quick table filled after its wait)
    announced: bool = False

    @property
    def user_ids(self) -> list[int | None]:
        """Per seat, the signed-in user sitting there (None: a guest, a free seat, a computer)."""
        return [s.user_id for s in self.seats]

    @property
    def shared(self) -> bool:
        """A table of several people (seats taken or free)."""
        return sum(s.kind != "computer" for s in self.seats) > 1

    @property
    def delayed(self) -> bool:
        """Spectators see the game some actions behind (and not once it is over)."""
        return self.spectator_delay > 0 and not self.game.over

    def connected(self) -> dict[int | None, int]:
        """How many connections each seat has (None: spectators)."""
        counts: dict[int | None, int] = {}
        for listener in self.listeners:
            counts[listener.seat] = counts.get(listener.seat, 0) + 1
        return counts

    def presence(self, seat: int | None = 0) -> JSON:
        """The ``presence`` message: who sits where and how many connections each seat has
        (as ``seat`` may see it: ``shows_clocks``)."""
        counts = self.connected()
        out: JSON = {
            "type": "presence",
            "status": self.status,
            "seats": [s.public(n, counts.get(n, 0)) for n, s in enumerate(self.seats)],
            "spectators": counts.get(None, 0),
        }
        if self.shows_clocks(seat):
            out["clocks"] = self.clock_snapshot()
        return out

    def shows_clocks(self, seat: int | None) -> bool:
        """Whether ``seat``'s messages carry the seat clocks: not a delayed spectator's, whose
        view is some actions behind: the clock running now is the live game's player to act,
        who may not be the one to act in that view (it would tell, for one, who has passed)."""
        return self.clocks is not None and not (seat is None and self.delayed)

    @property
    def takeover_level(self) -> str:
        """The level of the computer that plays a person's dropped seat: the level of the
        table's computers (the first one's), else ``rules`` (quick tables: ``rules``)."""
        if not self.quick:
            for level in self.levels:
                if level is not None:
                    return level
        return "rules"

    @property
    def counts_in_stats(self) -> bool:
        """Whether the finished game adds to the players' statistics: not when it began
        from a position or the person chose its deal."""
        return self.start is None and not self.seed_chosen

    @property
    def capped(self) -> bool:
        """Whether the game stopped at the server's cap on deals with no winner (nobody
        played it to the end): the table is then ``abandoned``, not ``finished``."""
        return self.game.over and self.game.winner is None and self.max_deals is None

    @property
    def ended(self) -> bool:
        """Whether the game is over for everyone to see: finished, or stopped at the cap on
        deals (its record, replay and reviews are then everyone's; :meth:`TableManager.stored_over`
        reads the same from the database)."""
        return self.status == "finished" or self.capped

    @property
    def ranked(self) -> bool:
        """Whether a won game enters the Ranking: a whole game (no ``max_deals``) that
        counts in the statistics, and not one the server stopped at its cap on deals."""
        return self.counts_in_stats and self.max_deals is None and not self.capped

    def bot_seed(self, seat: int | None, version: int) -> int:
        """The seed of ``seat``'s random numbers at ``version``: an HMAC of the table, seat
        and version under the server's secret, so that nobody can predict the computer
        players' choices from what is public (the seed of a finished table, the moves),
        while the same server makes the same choices again after a restart."""
        message = f"tapete-bot:{self.id}:{self.seed}:{seat}:{version}".encode()
        digest = hmac.new(self.rng_key, message, hashlib.sha256).digest()
        return int.from_bytes(digest[:16], "big")

    @property
    def awaits_people(self) -> bool:
        """Whether the table's computers wait: a table of several people being played (with
        clocks) none of whose people has a connection open, while one of them may still come
        back (a seat not abandoned). Nobody plays on for people who are all away: a lost
        network no longer let the computers play a game out unseen; once every person has
        abandoned, the computers finish it (docs/server.md, "Clocks and dropped seats")."""
        if self.clocks is None or self.game.over:
            return False
        people = [seat for seat, level in enumerate(self.levels) if level is None]
        connected = self.connected()
        if any(connected.get(seat) for seat in people):
            return False
        return any(seat not in self.abandoned for seat in people)

    def is_bot(self, seat: int | None) -> bool:
        """Whether a computer plays ``seat`` now: a computer's seat, or a person's seat taken
        over (the clocks) or abandoned."""
        if seat is None:
            return False
        if self.levels[seat] is not None or seat in self.abandoned:
            return True
        return self.clocks is not None and self.clocks.computer_plays(seat)

    def seat_for_token(self, token: str | None) -> int | None:
        """The seat whose token this is, None for anything else."""
        return seat_for_token(self.seats, token)

    def seen_version(self, seat: int | None) -> int:
        """The version ``seat`` sees (delayed spectators: the spectators' game's)."""
        return self.spectator_version if seat is None and self.delayed else self.version

    def view_message(
        self,
        seat: int | None,
        events: list[Event] | None = None,
        sheet_from: int = 0,
        clocks: JSON | None = None,
    ) -> JSON:
        """The ``view`` message for ``seat``: its view and what it may see of ``events``.
        With ``sheet_from`` N the view's ``sheet`` holds only its rows from index N (the
        listener holds the ones before: the sheet is sent whole once, then its new rows).
        Spectators of a delayed table see the spectators' game (never anything newer).
        ``clocks``: the clocks' snapshot, when the caller made it once for every seat."""
        game = self.game
        if seat is None and self.delayed:
            game = self.spectator_view_game()
        return self._view_message(seat, self.seat_view(game, seat), events, sheet_from, clocks)

    def check_started(self) -> None:
        """Raise ``not_started`` while a seat is free: nothing is played or hinted before
        every seat is taken."""
        if self.status == "waiting":
            raise TableError("not_started", "the game starts when every seat of the table is taken")

    def seat_view(self, game: Game, seat: int | None) -> JSON:
        """``game.view(seat)``; at a waiting table, what everyone may see (``view(None)``,
        the engine's public view) with the seat's number: nobody sees a card of the deal
        before every seat is taken, so that no one can look at a hand, leave the table and
        open another until a deal pleases them (docs/server.md, "Seats")."""
        if self.status == "waiting" and seat is not None:
            return {**game.view(None), "seat": seat}
        return game.view(seat)

    def view_texts(
        self,
        seats: Collection[int | None],
        events: list[Event],
        sheet_from: int,
        clocks: JSON | None,
        patches: Collection[int | None] = (),
        keep: bool = True,
    ) -> tuple[dict[int | None, str], int | None, dict[int | None, str]]:
        """A broadcast's messages: per seat of ``seats`` the text of
        ``self.view_message(seat, events, sheet_from, clocks)`` (the same JSON, a view's keys
        in another order); how many sheet rows they carry (None: no sheet); and per seat of
        ``patches`` whose views the last call kept (:attr:`sent`) the ``patch`` message
        against them (a seat of ``patches`` that gets none gets a whole view). What the
        seats see alike is built, compared and encoded once for them all
        (``Game.view_parts``); the spectators of a delayed table see another game, built
        apart and sent whole. ``keep``: keep these views for the next call's patches.
        ``sheet_from`` must be what every listener holds for the patches to be right
        (``TableManager._broadcast`` gives ``sheet_sent``)."""
        if self.status == "waiting":  # (the public views: :meth:`seat_view`; none kept)
            self.sent = None
            public = {
                seat: message_text(self.view_message(seat, events, sheet_from, clocks))
                for seat in (*seats, *patches)
            }
            sheet = self.game.view(None).get("sheet")
            return public, len(sheet[sheet_from:]) if isinstance(sheet, list) else None, {}
        delayed = self.delayed
        same = [
            seat for seat in dict.fromkeys([*seats, *patches]) if seat is not None or not delayed
        ]
        shared, owns = self.game.view_parts(same)
        sheet = shared.get("sheet")
        cut = sheet[sheet_from:] if sheet_from and isinstance(sheet, list) else sheet
        rows = len(cut) if isinstance(cut, list) else None
        before = self.sent
        sent = SentViews(self.version, shared, dict(zip(same, owns, strict=True)), clocks)
        self.sent = sent if keep else None
        wanted, whole_seats = set(patches), set(seats)
        texts: dict[int | None, str] = {}
        patch_texts: dict[int | None, str] = {}
        try:
            body = patch_body = ""  # (the shared keys' JSON, when a message needs it)
            gone: list[str] = []
            seen: dict[int | None, orjson.Fragment] = {}  # (the events' texts, per seat)
            # (the clocks as the last message had them: a patch leaves them out)
            same_clocks = clocks is not None and before is not None and clocks == before.clocks
            for seat, own in sent.owns.items():
                if seat in wanted and before is not None and seat in before.owns:
                    if not patch_body:
                        changed, gone = changes(shared, before.shared, skip="sheet")
                        if cut:  # (new rows, after the ones every listener holds)
                            changed["sheet"] = cut
                        patch_body = orjson.dumps(changed).decode()
                    own_changed, own_gone = changes(own, before.owns[seat])
                    view = (
                        _joined(orjson.dumps(own_changed).decode(), patch_body)
                        if own_changed
                        else patch_body
                    )
                    message = self._view_message(
                        seat, orjson.Fragment(view), events, sheet_from, clocks, seen
                    )
                    message.update(type="patch", patch_of=before.version, removed=gone + own_gone)
                    if same_clocks:
                        message.pop("clocks", None)
                    patch_texts[seat] = orjson.dumps(message).decode()
                if seat in whole_seats or seat not in patch_texts:
                    if not body:
                        whole = {**shared, "sheet": cut} if "sheet" in shared else shared
                        body = orjson.dumps(whole).decode()
                    view = _joined(orjson.dumps(own).decode(), body)
                    message = self._view_message(
                        seat, orjson.Fragment(view), events, sheet_from, clocks, seen
                    )
                    texts[seat] = orjson.dumps(message).decode()
        except TypeError:  # (what only message_text encodes: whole messages, one by one)
            self.sent, patch_texts = None, {}
            texts = {
                seat: message_text(
                    self._view_message(seat, {**shared, **own}, events, sheet_from, clocks)
                )
                for seat, own in zip(same, owns, strict=True)
            }
        for seat in (*seats, *patches):
            if seat not in texts and seat not in patch_texts:
                texts[seat] = message_text(self.view_message(seat, events, sheet_from, clocks))
        return texts, rows, patch_texts

    def _view_message(
        self,
        seat: int | None,
        view: JSON | orjson.Fragment,
        events: list[Event] | None,
        sheet_from: int,
        clocks: JSON | None,
        seen: dict[int | None, orjson.Fragment] | None = None,
    ) -> JSON:
        """The ``view`` message of ``seat`` around ``view`` (a JSON text as a Fragment: the
        caller cut its sheet). ``seen``: the events as JSON texts, per seat that sees them
        its own way and None for the rest (:func:`_seen_events`), filled as needed."""
        if isinstance(view, dict):
            sheet = view.get("sheet")
            if sheet_from and isinstance(sheet, list):
                view["sheet"] = sheet[sheet_from:]  # (the view is ours: only its key is replaced)
        out: JSON = {
            "type": "view",
            "version": self.seen_version(seat),
            "view": view,
            "sheet_from": sheet_from,
            "events": [e.for_viewer(seat) for e in events or ()]
            if seen is None
            else _seen_events(seen, seat, events or ()),
        }
        if self.shows_clocks(seat):
            out["clocks"] = clocks if clocks is not None else self.clock_snapshot()
        return out

    def clock_snapshot(self) -> JSON:
        """The seat clocks as every message shows them now (a table with clocks only)."""
        assert self.clocks is not None
        return self.clocks.snapshot(self.clock_now())

    def fresh_game(self) -> Game:
        """The table's game before any action, as ``game`` was built (the same players, deal
        key and deal cap): the delayed spectators' game and a computer's memory start here."""
        return build_game(
            self.game_name,
            self.profile,
            seed=self.seed,
            players=list(self.players),
            max_deals=self.max_deals if self.max_deals is not None else self.deal_cap,
            start=self.start,
            deal_key=self.deal_key,
        )

    def spectator_view_game(self) -> Game:
        """The delayed spectators' game, brought to ``version - spectator_delay`` actions."""
        self.advance_spectators()
        assert self.spectator_game is not None
        return self.spectator_game

    def advance_spectators(self) -> list[Event]:
        """Bring the delayed spectators' game to ``spectator_delay`` actions behind the
        table (all of it once the game is over), replaying the stored actions through the
        engine; return the events of the actions it took in."""
        if self.spectator_game is None:
            self.spectator_game = self.fresh_game()
            self.spectator_version = 0
        target = self.version if self.game.over else max(0, self.version - self.spectator_delay)
        events: list[Event] = []
        game = self.spectator_game
        while self.spectator_version < target:
            action = game.parse_action(self.actions[self.spectator_version])
            events += game.apply(action)
            self.spectator_version += 1
        return events

    def info(self, seat: int | None) -> JSON:
        """The table's description for ``GET /api/tables/{id}`` (no seed while playing)."""
        out: JSON = {
            "table": self.id,
            "game": self.game_name,
            "profile": self.profile,
            "seat": seat,
            "status": self.status,
            "players": list(self.players),
            "levels": list(self.levels),
            "language": self.language,
            "version": self.version,
            # (from the status, set once the last action is stored: between the engine's
            # apply and the write's commit the game in memory is one action ahead)
            "winner": self.game.winner if self.status == "finished" else None,
            "ranked": self.ranked,
            "seed_chosen": self.seed_chosen,
            "max_deals": self.max_deals,  # (the table's own limit; None: the server's cap)
            **room_info(self.seats, self.connected(), seat, self),
        }
        if self.status == "finished":
            out["seed"] = self.seed
        return out


class _RoomFields(Protocol):
    invite: str | None
    rated: bool
    spectators: bool
    spectator_delay: int
    listed: bool
    quick: bool
    clock: JSON | None


def room_info(
    seats: list[Seat], counts: dict[int | None, int], seat: int | None, table: _RoomFields
) -> JSON:
    """The room's part of a table's description: the seats (never a token), the options, and
    the invitation code for a person seated there."""
    return {
        "seats": [s.public(n, counts.get(n, 0)) for n, s in enumerate(seats)],
        "invite": table.invite if seat is not None else None,
        "rated": bool(table.rated),
        "spectators": bool(table.spectators),
        "spectator_delay": int(table.spectator_delay or 0),
        "listed": bool(table.listed),
        "quick": bool(table.quick),
        "clock": table.clock,
    }


def seats_of(row: TableRow, rows: Sequence[SeatRow | Row[Any]]) -> list[Seat]:
    """A stored table's seats: its seat rows, or for a table made before them, the person
    at seat 0 (the table's token) and computers elsewhere."""
    if rows:
        by_seat = {r.seat: r for r in rows}
        return [
            Seat(
                kind=by_seat[n].kind,
                name=by_seat[n].name or "",
                user_id=by_seat[n].user_id,
                token=by_seat[n].token,
                level=by_seat[n].level,
            )
            for n in range(len(row.players))
        ]
    return [
        Seat("person", name, token=row.token)
        if level is None and n == 0
        else Seat("computer", name, level=level)
        for n, (name, level) in enumerate(zip(row.players, row.levels, strict=True))
    ]


class _Recorder:
    """A game that keeps the events of its last ``apply`` (for the history rebuilt from a
    table's stored actions); everything else is the game's."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.events: list[Event] = []

    def apply(self, action: Any) -> list[Event]:
        self.events = self.game.apply(action)
        return self.events

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)


def rebuild_memory(
    table: Table,
    game: Game,
    actions: list[JSON],
    hand_start: int,
    only: Iterable[int] | None = None,
) -> None:
    """Give the computer seats back what they saw of the current hand before a restart.

    The hand is replayed through the engine from the stored actions; at every action that a
    computer seat made, that seat is shown the view it decided on then (``game.view(seat)``,
    nothing more), so that its memory (the Mariage players' record of the tricks seen) is
    what it would be had the server never stopped. A bot with ``remember(view)`` takes the
    view in without deciding; any other bot decides again with the same random numbers as
    the first time (``act``) and the decision is dropped. ``game``: the table's game before
    its first action (:func:`game_of`); ``actions``: the stored ones; ``only``: just these
    seats' bots (a computer that has just taken a person's seat over)."""
    rng = random.Random()
    chosen = None if only is None else set(only)
    for n, _ in enumerate(replay_actions(game, actions)):
        if n < hand_start:
            continue
        seat = game.turn
        if chosen is not None and seat not in chosen:
            continue
        bot = table.bots.get(seat) if seat is not None else None
        if bot is not None and getattr(bot, "name", None) not in _INLINE_BOTS:
            view = game.view(seat)
            remember = getattr(bot, "remember", None)
            if callable(remember):
                remember(view)
            else:
                rng.seed(table.bot_seed(seat, n))
                bot.act(view, rng)


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table made by :meth:`TableManager.new_table`, not stored yet."""

    row: TableRow
    seats: list[Seat]
    game: Game
    deal_key: bytes | None


@dataclass(frozen=True, slots=True)
class StoredSeating:
    """What a sit-down's checks read of a table (:meth:`TableManager._seat_wanted`), from
    its row: a table not in memory is refused from it without rebuilding its game."""

    invite: str | None
    players: list[str]
    status: str
    rated: bool


@dataclass(frozen=True, slots=True)
class SeatWanted:
    """A sit-down that passed the checks made in memory (:meth:`TableManager.sit`)."""

    name: str
    user_id: int | None
    #: the seat's new secret
    token: str
    #: the seat asked for (None: the first one that may be taken)
    seat: int | None
    #: with the table's invitation code
    invited: bool


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What a transaction on a table's seats did (in a database thread), for the table in
    memory to follow on the event loop (:meth:`TableManager._seated`)."""

    #: the seats as stored at its end
    seats: list[Seat]
    #: the seat taken by a person
    seat: int | None = None
    #: the last free seat was taken: the game started
    started: bool = False
    #: why nothing was taken (the seats are still those stored)
    refusal: TableError | None = None
    #: the seats computers took (a quick table's wait over)
    filled: tuple[int, ...] = ()


def _stored_capped(status: str, final_scores: Any) -> bool:
    """Whether a stored table is a game the cap on deals stopped (:attr:`Table.capped`): status
    ``abandoned`` with its final scores, which only the game's end writes (a table closed for
    want of play has none)."""
    return status == "abandoned" and final_scores is not None


def _stored_ranked(row: TableRow) -> bool:
    """:attr:`Table.ranked` of a stored table."""
    return (
        row.start is None
        and not row.seed_chosen
        and row.max_deals is None
        and not _stored_capped(row.status, row.final_scores)
    )


class TableManager:
    """Owns the tables of one server process: creation, loading, actions and bots."""

    def __init__(
        self,
        engine: Engine,
        *,
        delay_ms: int = 700,
        bot_timeout_s: float = 15.0,
        max_queue: int = 512,
        limits: Limits | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        #: the clock of the waits (quick games filled with computers): a fake one in tests
        self.now = now
        #: ``hook(session, table, record)`` for each finished game, in the transaction that
        #: stores its end (ratings)
        self.finish_hooks: list[FinishHook] = []
        #: the lobby's WebSockets, and whether a push of the lobby is due
        self.lobby_listeners: set[Listener] = set()
        self._lobby_due = False
        #: quick tables: table id -> when computers take its free seats (``self.now`` time)
        self.fill_at: dict[int, float] = {}
        #: the clock setting of the tables created without one (None: the defaults)
        self.default_clock: JSON | None = None
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self.delay_s = max(0, delay_ms) / 1000
        self.bot_timeout_s = bot_timeout_s
        self.max_queue = max_queue
        self.tables: dict[int, Table] = {}
        self.limits = limits or Limits()
        #: the worker threads the computer players think in (and tables are rebuilt in)
        self.bot_pool = ThreadPoolExecutor(self.limits.bot_workers, thread_name_prefix="tapete-bot")
        #: the threads of the requests' database work: the event loop never waits for it
        #: (their writes go to the write thread: one writer in the process)
        self.db = DatabaseThreads(self.limits.db_workers, writer=lambda: self.writer.pool)
        #: the lobby's push under way (a task: its rows are read in a database thread)
        self._lobby_push: asyncio.Task[None] | None = None
        #: the writes of :meth:`mark_opened` under way: their tables; the tasks that run
        #: beside the requests (:meth:`_beside`)
        self._opening: set[int] = set()
        self._side_tasks: set[asyncio.Task[Any]] = set()
        #: quick games of one game and profile are found or made one at a time (two people
        #: asking at once sit at one table)
        self._quick_locks: dict[tuple[str, str], asyncio.Lock] = {}
        #: one read of the lobby at a time, each sent before the next is read (a page never
        #: overtakes a newer one); the lobby sockets still waiting for their first page
        self._lobby_lock = asyncio.Lock()
        self._lobby_first: set[Listener] = set()
        #: the actions' write thread (group commit; the process's one writer: the other
        #: transactions that write borrow its ``pool``); the end of a game is written by
        #: :meth:`_finish`, in the transaction of its last action
        self.writer: ActionWriter[Table] = ActionWriter(engine, self._finish)
        #: table id -> its latest write (done or under way): a read of that table from the
        #: database waits for it (:meth:`written`)
        self.writing: dict[int, asyncio.Future[None]] = {}
        #: table id -> how many load() calls are reading it from the database now
        self._loading: dict[int, int] = {}
        #: the tables whose person has opened them (no need to write it again)
        self.opened: set[int] = set()
        #: actions applied at any table since start (the background analysis of finished
        #: games waits while this moves: tapete.server.review)
        self.actions_applied = 0
        self.background: list[asyncio.Task[None]] = []
        self.failed_writes = RefusalLog()
        self._secret: bytes | None = None

    @property
    def secret(self) -> bytes:
        """The database's secret key for the computer players' random numbers (made by the
        migration that added it; read once)."""
        if self._secret is None:
            with self.sessions() as session:
                value = session.scalar(select(SecretRow.value).where(SecretRow.name == "bot_rng"))
            if value is None:
                raise RuntimeError("the database has no bot_rng secret: run its migrations")
            self._secret = bytes.fromhex(value)
        return self._secret

    def deal_cap(self, game: str) -> int:
        """The deals after which a game nobody plays to the end stops (a table without its own
        ``max_deals``): ``Limits.max_game_deals``, else the game's ``GameKind.max_deals``."""
        cap = self.limits.max_game_deals
        return cap if cap is not None else kind(game).max_deals

    # ------------------------------------------------------------------ creation, loading

    def create(self, **options: Any) -> Table:
        """A new table (:meth:`new_table`'s ``options``), stored and kept in memory, all of
        it in the calling thread (tests, tools); the server's requests use
        :meth:`open_table`, which stores it in a database thread."""
        new = self.new_table(**options)
        return self._keep_new(new, self._store_new(new))

    async def open_table(self, new: NewTable) -> Table:
        """Store a :meth:`new_table` in a database thread and keep it in memory (both, even
        when the request is cancelled meanwhile: :meth:`_to_the_end`)."""

        async def store() -> Table:
            return self._keep_new(new, await self.db.write(self._store_new, new))

        return await self._to_the_end(store())

    async def _to_the_end(self, work: Coroutine[Any, Any, _T]) -> _T:
        """Await ``work`` in a task of its own, which a cancelled caller does not stop: a
        transaction that may commit is always followed by the table in memory (a new table
        kept, a seat taken, a game started), else memory would lag the database."""
        return await asyncio.shield(self._beside(work))

    def _beside(self, work: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        """``work`` in a task of its own, kept until it ends (and cancelled at
        :meth:`close`), its outcome taken even when nobody awaits it."""
        task = asyncio.get_running_loop().create_task(work)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        task.add_done_callback(_retrieved)
        return task

    def new_table(
        self,
        *,
        game: str,
        profile: str,
        name: str,
        language: str,
        levels: list[str] | None = None,
        seed: int | None = None,
        max_deals: int | None = None,
        start: JSON | None = None,
        seats: list[tuple[str, str | None]] | None = None,
        user_id: int | None = None,
        rated: bool = False,
        spectators: bool = True,
        spectator_delay: int = 0,
        listed: bool = False,
        quick: bool = False,
        fill_after_s: float | None = None,
        clock: JSON | None = None,
    ) -> NewTable:
        """A new table, not stored yet. With ``levels``: the person at seat 0 and computer
        players of those levels at the other seats (the game starts at once). With
        ``seats``: per seat ``("me", None)`` (the person creating it: exactly one),
        ``("open", None)``, ``("invited", None)`` or ``("computer", level)``; the table
        waits until every seat is taken. Raises :class:`TableError` (``bad_table``) for a
        refused combination.

        ``start`` (a record's start position) is for tests and administrators only: the
        HTTP API does not accept it. Such a table is not ranked and adds no statistics."""
        count = kind(game).seats
        if seats is None:
            if levels is None or len(levels) != count - 1:
                got = "none" if levels is None else len(levels)
                raise ValueError(f"{game} needs {count - 1} computer level(s), got {got}")
            seats = [("me", None), *(("computer", lv) for lv in levels)]
        if len(seats) != count:
            raise TableError("bad_table", f"{game} has {count} seats, got {len(seats)}")
        mine = [n for n, (k, _) in enumerate(seats) if k == "me"]
        if len(mine) != 1:
            raise TableError("bad_table", "exactly one seat must be yours ('me')")
        if rated and user_id is None:
            raise TableError("rated_guest", "a rated table is for signed-in players: sign in")
        if rated and any(k == "computer" for k, _ in seats):
            raise TableError("bad_table", "a rated table has people at every seat, no computer")
        if rated and (seed is not None or start is not None):
            raise TableError("bad_table", "a rated table cannot begin on a chosen deal")
        computers = iter(bot_names([name], sum(k == "computer" for k, _ in seats)))
        table_seats: list[Seat] = []
        for k, level in seats:
            if k == "me":
                table_seats.append(Seat("person", name, user_id, secrets.token_urlsafe(24)))
            elif k == "computer":
                table_seats.append(Seat("computer", next(computers), level=level))
            else:
                table_seats.append(Seat(k))
        players = [st.name for st in table_seats]
        seed_chosen = seed is not None
        if seed is None:
            seed = secrets.randbits(62)
        deals = max_deals if max_deals is not None else self.deal_cap(game)
        # a deal nobody chose is a fair one: secret seeds, committed and revealed (fairness)
        deal_key = None if seed_chosen else fairness.new_key()
        g = build_game(
            game,
            profile,
            seed=seed,
            players=players,
            max_deals=deals,
            start=start,
            deal_key=deal_key,
        )
        token = table_seats[mine[0]].token or ""
        waiting = any(st.free for st in table_seats)
        invite = secrets.token_urlsafe(16) if waiting else None
        seat_levels: list[str | None] = [st.level for st in table_seats]
        row = TableRow(
            game=game,
            profile=profile,
            seed=seed,
            players=players,
            levels=seat_levels,
            token=token,
            language=language,
            status="waiting" if waiting else "playing",
            created_at=utcnow(),
            owner=name,
            max_deals=max_deals,
            start=start,
            seed_chosen=seed_chosen,
            invite=invite,
            rated=rated,
            spectators=spectators,
            spectator_delay=spectator_delay,
            listed=listed,
            quick=quick,
            fill_after_s=fill_after_s,
            clock=clock if clock is not None else self.default_clock,
        )
        return NewTable(row, table_seats, g, deal_key)

    def _store_new(self, new: NewTable) -> int:
        """(A database thread, or :meth:`create`'s) the new table's rows; its id."""
        _ = self.secret  # (read once, here: the table in memory is made with it)
        with self.sessions.begin() as session:
            session.add(new.row)
            session.flush()
            table_id = new.row.id
            session.add_all(_seat_rows(table_id, new.seats))
            if new.deal_key is not None:
                fairness.store_key(session, table_id, new.deal_key)
        return table_id

    def _keep_new(self, new: NewTable, table_id: int) -> Table:
        """(The event loop) the new table stored as ``table_id``, kept in memory."""
        row = new.row
        table = self._make_table(table_id, row, new.game, 0, new.seats, self.deal_cap(row.game))
        table.deal_key = new.deal_key
        current = self.tables.get(table_id)
        if current is not None and not current.broken:
            table = current  # (read from the database meanwhile, perhaps seated since)
        else:
            self.tables[table_id] = table
        if row.status == "waiting" and row.fill_after_s is not None:
            self.fill_at[table_id] = self.now() + row.fill_after_s
        if row.listed:
            self.lobby_changed()
        return table

    # ------------------------------------------------------------------ the room

    def join(
        self,
        table_id: int,
        *,
        name: str,
        user_id: int | None = None,
        invite: str | None = None,
        seat: int | None = None,
    ) -> tuple[Table, int]:
        """Sit ``name`` down at a free seat of the table (``seat``, else the first one that
        may be taken): an ``invited`` seat needs the invitation code, an ``open`` one the
        code too unless the table is listed in the lobby. Returns the table and the seat; its
        token is ``table.seats[seat].token``. Raises :class:`TableError`. The last free seat
        taken starts the game. All of it in the calling thread (tests, tools); the server's
        requests use :meth:`sit`."""
        table = self.get(table_id)
        ask = self._seat_wanted(table, name, user_id, invite, seat)
        assert table is not None  # (else refused above)
        try:
            change = self._take_seat(table, ask)
        except Exception:
            self._maybe_evict(table)  # (a table another server changed: rebuilt when asked)
            raise
        return table, self._seated(table, change)

    async def sit(
        self,
        table_id: int,
        *,
        name: str,
        user_id: int | None = None,
        invite: str | None = None,
        seat: int | None = None,
    ) -> tuple[Table, int]:
        """:meth:`join`, the table read and the seat taken in database threads; the seats of
        a table change one sit-down at a time (under the table's lock)."""
        held = self.tables.get(table_id)
        if held is None or held.broken:
            # a table not in memory that seats nobody (under way, finished, expired) is
            # refused from its row: its game was rebuilt from its log for the refusal, tens
            # of milliseconds of a worker thread for a long game, each time it was asked
            stored = await self.db.run(self._stored_seating, table_id)
            if stored is None or stored.status != "waiting":
                self._seat_wanted(stored, name, user_id, invite, seat)  # (raises)
        table = await self.load(table_id)
        try:
            self._seat_wanted(table, name, user_id, invite, seat)  # (refused before any wait)
        except TableError:
            if table is not None:
                self.release(table)  # (read for this sit-down only: not kept in memory)
            raise
        assert table is not None

        async def take(table: Table) -> tuple[Table, int]:
            try:
                async with self._locked_in_memory(table) as table:
                    ask = self._seat_wanted(table, name, user_id, invite, seat)
                    change = await self.db.write(self._take_seat, table, ask)
                    return table, self._seated(table, change)
            except Exception:
                self._maybe_evict(table)  # (a table another server changed: rebuilt then)
                raise

        return await self._to_the_end(take(table))

    @contextlib.asynccontextmanager
    async def _locked_in_memory(self, table: Table) -> AsyncIterator[Table]:
        """Hold the lock of ``table`` as memory keeps it: one that left memory while this
        waited for its lock is put back, one loaded again meanwhile is taken instead (so that
        a change of its seats, and the game it may start, reach the table that is played)."""
        while True:
            await table.lock.acquire()
            current = self.tables.get(table.id)
            if current is None or current.broken:
                current = self.tables[table.id] = table
            if current is table:
                break
            table.lock.release()
            table = current
        try:
            yield table
        finally:
            table.lock.release()

    def _stored_seating(self, table_id: int) -> StoredSeating | None:
        """(A database thread) the row's part of a sit-down's checks; None: no such table."""
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            return StoredSeating(row.invite, list(row.players), row.status, bool(row.rated))

    def _seat_wanted(
        self,
        table: Table | StoredSeating | None,
        name: str,
        user_id: int | None,
        invite: str | None,
        seat: int | None,
    ) -> SeatWanted:
        """A sit-down's checks that need only the table in memory (or its row), and its new
        token; raise :class:`TableError`."""
        if table is None:
            raise TableError("unknown_table", "there is no such table")
        invited = bool(
            invite and table.invite and hmac.compare_digest(invite.encode(), table.invite.encode())
        )
        if invite and not invited:
            raise TableError("bad_invite", "this invitation code is not this table's")
        if seat is not None and not 0 <= seat < len(table.players):
            # (was "seat 99 is not free", a 409 as if someone had taken it)
            raise TableError(
                "bad_seat", f"this table's seats are 0 to {len(table.players) - 1}, not {seat}"
            )
        if table.status != "waiting":
            raise TableError("table_full", "every seat of this table is taken")
        if table.rated and user_id is None:
            raise TableError(
                "rated_guest", "this table is rated: sign in to sit down (guests play unrated)"
            )
        return SeatWanted(name, user_id, secrets.token_urlsafe(24), seat, invited)

    def _take_seat(self, table: Table, ask: SeatWanted) -> SeatChange:
        """(A database thread, or :meth:`join`'s) a sit-down's one guarded transaction, so
        that servers sharing the database never give a seat twice: the table's row is locked
        (PostgreSQL: SELECT ... FOR UPDATE; SQLite has one writer at a time), the seats are
        read from the database (another server may have seated someone since this one last
        looked), and the seat is taken only if it is still free (a conditional UPDATE; the
        loser: 409). The last free seat taken starts the game in the same transaction.
        Nothing in memory changes here: :meth:`_seated` does that, on the event loop."""
        with self.sessions.begin() as session:
            waiting, seats = self._lock_seats(table, session)
            taken = self._seat_or_refusal(table, seats, waiting, ask)
            if isinstance(taken, TableError):
                return SeatChange(seats, refusal=taken)
            values = {"name": ask.name, "user_id": ask.user_id, "token": ask.token}
            if self._claim_seat(
                session, table.id, taken, kind="person", joined_at=utcnow(), **values
            ):
                # the names as stored now (with any taken elsewhere meanwhile), ours among them
                seats = self._stored_seats(table, session)
                players = [st.name for st in seats]
                session.execute(_SET_PLAYERS, {"b_table_id": table.id, "b_players": players})
                started = self._start_if_full(session, table.id, seats)
                return SeatChange(seats, seat=taken, started=started)
        # taken between the read and the write (SQLite, where no row lock is held)
        with self.sessions() as session:
            seats = self._stored_seats(table, session)
        message = f"seat {taken} was taken by someone else just now: try again"
        return SeatChange(seats, refusal=TableError("seat_taken", message))

    def _seat_or_refusal(
        self, table: Table, seats: list[Seat], waiting: bool, ask: SeatWanted
    ) -> int | TableError:
        """The seat ``ask`` takes among ``seats`` (as stored), or why it takes none."""
        if not waiting:
            return TableError("table_full", "every seat of this table is taken")
        if ask.user_id is not None and any(st.user_id == ask.user_id for st in seats):
            return TableError("already_seated", "you already sit at this table")
        for st in seats:
            if not st.free and look_alike(st.name, ask.name):
                return TableError(
                    "name_taken",
                    f"someone at this table is already called {st.name!r}: {ask.name!r} is "
                    "that name or looks like it",
                )
        try:
            return self._free_seat(table, seats, ask.seat, ask.invited)
        except TableError as exc:
            return exc

    def _free_seat(self, table: Table, seats: list[Seat], wanted: int | None, invited: bool) -> int:
        """The seat to take: ``wanted`` if it is free and may be taken (with the invitation
        code, or an open seat of a listed table), else the first such one; raise
        :class:`TableError` (``seat_taken`` when someone took the last one just now)."""

        def may(n: int) -> bool:
            st = seats[n]
            return (st.kind == "invited" and invited) or (
                st.kind == "open" and (invited or table.listed)
            )

        if wanted is not None:
            if not 0 <= wanted < len(seats) or not seats[wanted].free:
                raise TableError("seat_taken", f"seat {wanted} is not free")
            if not may(wanted):
                raise TableError("bad_invite", f"seat {wanted} needs the table's invitation code")
            return wanted
        free = [n for n in range(len(seats)) if may(n)]
        if free:
            return free[0]
        if not any(st.free for st in seats):
            raise TableError("seat_taken", "the last free seat was taken by someone else just now")
        raise TableError("bad_invite", "no seat you may take: ask for the invitation")

    def _lock_seats(self, table: Table, session: Session) -> tuple[bool, list[Seat]]:
        """Lock the table's row for a change of its seats (PostgreSQL: SELECT ... FOR UPDATE;
        SQLite has one writer at a time): whether the table still waits for people, and its
        seats as stored."""
        status = session.scalar(_LOCK_STATUS, {"b_table_id": table.id})
        return status == "waiting", self._stored_seats(table, session)

    @staticmethod
    def _claim_seat(session: Session, table_id: int, seat: int, **values: Any) -> bool:
        """Give ``seat`` the ``values`` only if it is still free as stored (a conditional
        UPDATE: another server may have taken it); whether it did."""
        done: CursorResult[Any] = session.execute(  # type: ignore[assignment]
            _CLAIM_SEAT.values(**values), {"b_table_id": table_id, "b_seat": seat}
        )
        return done.rowcount == 1

    def _stored_seats(self, table: Table, session: Session) -> list[Seat]:
        """``table``'s seats as the database holds them (any thread: the table is only
        read): a seat another server sharing it gave someone has its person, name and
        token (and a seat whose write failed is free again)."""
        seats = list(table.seats)
        for row in session.execute(_SEATS_OF, {"b_table_id": table.id}):
            if not 0 <= row.seat < len(seats):
                continue
            st = seats[row.seat]
            if (row.kind, row.name or "", row.token) != (st.kind, st.name, st.token):
                seats[row.seat] = Seat(row.kind, row.name or "", row.user_id, row.token, row.level)
        return seats

    @staticmethod
    def _start_if_full(session: Session, table_id: int, seats: list[Seat]) -> bool:
        """In the seats' transaction: a waiting table whose seats are all taken starts (its
        row's status; the table in memory follows in :meth:`_seated`). Whether it did."""
        if any(st.free for st in seats):
            return False
        session.execute(_START, {"b_table_id": table_id})  # (the row is locked: waiting)
        return True

    def _seated(self, table: Table, change: SeatChange) -> int:
        """(The event loop) the table in memory after a change of its seats: the seats as
        stored, the game started if they are all taken; the seat taken, or the refusal."""
        for n, st in enumerate(change.seats):
            old = table.seats[n]
            if (st.kind, st.name, st.token) != (old.kind, old.name, old.token):
                table.seats[n] = st
                self._rename(table, n, st.name)
        if change.refusal is not None:
            self._maybe_evict(table)  # (a table another server changed: rebuilt when asked)
            raise change.refusal
        from tapete.bots import make_bot

        for n in change.filled:  # (computers: quick tables after their wait)
            level = table.levels[n] = table.seats[n].level or "rules"
            table.bots[n] = make_bot(table.game_name, level, profile=table.profile)
            table.rngs[n] = random.Random()
        if change.started:
            table.status = "playing"
            self.fill_at.pop(table.id, None)
            self._ensure_clocks(table)
            # (whole views: a waiting table kept none to patch against, ``Table.view_texts``)
            self._broadcast(table, [])
        self.announce(table)
        if change.started:
            with contextlib.suppress(RuntimeError):  # (no loop: a synchronous caller)
                self.ensure_bots(table)
        # kept in memory, as :meth:`create` keeps a new table: the next sit-down or the first
        # connection, a moment later, finds it there (each rebuilt it from the database:
        # about a twelfth of a new game's seating), and the seats are read again under the
        # lock of any later sit-down; a table nobody opens is closed by the sweep
        return -1 if change.seat is None else change.seat

    def _rename(self, table: Table, seat: int, name: str) -> None:
        table.players[seat] = name
        table.game.players[seat] = name
        if table.spectator_game is not None:
            table.spectator_game.players[seat] = name

    def announce(self, table: Table) -> None:
        """Tell everyone at the table who sits where and who is connected (at a table of
        several people, or one that was: one person against computers from the start gets
        no such message, as before the room); and the lobby."""
        if table.shared or table.announced:
            table.announced = True
            presence = table.presence()
            text = message_text(presence)
            if table.sent is not None:  # (the clocks every connection now holds)
                table.sent.clocks = presence.get("clocks")
            # (a delayed spectator's has no clocks: Table.shows_clocks)
            watched = message_text(table.presence(None)) if table.delayed else text
            for listener in list(table.listeners):
                listener.push(watched if listener.seat is None else text)
        if table.listed:
            self.lobby_changed()

    async def fill_due(self, level: str = "rules") -> int:
        """Computers of ``level`` take the free seats of the quick tables whose wait is over
        (``fill_at``, on ``self.now``); those games start. Returns how many tables. Each
        table's seats are taken as a sit-down takes one (:meth:`sit`): in a database thread,
        under the table's lock."""
        now = self.now()
        due = [tid for tid, when in self.fill_at.items() if when <= now]
        filled = 0
        for table_id in due:
            self.fill_at.pop(table_id, None)
            try:
                filled += await self._fill_one(table_id, level)
            except Exception as exc:
                # (a locked or unreachable database) the table is not forgotten: its
                # computers try again at a later pass (which does nothing if people took
                # the seats meanwhile or the table was closed)
                self.fill_at.setdefault(table_id, now + FILL_RETRY_S)
                self.failed_writes.note("fill", f"table {table_id}", str(exc))
        return filled

    async def _fill_one(self, table_id: int, level: str) -> int:
        """:meth:`fill_due` at one table: 1 if computers took its free seats, else 0."""
        loaded = await self.load(table_id)
        if loaded is None:
            return 0
        async with self._locked_in_memory(loaded) as table:
            if table.status != "waiting":
                return 0
            change = await self.db.write(self._fill_seats, table, level)
            if change.refusal is not None:
                return 0
            self._seated(table, change)
            return 1

    def _fill_seats(self, table: Table, level: str) -> SeatChange:
        """(A database thread) :meth:`fill_due`'s transaction at one table, guarded as a
        sit-down's is (:meth:`_take_seat`): a person another server seated meanwhile keeps
        the seat."""
        with self.sessions.begin() as session:
            waiting, seats = self._lock_seats(table, session)
            if not waiting:
                return SeatChange(seats, refusal=TableError("table_full", "no seat is free"))
            free = [n for n, st in enumerate(seats) if st.free]
            names = bot_names([st.name for st in seats if not st.free], len(free))
            filled = []
            for n, name in zip(free, names, strict=False):
                if self._claim_seat(session, table.id, n, kind="computer", name=name, level=level):
                    seats[n] = Seat("computer", name, level=level)
                    filled.append(n)
            levels = [level if n in filled else lv for n, lv in enumerate(table.levels)]
            session.execute(
                update(TableRow)
                .where(TableRow.id == table.id)
                .values(players=[st.name for st in seats], levels=levels)
            )
            started = self._start_if_full(session, table.id, seats)
        return SeatChange(seats, started=started, filled=tuple(filled))

    async def quick(
        self,
        *,
        game: str,
        profile: str,
        name: str,
        language: str,
        user_id: int | None = None,
        fill_after_s: float | None = 30.0,
    ) -> tuple[Table, int]:
        """``POST /api/quick``: a seat at an open quick table of that game and profile (the
        oldest that has one this name may take), or a new one with the other seats open,
        listed in the lobby, filled by computers after ``fill_after_s``. One request of a
        game and profile at a time: two people asking at once sit at one table."""
        async with self._quick_locks.setdefault((game, profile), asyncio.Lock()):
            return await self._quick(game, profile, name, language, user_id, fill_after_s)

    async def _quick(
        self,
        game: str,
        profile: str,
        name: str,
        language: str,
        user_id: int | None,
        fill_after_s: float | None,
    ) -> tuple[Table, int]:
        for table_id in await self.db.run(self._quick_ids, game, profile):
            for numbered in _numbered_names(name, kind(game).seats if user_id is None else 0):
                # (a guest whose name someone there has already sits as "Jugador 2": two
                # newcomers who both left the name empty, each "Jugador", never met, the
                # second opening a table of its own; an account keeps its own name)
                try:
                    return await self.sit(table_id, name=numbered, user_id=user_id)
                except TableError as exc:
                    if exc.code != "name_taken":
                        break
        seats: list[tuple[str, str | None]] = [("me", None)]
        seats += [("open", None)] * (kind(game).seats - 1)
        new = self.new_table(
            game=game,
            profile=profile,
            name=name,
            language=language,
            seats=seats,
            user_id=user_id,
            listed=True,
            quick=True,
            fill_after_s=fill_after_s,
        )
        return await self.open_table(new), 0

    def _quick_ids(self, game: str, profile: str) -> list[int]:
        """(A database thread) the oldest open quick tables of that game and profile."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(TableRow.id)
                    .where(
                        TableRow.status == "waiting",
                        TableRow.quick.is_(True),
                        TableRow.listed.is_(True),
                        TableRow.rated.is_(False),
                        TableRow.game == game,
                        TableRow.profile == profile,
                    )
                    .order_by(TableRow.id)
                    .limit(20)
                )
            )

    async def lobby_page(self, limit: int = 100) -> list[JSON]:
        """The open tables listed in the lobby (waiting for people), oldest first: no token,
        no invitation code of a private table (private tables are not listed at all). Their
        rows are read in a database thread."""
        return self._lobby_of(await self.db.run(self._lobby_rows, limit))

    def _lobby_rows(self, limit: int) -> list[tuple[TableRow, list[Seat]]]:
        """(A database thread) the lobby's tables and their seats as stored."""
        with self.sessions() as session:
            rows = list(
                session.scalars(
                    select(TableRow)
                    .where(TableRow.status == "waiting", TableRow.listed.is_(True))
                    .order_by(TableRow.id)
                    .limit(limit)
                )
            )
            seat_rows: dict[int, list[SeatRow]] = {}
            if rows:
                for sr in session.scalars(
                    select(SeatRow).where(SeatRow.table_id.in_([r.id for r in rows]))
                ):
                    seat_rows.setdefault(sr.table_id, []).append(sr)
        return [(r, seats_of(r, seat_rows.get(r.id, []))) for r in rows]

    def _lobby_of(self, rows: list[tuple[TableRow, list[Seat]]]) -> list[JSON]:
        """(The event loop) the lobby's JSON: the stored tables, with who is connected."""
        out = []
        for r, seats in rows:
            live = self.tables.get(r.id)
            counts = live.connected() if live is not None else {}
            out.append(
                {
                    "table": r.id,
                    "game": r.game,
                    "profile": r.profile,
                    "target": kind(r.game).target(r.profile),
                    "taken": sum(not s.free for s in seats),
                    "free": sum(s.free for s in seats),
                    "created_at": r.created_at.isoformat(),
                    **{k: v for k, v in room_info(seats, counts, None, r).items() if k != "invite"},
                }
            )
        return out

    def lobby_changed(self) -> None:
        """Push the lobby to its sockets soon (many changes at once make one push)."""
        if self._lobby_due or not self.lobby_listeners:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._lobby_due = True
        loop.call_later(0.2, self._push_lobby)

    def _push_lobby(self) -> None:
        loop = asyncio.get_running_loop()
        if self._lobby_push is not None:  # (its rows may be older than this change: again)
            loop.call_later(0.2, self._push_lobby)
            return
        self._lobby_due = False
        if self.lobby_listeners:
            self._lobby_push = loop.create_task(self._push_lobby_now(), name="tapete-lobby")

    async def _push_lobby_now(self) -> None:
        try:
            async with self._lobby_lock:
                text = message_text({"type": "lobby", "tables": await self.lobby_page()})
                for listener in list(self.lobby_listeners):
                    if listener not in self._lobby_first:  # (its first page is newer)
                        listener.push(text)
        except Exception:
            log.exception("the lobby could not be read")
        finally:
            self._lobby_push = None

    async def open_lobby(self, listener: Listener) -> None:
        """Add a lobby socket and send it the lobby now, then every push after that page,
        never one read before it (the pages are read and sent one at a time)."""
        self.lobby_listeners.add(listener)
        self._lobby_first.add(listener)
        try:
            async with self._lobby_lock:
                tables = await self.lobby_page()
                listener.push(message_text({"type": "lobby", "tables": tables}))
        finally:
            self._lobby_first.discard(listener)

    def resync(self, table: Table, listener: Listener, since: int | None) -> None:
        """Answer ``listener``'s ``sync``: the current view (after the events missed since
        version ``since``, :meth:`catch_up`). It then holds a view that may not be the last
        broadcast's, so its next broadcast is a whole view too, not a patch."""
        table.patched.discard(listener)
        if since is None:
            messages = [table.view_message(listener.seat)]
        else:
            messages = self.catch_up(table, listener.seat, since)
        for message in messages:
            listener.push(message_text(message))

    def catch_up(self, table: Table, seat: int | None, since: int) -> list[JSON]:
        """What a client that saw version ``since`` is sent on ``sync``: an ``events``
        message with the events of every version after it, each as ``seat`` may see it, and
        the current view; or only the view when the history no longer reaches back."""
        upto = table.seen_version(seat)
        view = table.view_message(seat)
        steps = table.history.since(since, upto)
        if steps is None:
            return [view]
        return [
            {
                "type": "events",
                "since": since,
                "version": upto,
                "steps": [
                    {"version": v, "events": [e.for_viewer(seat) for e in events]}
                    for v, events in steps
                ],
            },
            view,
        ]

    async def say(self, table: Table, seat: int | None, text: object) -> None:
        """A chat line from ``seat`` to the people seated at the table (spectators neither
        write nor read the chat: a delayed spectator would learn from it what has not yet
        been shown to them). The line is stored first (in the write thread, with the
        table's actions: the table keeps its last ``CHAT_LINES``), then sent; a line the
        database refused is sent to nobody (``not_saved``)."""
        if seat is None:
            raise TableError("not_seated", "only the people seated at the table may chat")
        try:
            line = check_chat(text)
        except ChatTooLong as exc:  # (its own code: the person is told the limit)
            raise TableError("chat_too_long", str(exc)) from None
        except ValueError as exc:
            raise TableError("bad_message", str(exc)) from None
        message = chat_message(seat, table.seats[seat].name, line, table.version)
        write = functools.partial(self._write_chat, table.id, message)
        try:
            await asyncio.wrap_future(self.writer.pool.submit(write))
        except Exception as exc:
            self.failed_writes.note("chat", f"table {table.id}", str(exc))
            raise TableError(
                "not_saved", "the server could not save this chat line: try again"
            ) from None
        table.chat.append(message)
        out = message_text(message)
        for listener in list(table.listeners):
            if listener.seat is not None:
                listener.push(out)

    def _write_chat(self, table_id: int, message: JSON) -> None:
        """Store a chat line and forget the table's lines older than its last ``CHAT_LINES``
        (one transaction, in the write thread)."""
        oldest_kept = (
            select(ChatRow.id)
            .where(ChatRow.table_id == table_id)
            .order_by(ChatRow.id.desc())
            .offset(CHAT_LINES - 1)
            .limit(1)
            .scalar_subquery()
        )
        with self.engine.begin() as connection:
            connection.execute(
                insert(ChatRow).values(
                    table_id=table_id,
                    seat=message["seat"],
                    name=message["name"],
                    text=message["text"],
                    version=message["version"],
                    created_at=utcnow(),
                )
            )
            connection.execute(
                delete(ChatRow).where(ChatRow.table_id == table_id, ChatRow.id < oldest_kept)
            )

    def _make_table(
        self,
        table_id: int,
        row: TableRow,
        game: Game,
        version: int,
        seats: list[Seat],
        deal_cap: int | None,
    ) -> Table:
        from tapete.bots import make_bot

        table = Table(
            id=table_id,
            game_name=row.game,
            profile=row.profile,
            seed=row.seed,
            players=list(row.players),
            levels=list(row.levels),
            token=row.token,
            language=row.language,
            max_deals=row.max_deals,
            game=game,
            deal_cap=deal_cap,
            version=version,
            status=row.status,
            start=row.start,
            seed_chosen=bool(row.seed_chosen),
            rng_key=self.secret,
            seats=seats,
            invite=row.invite,
            rated=bool(row.rated),
            spectators=row.spectators is not False,
            spectator_delay=int(row.spectator_delay or 0),
            listed=bool(row.listed),
            quick=bool(row.quick),
            fill_after_s=row.fill_after_s,
            history=History(self.limits.history_actions),
            clock=row.clock,
            abandoned=set(row.abandoned_seats or ()),
            clock_now=lambda: self.now(),
        )
        for seat, level in enumerate(table.levels):
            if level is None and seat in table.abandoned:
                level = table.takeover_level  # (its memory is rebuilt with the others')
            if level is not None:
                table.bots[seat] = make_bot(row.game, level, profile=row.profile)
                table.rngs[seat] = random.Random()
        return table

    def get(self, table_id: int, *, keep: bool = True) -> Table | None:
        """The table, rebuilt from the database on first access; None if unknown. With
        ``keep=False`` a table that was not in memory is not kept there (HTTP look-ups)."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table
        table = self._read_table(table_id)
        if table is not None and keep:
            self.tables[table_id] = table
        return table

    def _read_table(self, table_id: int) -> Table | None:
        """The table rebuilt from the database, None if unknown or if its stored actions do
        not replay (any thread: no table in memory is read or changed)."""
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            params = {"b_table_id": table_id}
            actions = list(session.scalars(_ACTIONS_OF, params))
            seat_rows = list(session.execute(_SEATS_OF, params))
            deal_key = fairness.load_key(session, table_id)
            chat = list(session.execute(_CHAT_OF, params))
        cap: int | None = self.deal_cap(row.game)
        try:
            try:
                game, hand_start, history = self._replay(row, actions, cap, deal_key)
            except RecordError:
                if row.max_deals is not None:
                    raise
                # played past the cap (lowered since the game began): no cap for this one
                cap = None
                game, hand_start, history = self._replay(row, actions, cap, deal_key)
        except RecordError as exc:
            log.error("table %s: the stored actions do not replay: %s", table_id, exc)
            return None
        except ValueError as exc:
            log.error("table %s: its start position is refused: %s", table_id, exc)
            return None
        table = self._make_table(table_id, row, game, len(actions), seats_of(row, seat_rows), cap)
        table.history = history
        table.actions = actions
        table.deal_key = deal_key
        table.chat.extend(chat_message(c.seat, c.name, c.text, c.version) for c in reversed(chat))
        if hand_start < len(actions) and not game.over:
            table.memory = (game_of(row, cap=cap, deal_key=deal_key), actions, hand_start)
        return table

    def _replay(
        self, row: TableRow, actions: list[JSON], cap: int | None, deal_key: bytes | None
    ) -> tuple[Game, int, History]:
        """The table's game after its stored actions, the index of the current hand's first
        action, and the events of the last actions (for reconnecting clients: the game's own,
        as the engine gives them again replaying the log); ``ValueError`` for a refused
        start, ``RecordError`` for actions that do not replay."""
        return self._replay_from(game_of(row, cap=cap, deal_key=deal_key), actions)

    def _replay_from(self, game: Game, actions: list[JSON]) -> tuple[Game, int, History]:
        """:meth:`_replay` from ``game``, the table's game before any action."""
        hand_start = 0
        deal = game.deal_number
        recorder = _Recorder(game)
        history = History(self.limits.history_actions)
        for n, _ in enumerate(replay_actions(recorder, actions)):
            if n:
                history.add(n, recorder.events)
            if game.deal_number != deal:  # action n - 1 began a new hand
                deal = game.deal_number
                hand_start = n
        if actions:
            history.add(len(actions), recorder.events)
        if game.deal_number != deal:
            hand_start = len(actions)
        return game, hand_start, history

    def release(self, table: Table) -> None:
        """``table`` was loaded for a request that was then refused (a sit-down at a table
        whose seats are all taken, a socket a table does not admit): forget it unless
        something else holds it. Kept, every table id a client tried stayed in memory, each
        rebuilt from its whole log, until the server stopped."""
        self._maybe_evict(table)

    def _maybe_evict(self, table: Table) -> None:
        """Forget a table nobody watches and no computer player is thinking at: the next
        access rebuilds it from the database, so memory holds only the active tables."""
        if (
            table.listeners
            or table.lock.locked()
            or (table.bot_task is not None and not table.bot_task.done())
            or (table.clocks is not None and table.clocks.next_deadline() is not None)
            or table.id in self._loading  # (a connection is about to listen: load())
        ):
            return
        self._forget(table)

    def _forget(self, table: Table) -> None:
        """Take ``table`` out of memory (if it is the one there) and stop its clocks: the
        next access rebuilds the table from the database, and this copy fires no takeover or
        abandonment of its own. A forgotten table that a waiting connection puts back in
        memory (``settled_in_memory``, ``attach``) gets new clocks when it is attached, as a
        table rebuilt after a restart does (its closed driver would never fire again)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        if table.driver is not None:
            table.driver.close()
        table.driver = table.clocks = None
        taken = [s for s in table.bots if table.levels[s] is None and s not in table.abandoned]
        for seat in taken:
            # a person's seat taken over (not abandoned): the person's again with the new
            # clocks, as after a restart (a later takeover starts a fresh computer)
            table.bots.pop(seat)
            table.rngs.pop(seat, None)
            table.remember.discard(seat)

    def playing_ids(self) -> list[int]:
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(TableRow.id).where(TableRow.status == "playing").order_by(TableRow.id)
                )
            )

    def resume_all(self) -> int:
        """Rebuild every unfinished table and let its computer players go on (start-up)."""
        count = 0
        for table_id in self.playing_ids():
            table = self.get(table_id)
            if table is not None:
                self.ensure_bots(table)
                self._maybe_evict(table)
                count += 1
        return count

    def live_tables(self, limit: int = 30, *, before: int | None = None) -> list[JSON]:
        """The tables being played, newest first, as anyone may see them (to watch one): no
        token, no seed, no card. Being played: unfinished, with an action (or, before the
        first, the table's creation) within ``Limits.live_idle_s``. A page of at most
        ``limit``; ``before``: only tables with a smaller id (the last id of the previous
        page)."""
        recent = utcnow() - timedelta(seconds=self.limits.live_idle_s)
        query = select(TableRow).where(
            TableRow.status == "playing",
            TableRow.spectators.is_not(False),
            func.coalesce(_last_action_at(), TableRow.created_at) >= recent,
        )
        if before is not None:
            query = query.where(TableRow.id < before)
        with self.sessions() as session:
            rows = session.scalars(query.order_by(TableRow.id.desc()).limit(limit))
            return [
                {
                    "table": r.id,
                    "game": r.game,
                    "profile": r.profile,
                    "players": r.players,
                    "created_at": r.created_at.isoformat(),
                }
                for r in rows
            ]

    def list_tables(self, name: str, *, limit: int = 50, before: int | None = None) -> list[JSON]:
        """``name``'s tables, newest first: a page of at most ``limit``; ``before``: only
        tables with a smaller id (the last id of the previous page)."""
        query = select(TableRow).where(TableRow.owner == name)
        if before is not None:
            query = query.where(TableRow.id < before)
        with self.sessions() as session:
            rows = session.scalars(query.order_by(TableRow.id.desc()).limit(limit))
            return [
                {
                    "table": r.id,
                    "game": r.game,
                    "profile": r.profile,
                    "status": r.status,
                    "players": r.players,
                    "created_at": r.created_at.isoformat(),
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "winner": r.winner,
                    "scores": r.final_scores,
                    "ranked": _stored_ranked(r),
                }
                for r in rows
            ]

    async def info(self, table_id: int, token: str | None) -> JSON | None:
        """``GET /api/tables/{id}``: the table's :meth:`Table.info` for the seat of
        ``token``, None if there is no such table. A table not in memory is described from
        its row and its number of actions (read in a database thread), without rebuilding
        its game."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table.info(table.seat_for_token(token))
        return await self.db.run(self._stored_info, table_id, token)

    def _stored_info(self, table_id: int, token: str | None) -> JSON | None:
        """:meth:`info` of the table as stored (any thread: no table in memory is read)."""
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            version = session.scalar(
                select(func.count()).select_from(ActionRow).where(ActionRow.table_id == table_id)
            )
            seats = seats_of(
                row, list(session.scalars(select(SeatRow).where(SeatRow.table_id == table_id)))
            )
        seat = seat_for_token(seats, token)
        chosen = bool(row.seed_chosen)
        out: JSON = {
            "table": row.id,
            "game": row.game,
            "profile": row.profile,
            "seat": seat,
            "status": row.status,
            "players": list(row.players),
            "levels": list(row.levels),
            "language": row.language,
            "version": int(version or 0),
            "winner": row.winner,
            "ranked": _stored_ranked(row),
            "seed_chosen": chosen,
            "max_deals": row.max_deals,
            **room_info(seats, {}, seat, row),
        }
        if row.status == "finished":
            out["seed"] = row.seed
        return out

    async def seat_of(self, table_id: int, token: str | None) -> int | None:
        """The seat of ``token`` at a table (None: no such seat, or no table), a table not in
        memory read in a database thread."""
        if not token:
            return None
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table.seat_for_token(token)
        return await self.db.run(self._stored_seat, table_id, token)

    def _stored_seat(self, table_id: int, token: str) -> int | None:
        """:meth:`seat_of` at the table as stored (any thread)."""
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            rows = list(session.scalars(select(SeatRow).where(SeatRow.table_id == table_id)))
        return seat_for_token(seats_of(row, rows), token)

    def stored_over(self, table_id: int) -> bool | None:
        """Whether the table's game is over as stored (None if there is no such table): a
        finished game, or one the cap on deals stopped (status ``abandoned`` with its final
        scores, which only the game's end writes; a table closed for want of play has none).
        Its replay and record are then everyone's, as a finished game's (any thread)."""
        with self.sessions() as session:
            row = session.execute(
                select(TableRow.status, TableRow.final_scores).where(TableRow.id == table_id)
            ).first()
        if row is None:
            return None
        return row.status == "finished" or _stored_capped(row.status, row.final_scores)

    def find_invite(self, code: str) -> int | None:
        """The table of an invitation code (None: no such code)."""
        # (what ``secrets.token_urlsafe`` makes; anything else is no code, and PostgreSQL
        # refuses a NUL in a query's text: a 500)
        if not code or len(code) > 64 or code.strip(_URLSAFE):
            return None
        with self.sessions() as session:
            return session.scalar(select(TableRow.id).where(TableRow.invite == code))

    async def load(self, table_id: int) -> Table | None:
        """:meth:`get`, with the rebuild of a table not in memory done in a worker thread
        (a long log takes tens of milliseconds to replay: not on the event loop)."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table
        loop = asyncio.get_running_loop()
        # while this copy is read from the database, a copy another task puts in memory
        # meanwhile (a restart's resume, whose computer player may act) stays there
        # (_maybe_evict): else this copy, read before that action was written, would
        # replace it and act again at the same version
        self._loading[table_id] = self._loading.get(table_id, 0) + 1
        try:
            await self.written(table_id)
            loaded = await loop.run_in_executor(
                self.bot_pool, functools.partial(self.get, table_id, keep=False)
            )
        finally:
            left = self._loading[table_id] - 1
            if left:
                self._loading[table_id] = left
            else:
                del self._loading[table_id]
        if loaded is None:
            return None
        current = self.tables.get(table_id)
        if current is not None and not current.broken:
            return current  # loaded meanwhile by another connection
        self.tables[table_id] = loaded
        return loaded

    def stored_record(self, table_id: int) -> tuple[Table, JSON] | None:
        """The table and its :meth:`record`, read at once (for worker threads that read a
        finished game, whose last write has ended with its status: the replay viewer, the
        background analysis); None if there is no such table. Anything that may read a game
        still being played uses :meth:`record_of`, which waits for a write under way."""
        table = self.get(table_id, keep=False)
        if table is None:
            return None
        return table, self.record(table)

    async def record_of(self, table_id: int) -> tuple[Table, JSON] | None:
        """The table and its :meth:`record` as the database holds it, None if there is no
        such table. Never while an action of that table is being written: between the engine
        applying it and the write's end the game in memory is one action ahead of the
        database (an action the database may yet refuse), and the database one action behind
        it. The record is built in a worker thread: a table in memory holds its lock
        meanwhile (no action is applied there), one not in memory is rebuilt from the
        database once its last write has ended. Not in the computers' pool: a download or a
        deal review waited there behind every computer move queued at busy tables (and the
        table's own moves behind it, its lock held)."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            async with table.lock:
                if not table.broken:
                    record = await asyncio.to_thread(self.record, table)
                    done = table, record
                else:
                    done = None
            if done is not None:
                self._maybe_evict(table)  # (not forgotten while this held its lock)
                return done
        await self.written(table_id)
        loaded = await asyncio.to_thread(self.get, table_id, keep=False)
        if loaded is None:
            return None
        return loaded, await asyncio.to_thread(self.record, loaded)

    async def written(self, table_id: int) -> None:
        """Wait until no write of ``table_id`` is under way (one whose table was dropped from
        memory meanwhile, e.g. a write cancelled while the server stops, still ends in the
        write thread: the database holds its action only then)."""
        pending = self.writing.get(table_id)
        if pending is not None and not pending.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(pending)

    def mark_opened(self, table: Table) -> None:
        """The person connected to the table: it does not expire unopened. Written in a
        database thread while the connection goes on (a database that makes the write wait
        holds up none of the connection's messages); :attr:`opened` holds the table then."""
        if table.id in self.opened or table.id in self._opening:
            return
        self._opening.add(table.id)
        self._beside(self._store_opened(table.id))

    async def _store_opened(self, table_id: int) -> None:
        try:
            await self.db.write(self._write_opened, table_id, utcnow())
        except Exception as exc:  # a locked database: noted at the next connection
            self.failed_writes.note("opened", f"table {table_id}", str(exc))
            return
        else:
            self.opened.add(table_id)
        finally:
            self._opening.discard(table_id)

    def _write_opened(self, table_id: int, now: datetime) -> None:
        with self.sessions.begin() as session:
            session.execute(_OPENED, {"b_table_id": table_id, "b_now": now})

    async def _write_failed(self, table: Table, n: int, data: JSON, exc: Exception) -> bool:
        """After a failed write of action ``n``: put the table back as the database holds
        it (without that action), so that the connections stay and the person may try again.
        False if it cannot be rebuilt (the caller then drops it)."""
        # (the action's kind only: it was not applied, so a card it names is still in a hand)
        kind = data.get("type") if isinstance(data, dict) else None
        self.failed_writes.note("write", f"table {table.id}", f"action {n} ({kind}): {exc}")
        try:
            fresh = await self.db.run(self._read_table, table.id)
        except Exception as again:  # the database cannot be read either (a PostgreSQL
            # server that went away): the caller drops the table, the next access rebuilds it
            log.error("table %s: not rebuilt after a failed write: %s", table.id, again)
            return False
        if fresh is None or fresh.version != n:
            log.error("table %s: not rebuilt after a failed write", table.id)
            return False
        table.game = fresh.game
        table.memory = fresh.memory
        table.status = fresh.status
        table.sent, table.patched = None, set()  # (whole views: the next ones too)
        for listener in list(table.listeners):
            listener.push(message_text(table.view_message(listener.seat)))
        # the computer players try again in a moment (their task ends on the failure)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(1.0, self.ensure_bots, table)
        return True

    # ------------------------------------------------------------------ background work

    def start_background(self) -> None:
        """Start the lazy resumption of unfinished tables and the sweep of expired ones."""
        loop = asyncio.get_running_loop()
        self.background = [
            loop.create_task(self._resume_lazily(), name="tapete-resume"),
            loop.create_task(self._sweep_forever(), name="tapete-sweep"),
            loop.create_task(self._fill_forever(), name="tapete-fill"),
        ]

    async def _fill_forever(self) -> None:
        """Fill the quick tables whose wait is over, once a second (after a restart each
        waiting quick table waits its ``fill_after_s`` again; a database that cannot be read
        at start-up is read again at the next pass)."""
        waits_read = False
        while True:
            if not waits_read:
                try:
                    for table_id, fill in await self.db.run(self._waiting_quick_tables):
                        self.fill_at.setdefault(table_id, self.now() + float(fill or 0))
                    waits_read = True
                except Exception as exc:
                    self.failed_writes.note("fill", "the waiting quick tables", str(exc))
            await asyncio.sleep(1.0)
            try:
                await self.fill_due()
            except Exception:
                log.exception("the quick tables were not filled")

    def _waiting_quick_tables(self) -> list[tuple[int, float | None]]:
        """(A database thread) the waiting tables that computers fill: (id, the wait)."""
        with self.sessions() as session:
            rows = session.execute(
                select(TableRow.id, TableRow.fill_after_s).where(
                    TableRow.status == "waiting", TableRow.fill_after_s.is_not(None)
                )
            ).all()
        return [(table_id, fill) for table_id, fill in rows]

    async def _resume_lazily(self) -> None:
        """Rebuild the unfinished tables one at a time in a worker thread and let their
        computer players go on; a table opened meanwhile is rebuilt by its connection."""
        loop = asyncio.get_running_loop()
        count = 0
        for table_id in await self.db.run(self.playing_ids):
            if table_id in self.tables:
                continue
            try:
                table = await loop.run_in_executor(
                    self.bot_pool, functools.partial(self.get, table_id, keep=False)
                )
            except Exception:
                log.exception("table %s: not resumed", table_id)
                continue
            if table is None or table_id in self.tables:
                continue
            if table.is_bot(table.game.turn) and not table.game.over:
                self.tables[table_id] = table
                self.ensure_bots(table)
                self._maybe_evict(table)
            count += 1
        if count:
            log.info("resumed %d unfinished table(s)", count)

    async def _sweep_forever(self) -> None:
        while True:
            try:
                # (its query reads every unfinished table's last action: off the loop)
                self._close_swept(await asyncio.to_thread(self._sweep_rows, utcnow()))
            except Exception:
                log.exception("the sweep of expired tables failed")
            await asyncio.sleep(self.limits.sweep_every_s)

    def sweep(self, now: datetime | None = None) -> int:
        """Close the tables nobody plays: a table its person never opened, after
        ``unopened_ttl_s`` (status ``expired``), and an unfinished table with no action for
        ``abandoned_after_s`` (status ``abandoned``). Their computer players stop; the rows
        and actions stay. Returns how many were closed. (The server's own sweep reads and
        writes the rows in a worker thread: :meth:`_sweep_rows`, then :meth:`_close_swept`
        on the event loop.)"""
        return self._close_swept(self._sweep_rows(now or utcnow()))

    def _sweep_rows(self, now: datetime) -> list[int]:
        """The database's part of :meth:`sweep` (no table in memory is touched, so a worker
        thread may run it): the tables it closed."""
        unopened = now - timedelta(seconds=self.limits.unopened_ttl_s)
        idle = now - timedelta(seconds=self.limits.abandoned_after_s)
        last_action = _last_action_at()
        closed: list[int] = []
        with self.sessions.begin() as session:
            for status, condition in (
                ("expired", (TableRow.opened_at.is_(None)) & (TableRow.created_at < unopened)),
                ("abandoned", func.coalesce(last_action, TableRow.created_at) < idle),
            ):
                ids = list(
                    session.scalars(
                        select(TableRow.id)
                        .where(TableRow.status.in_(("playing", "waiting")), condition)
                        .limit(1000)
                    )
                )
                if ids:
                    session.execute(
                        update(TableRow)
                        .where(TableRow.id.in_(ids), TableRow.status.in_(("playing", "waiting")))
                        .values(status=status, finished_at=now)
                    )
                    closed += ids
        return closed

    def _close_swept(self, closed: list[int]) -> int:
        """The tables in memory of those :meth:`_sweep_rows` closed stop (on the loop)."""
        for table_id in closed:
            self.fill_at.pop(table_id, None)
            table = self.tables.pop(table_id, None)
            if table is not None:
                table.status = "closed"
                table.broken = True
                if table.bot_task is not None:
                    table.bot_task.cancel()
                if table.driver is not None:
                    table.driver.close()
                for listener in list(table.listeners):
                    listener.close()
        if closed:
            log.info("closed %d table(s) nobody plays", len(closed))
            self.lobby_changed()
        return len(closed)

    def record(self, table: Table) -> JSON:
        """The tapete/1 record. While the game is on, only its finished deals, and no seed:
        the record must not reveal a card (or the seed that deals the next ones)."""
        rec = table.game.to_record()
        if table.status != "finished":
            rec = dict(rec)
            rec["seed"] = None
            rec["deals"] = [d for d in rec.get("deals", []) if d.get("result") is not None]
        return rec

    # ------------------------------------------------------------------ actions

    async def act(self, table: Table, seat: int | None, version: Any, data: Any) -> None:
        """A person's action from the wire; raises :class:`TableError` and changes nothing
        when it is refused."""
        if not isinstance(data, dict):
            raise TableError("bad_message", "'action' must be a JSON object")
        if isinstance(version, bool) or not isinstance(version, int):
            raise TableError("bad_message", "'version' must be a whole number")
        try:
            action = table.game.parse_action(data)
        except (InvalidNotationError, ValueError, KeyError, TypeError) as exc:
            raise TableError("bad_message", f"not an action: {exc}") from None
        canonical = action.to_json()
        check_action_fields(data, canonical)
        async with table.lock:
            if table.broken:
                raise TableError("stale_version", "this table is being reloaded: reconnect")
            if seat is None:
                raise TableError("not_your_turn", "spectators cannot act at this table")
            table.check_started()
            if table.game.over:
                raise TableError("not_your_turn", "the game is over")
            # (the version first: an action sent again from a second tab, after the turn
            # moved on, is told that the table changed, which is what happened)
            if version != table.version:
                raise TableError(
                    "stale_version",
                    f"your view is version {version} but the table is at version "
                    f"{table.version}: look at the new view and choose again",
                )
            if table.game.turn != seat:
                raise TableError("not_your_turn", f"it is seat {table.game.turn}'s turn, not yours")
            try:
                events = table.game.apply(action)
            except IllegalActionError as exc:
                raise TableError("illegal", str(exc)) from None
            await self._commit(table, seat, canonical, events)
        self.ensure_bots(table)

    async def _commit(self, table: Table, seat: int, data: JSON, events: list[Event]) -> None:
        """Store an applied action (``data``: its JSON, serialised once) and the end of the
        game in one transaction, then send the listeners the ``events`` it caused. The caller
        holds ``table.lock`` throughout (no other action at this table meanwhile); the write
        itself runs in the write thread (:attr:`writer`, :mod:`tapete.server.writes`), so
        that other tables go on while the database is slow or locked. On a failed write the
        table is put back as the database holds it, or dropped from memory so that the next
        access rebuilds it."""
        n = table.version
        # what the write needs of the game is read here, on the event loop
        finished = (table.game.to_record(), table.game.winner) if table.game.over else None
        pending = self.writing[table.id] = self.writer.write_later((table, n, seat, data, finished))
        try:
            # (shielded: a cancelled wait leaves the write to end, and written() to see it)
            await asyncio.shield(pending)
        except asyncio.CancelledError:
            # (the server is stopping) the write may still happen: the game in memory can no
            # longer be trusted, the next access rebuilds it from the database
            table.broken = True
            self._forget(table)
            raise
        except Exception as exc:
            try:
                rebuilt = await self._write_failed(table, n, data, exc)
            except asyncio.CancelledError:  # (the server is stopping, as above)
                table.broken = True
                self._forget(table)
                raise
            if rebuilt:
                raise TableError(
                    "not_saved", "the server could not save this action: try again"
                ) from None
            # the game in memory is one action ahead of the database: drop it, and close the
            # connections (after saying why) so that the clients reconnect to the table
            # rebuilt from the log
            table.broken = True
            self._forget(table)
            error = TableError(
                "stale_version", "the server could not save this action: reconnecting"
            )
            text = message_text(error.to_json(table.language))
            for listener in list(table.listeners):
                listener.push(text)
                listener.close()
            raise error from None
        finally:
            if pending.done() and self.writing.get(table.id) is pending:
                del self.writing[table.id]
        table.version = n + 1
        self.actions_applied += 1
        table.actions.append(data)
        table.history.add(n + 1, events)
        if table.game.over:
            table.status = "abandoned" if table.capped else "finished"
        self._clock_after_action(table, seat)
        self._broadcast(table, events)

    def _finish(self, session: Session, table: Table, record: JSON, winner: Any) -> None:
        """(The write thread, in the transaction of the game's last action: :attr:`writer`)
        the rows of a game's end: the table's status and final scores, the finish hooks',
        the players' statistics."""
        scores = record.get(kind(table.game_name).score_key)
        now = utcnow()
        capped = winner is None and table.max_deals is None  # (Table.capped)
        session.execute(
            update(TableRow)
            .where(TableRow.id == table.id)
            .values(
                status="abandoned" if capped else "finished",
                finished_at=now,
                winner=winner,
                final_scores=scores,
            )
        )
        for hook in self.finish_hooks:
            hook(session, table, record)
        if capped or not table.counts_in_stats:
            # stopped at the cap on deals: nobody played it to the end; begun from a position
            # or on a chosen deal: no statistics, no Ranking
            return
        for seat, level in enumerate(table.levels):
            if level is None:
                stats.record_game(
                    session,
                    table_id=table.id,
                    name=table.players[seat],
                    seat=seat,
                    record=record,
                    when=now,
                    ranked=table.ranked,
                    abandoned=seat in table.abandoned,
                )

    def _broadcast(self, table: Table, events: list[Event]) -> None:
        """Send every listener its view and the events as its seat may see them (the engine
        decides who sees what: ``Event.for_viewer``); one message text per seat. Every
        listener already holds the sheet's first ``table.sheet_sent`` rows (it got them whole
        when it connected, or row by row since), so the view carries only the rows after them
        (the sheet only grows: a row, once written, never changes)."""
        texts: dict[int | None, str] = {}
        start = table.sheet_sent
        # (one snapshot of the clocks for every seat: the same for all)
        clocks = table.clock_snapshot() if table.clocks is not None else None
        if table.spectator_delay and table.spectator_game is not None:
            # delayed spectators: their game takes in the actions now old enough; the whole
            # sheet each time (it is not the one the seats hold)
            before = table.spectator_version
            shown = table.advance_spectators()
            if table.spectator_version != before or not events:
                message = table.view_message(None, clocks=clocks)
                message["events"] = [e.for_viewer(None) for e in shown]
                texts[None] = message_text(message)
            else:
                texts[None] = ""
        listeners = list(table.listeners)
        patched = table.patched
        # every seat's view at once (what the seats see alike is built, compared and encoded
        # once): a patch for the listeners that hold the last broadcast's view and want one
        whole = {n.seat: None for n in listeners if n.seat not in texts and n not in patched}
        patch = {n.seat: None for n in listeners if n.seat not in texts and n in patched}
        patches: dict[int | None, str] = {}
        if whole or patch:
            views, rows, patches = table.view_texts(
                whole.keys(),
                events,
                sheet_from=start,
                clocks=clocks,
                patches=patch.keys(),
                keep=any(n.patches for n in listeners),
            )
            texts.update(views)
            if rows is not None:
                table.sheet_sent = start + rows
        sent = table.sent.owns if table.sent is not None else {}
        table.patched = {n for n in listeners if n.patches and n.seat in sent}
        for listener in listeners:
            text = (listener in patched and patches.get(listener.seat)) or texts[listener.seat]
            if text:
                listener.push(text)

    async def settled(self, table: Table) -> None:
        """Wait until no action is being written at ``table``: between the engine applying it
        and the write thread storing it, the game in memory is one action ahead of the
        database and of ``table.version``; a view read after this (with no ``await`` in
        between) is one the database holds."""
        async with table.lock:
            pass

    async def settled_in_memory(self, table: Table) -> Table:
        """:meth:`settled`, for a connection about to :meth:`attach`: the table that is in
        memory for ``table.id`` once no write is under way there. While the connection waited
        for the lock, the table may have been forgotten (its computer players stopped and
        nobody was listening yet: :meth:`_maybe_evict`); it is put back then, so that no
        second copy of it is built for the next connection."""
        while True:
            await self.settled(table)
            current = self.tables.get(table.id)
            if current is table:
                return table
            if current is None or current.broken:
                if table.broken:
                    return table  # (dropped after a failed write: the caller's next access)
                self.tables[table.id] = table
                return table
            table = current  # another connection loaded it again meanwhile

    def attach(self, table: Table, listener: Listener) -> Table:
        """Add a listener and send it the current view (with no events); returns the table
        it listens to. A table that left memory while the connection waited for it (its
        computer players had just finished, nobody listened yet: ``_maybe_evict``) is put
        back, or the one loaded since is taken instead: a listener of a table that is not
        the manager's would never hear of its actions."""
        current = self.tables.get(table.id)
        if current is None and not table.broken:
            self.tables[table.id] = table
        elif current is not None and current is not table:
            table = current
        table.listeners.add(listener)
        if not self._ensure_clocks(table) and self._clocked(table, listener.seat):
            assert table.clocks is not None and listener.seat is not None
            self._clock_input(table, table.clocks.connected(listener.seat, self.now()))
        message = table.view_message(listener.seat)
        listener.push(message_text(message))
        if listener.seat is not None:
            for line in table.chat:
                listener.push(message_text(line))
        self.announce(table)
        return table

    def detach(self, table: Table, listener: Listener) -> None:
        table.patched.discard(listener)
        if listener in table.listeners:
            table.listeners.discard(listener)
            if self._clocked(table, listener.seat):
                assert table.clocks is not None and listener.seat is not None
                self._clock_input(table, table.clocks.disconnected(listener.seat, self.now()))
            self.announce(table)
        self._maybe_evict(table)

    # ------------------------------------------------------------------ clocks

    def _clocked(self, table: Table, seat: int | None) -> bool:
        """Whether ``seat`` is a person's seat under the table's clocks."""
        return table.clocks is not None and seat is not None and table.levels[seat] is None

    def _ensure_clocks(self, table: Table) -> bool:
        """Build the seat clocks of a table of several people that is being played (once per
        table in memory: at its start, or when it is rebuilt after a restart), counting the
        connections already open. True if it built them now. A table of one person against
        computers has none: its person leaving hands nothing to a computer."""
        if (
            table.clocks is not None
            or not table.shared
            or table.status != "playing"
            or table.game.over
            or table.broken
        ):
            return False
        try:
            settings = ClockSettings.from_json(table.clock or {})
        except ClockSettingsError as exc:  # (a row written by hand)
            log.error("table %s: its clock setting is refused (%s): the defaults", table.id, exc)
            settings = ClockSettings()
        people = [n for n, level in enumerate(table.levels) if level is None]
        now = self.now()
        clocks = SeatClocks(
            settings,
            seats=len(table.levels),
            people=people,
            now=now,
            abandoned=table.abandoned & set(people),
        )
        decisions: list[Decision] = []
        for listener in table.listeners:
            if listener.seat in people:
                decisions += clocks.connected(listener.seat, now)
        decisions += clocks.turn_started(table.game.turn, now)
        table.clocks = clocks
        table.clock_deal = table.game.deal_number
        table.driver = ClockDriver(
            clocks, functools.partial(self._carry_out, table), now=lambda: self.now()
        )
        self._clock_input(table, decisions)
        return True

    def _clock_input(self, table: Table, decisions: list[Decision]) -> None:
        """Carry out the decisions of an input to the clocks and re-arm the driver."""
        if decisions:
            self._carry_out(table, decisions)
        if table.driver is not None:
            with contextlib.suppress(RuntimeError):  # (no loop: a synchronous caller)
                table.driver.reschedule()

    def _clock_after_action(self, table: Table, seat: int) -> None:
        """Tell the clocks that ``seat`` acted (``_commit``): the next turn, a new deal, the end."""
        clocks = table.clocks
        if clocks is None:
            return
        now = self.now()
        game = table.game
        decisions: list[Decision] = []
        try:
            decisions += clocks.acted(seat, now)
            if game.deal_number != table.clock_deal:
                table.clock_deal = game.deal_number
                decisions += clocks.deal_started(now)
            if game.over:
                decisions += clocks.game_over(now)
            else:
                decisions += clocks.turn_started(game.turn, now)
        except ValueError:
            log.exception("table %s: the clocks refused the action of seat %d", table.id, seat)
        self._clock_input(table, decisions)

    def active(self, table: Table, seat: int | None) -> None:
        """A person's own message from ``seat`` (an action, a hint, a chat line, ``back``;
        not ``sync``): a seat taken over is theirs again."""
        if self._clocked(table, seat) and any(
            listener.seat == seat for listener in table.listeners
        ):
            assert table.clocks is not None and seat is not None
            decisions = table.clocks.active(seat, self.now())
            if decisions:  # (else nothing changed but the time: the deadlines stand)
                self._clock_input(table, decisions)

    def tick_clocks(self, table: Table) -> None:
        """Fire the table's clock deadlines due by ``self.now()`` (what the driver does when
        its wait ends; tests call it with a fake clock)."""
        if table.clocks is not None:
            self._clock_input(table, table.clocks.tick(self.now()))

    def _carry_out(self, table: Table, decisions: list[Decision]) -> None:
        """Do what the clocks decided, announce each decision to everyone at the table (seats
        and spectators: no card in it) and let a computer act if it now plays the turn."""
        from tapete.bots import make_bot

        for decision in decisions:
            seat = decision.seat
            if isinstance(decision, TakeOver):
                if seat not in table.bots:
                    level = table.takeover_level
                    table.bots[seat] = make_bot(table.game_name, level, profile=table.profile)
                    table.rngs[seat] = random.Random()
                    if table.memory is None:  # (else the pending rebuild covers it)
                        table.remember.add(seat)
            elif isinstance(decision, GiveBack):
                if table.levels[seat] is None:  # (the next takeover starts a fresh memory)
                    table.bots.pop(seat, None)
                    table.rngs.pop(seat, None)
                    table.remember.discard(seat)
            elif isinstance(decision, Abandoned):
                table.abandoned.add(seat)
                self._store_abandoned(table)
            message = {
                **decision.to_json(),
                "name": table.seats[seat].name,
                "version": table.version,
            }
            text = message_text(message)
            for listener in list(table.listeners):
                listener.push(text)
        self.announce(table)
        with contextlib.suppress(RuntimeError):
            self.ensure_bots(table)

    def _store_abandoned(self, table: Table) -> None:
        """Store the table's abandoned seats, in the write thread (after the actions queued
        before: the writes of a table stay in order)."""
        table_id, seats = table.id, sorted(table.abandoned)

        def write() -> None:
            try:
                with self.sessions.begin() as session:
                    session.execute(
                        update(TableRow)
                        .where(TableRow.id == table_id)
                        .values(abandoned_seats=seats)
                    )
            except Exception as exc:  # (the game goes on; the ratings read table.abandoned)
                self.failed_writes.note("abandoned", f"table {table_id}", str(exc))

        self.writer.pool.submit(write)

    async def _remember(self, table: Table) -> None:
        """Give the computers that have just taken seats over what those seats saw of the
        current hand (``rebuild_memory`` for those seats only). The caller holds the lock."""
        seats = set(table.remember)
        table.remember.clear()
        actions = list(table.actions)

        def rebuild() -> None:
            _, hand_start, _ = self._replay_from(table.fresh_game(), actions)
            rebuild_memory(table, table.fresh_game(), actions, hand_start, only=seats)

        try:
            await asyncio.to_thread(rebuild)
        except Exception:
            log.exception("table %s: the memory of seats %s was not rebuilt", table.id, seats)

    # ------------------------------------------------------------------ computer players

    def ensure_bots(self, table: Table) -> None:
        """Start the table's bot task if a computer seat is to act (needs a running loop)."""
        self._ensure_clocks(table)
        if (
            table.game.over
            or table.status == "waiting"
            or not table.is_bot(table.game.turn)
            or table.broken
            or table.awaits_people
        ):
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = asyncio.get_running_loop().create_task(
            self._bot_loop(table), name=f"tapete-bots-{table.id}"
        )

    async def _bot_loop(self, table: Table) -> None:
        try:
            if table.memory is not None:
                fresh, actions, hand_start = table.memory
                table.memory = None
                try:
                    await asyncio.to_thread(rebuild_memory, table, fresh, actions, hand_start)
                except Exception:
                    log.exception("table %s: the bots' memory was not rebuilt", table.id)
            while not table.broken and not table.game.over and table.is_bot(table.game.turn):
                # pace the computer players (and always let other tables run first)
                await asyncio.sleep(self.delay_s)
                if table.remember:
                    async with table.lock:
                        await self._remember(table)
                seat = table.game.turn
                if seat is None or not table.is_bot(seat) or table.awaits_people:
                    break  # (the seat was given back meanwhile, or everyone left)
                version = table.version
                view = table.game.view(seat)
                action = await self._choose(table, seat, view, version)
                async with table.lock:
                    # a seat given back while the computer thought: its move is void
                    if table.broken or table.version != version or not table.is_bot(seat):
                        continue
                    try:
                        events = table.game.apply(action)
                    except IllegalActionError as exc:
                        log.warning(
                            "table %s: bot at seat %d chose an illegal action (%s); "
                            "playing the first legal action",
                            table.id,
                            seat,
                            exc,
                        )
                        action = table.game.legal_actions()[0]
                        events = table.game.apply(action)
                    try:
                        await self._commit(table, seat, action.to_json(), events)
                    except TableError:
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the computer players stopped", table.id)
        finally:
            table.bot_task = None
            self._maybe_evict(table)

    async def _choose(self, table: Table, seat: int, view: JSON, version: int) -> Any:
        bot = table.bots[seat]
        rng = table.rngs[seat]
        # the same seat at the same version always draws the same numbers: reproducible
        # across restarts, and secret (Table.bot_seed)
        rng.seed(table.bot_seed(seat, version))
        try:
            if getattr(bot, "name", None) in _INLINE_BOTS:
                return bot.act(view, rng)
            loop = asyncio.get_running_loop()
            return await asyncio.wait_for(
                loop.run_in_executor(self.bot_pool, bot.act, view, rng),
                timeout=self.bot_timeout_s,
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            log.warning(
                "table %s: bot %s at seat %d took more than %.1f s; playing the first legal action",
                table.id,
                getattr(bot, "name", "?"),
                seat,
                self.bot_timeout_s,
            )
        except Exception:
            log.exception(
                "table %s: bot %s at seat %d failed; playing the first legal action",
                table.id,
                getattr(bot, "name", "?"),
                seat,
            )
        return table.game.legal_actions()[0]

    async def close(self) -> None:
        for t in self.tables.values():
            if t.driver is not None:
                t.driver.close()
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task is not None]
        tasks += self.background
        if self._lobby_push is not None:
            tasks.append(self._lobby_push)
        tasks += self._side_tasks
        self._lobby_push = None  # (a task cancelled before its first step never clears it)
        # (asyncio locks belong to the loop that waited on them first: the app may serve
        # again on another loop after its lifespan)
        self._quick_locks.clear()
        self._lobby_lock = asyncio.Lock()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # a fresh pool (no thread until used): the app may serve again after its lifespan
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        self.bot_pool = ThreadPoolExecutor(self.limits.bot_workers, thread_name_prefix="tapete-bot")
        self.writer.close()  # (the writes under way end: none is cut)
        self.db.shutdown()


def _retrieved(task: asyncio.Task[Any]) -> None:
    """(A done callback) take the outcome of a task its caller may no longer await, so that
    asyncio does not log "exception was never retrieved" (the caller had it, if it waited)."""
    if not task.cancelled():
        task.exception()


def valid_profiles() -> Iterable[tuple[str, str]]:
    """Every (game, profile) a table may have."""
    for k in kinds():
        for profile in k.profiles:
            yield k.name, profile


def _seat_rows(table_id: int, seats: list[Seat]) -> list[SeatRow]:
    now = utcnow()
    return [
        SeatRow(
            table_id=table_id,
            seat=n,
            kind=st.kind,
            name=st.name or None,
            user_id=st.user_id,
            token=st.token,
            level=st.level,
            joined_at=now if st.kind == "person" else None,
        )
        for n, st in enumerate(seats)
    ]
