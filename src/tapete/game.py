"""The shapes every game (Mil, Mariage) shares; see docs/dev/contract.md.

* :class:`Game` is the protocol of a whole game (many deals): the same names and meanings for
  every registered game.
* :class:`Event` is something an action caused (the action itself, a trick taken, a marriage,
  a deal's end, a new deal, ...), with what each viewer may see of it: ``Game.apply`` returns
  the list of them and ``event.for_viewer(seat)`` is the only form that leaves the server.
* :class:`DealSummary` is a finished deal, the same small shape for every game.
* :class:`RecordReader` is what a game tells the shared ``tapete/1`` reader
  (:mod:`tapete.reader`): how to build the start position, the engine actions the format does
  not write, and the results to compare.
* :class:`GameKind` is a game's registry entry (:mod:`tapete.games` lists them): everything
  generic code (CLI, arena, server, statistics, web client) needs to know about a game, so that
  it never asks "is this Mil?".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

__all__ = [
    "JSON",
    "Action",
    "DealCards",
    "DealSummary",
    "Event",
    "Game",
    "GameKind",
    "RecordReader",
    "record_index",
    "split_views",
]

JSON = dict[str, Any]

#: the cards of one recorded deal: each seat's hand as dealt, then the rest (talon, stock)
DealCards = tuple[list[list[int]], list[int]]


def split_views(views: Sequence[JSON], own_keys: frozenset[str]) -> tuple[JSON, list[JSON]]:
    """``Game.view_parts`` from whole ``views`` (at least one), for an engine whose views
    differ between seats only in ``own_keys``: the other keys, from the first view, and
    each view's ``own_keys``."""
    shared = {k: v for k, v in views[0].items() if k not in own_keys}
    return shared, [{k: v for k, v in view.items() if k in own_keys} for view in views]


def record_index(history: Sequence[tuple[int, Any]], recorded: Callable[[Any], bool]) -> int | None:
    """The place of the last action of a deal's ``history`` (``(seat, action)`` pairs, the
    engine's) among the actions its record writes (``recorded``: the game's test), from 0: the
    record's ``actions[i]``, the replay's frame ``i + 1``; None when the record leaves it out.
    Each game's action events carry it (docs/dev/protocol.md, "Events")."""
    if not recorded(history[-1][1]):
        return None
    return sum(1 for _, action in history if recorded(action)) - 1


@runtime_checkable
class Action(Protocol):
    """A frozen dataclass with its record form and a stable dense id."""

    def to_json(self) -> JSON: ...

    @property
    def id(self) -> int: ...


@dataclass(frozen=True)
class Event:
    """Something that happened at a table, and who may see what of it.

    ``public`` holds the fields every viewer (spectators too) receives; ``private`` maps a seat
    to the fields that seat receives on top (they replace public fields of the same name), e.g.
    the card of a Mil give for the giver and the receiver, or a seat's new hand at a new deal.
    Both hold JSON-safe values only. The engine builds events; nothing else decides visibility.

    >>> e = Event("action", {"seat": 0, "action": {"type": "give", "to": 1, "card": None}},
    ...           {0: {"action": {"type": "give", "to": 1, "card": "KH"}}})
    >>> e.for_viewer(None)["action"]["card"], e.for_viewer(0)["action"]["card"]
    (None, 'KH')
    """

    type: str
    public: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def for_viewer(self, seat: int | None) -> JSON:
        """The JSON that ``seat`` (``None``: a spectator) may receive of this event."""
        out: JSON = {"type": self.type, **self.public}
        if seat is not None:
            out.update(self.private.get(seat, {}))
        return out


@dataclass(frozen=True)
class DealSummary:
    """A finished deal (Mil) or hand (Mariage), the same shape for every game.

    ``deltas`` are each seat's change of the game's standing in this deal (Mil: points, 0 for
    an annulled deal; Mariage: game points); ``declarer``/``made`` are None where the game or
    the deal has none (Mariage, an annulled Mil deal, a rospis); ``record`` is the deal's
    ``tapete/1`` JSON (with its ``result``).
    """

    index: int
    dealer: int
    declarer: int | None
    made: bool | None
    deltas: tuple[int | float, ...]
    record: JSON


class Game(Protocol):
    """A whole game (Mil) or match (Mariage): a sequence of deals played to the end."""

    name: str
    profile_name: str
    players: list[str]
    seed: int | None
    #: the current deal's state (full information; Mil: None once the game is over)
    state: Any

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int | None: ...

    @property
    def turn(self) -> int | None: ...

    @property
    def phase(self) -> str: ...

    @property
    def deal_number(self) -> int: ...

    @property
    def scores(self) -> list[int | float]:
        """The standing as JSON numbers, per seat (Mil: points; Mariage: game points)."""
        ...

    @property
    def finished_deals(self) -> list[DealSummary]:
        """Every finished deal (hand) so far, in order."""
        ...

    def legal_actions(self) -> list[Any]: ...

    def can_apply(self, action: object) -> bool: ...

    def why_illegal(self, action: object) -> str | None:
        """None when ``action`` is legal now, else the sentence :meth:`apply` would raise."""
        ...

    def apply(self, action: Any) -> list[Event]:
        """Apply ``action`` for ``turn`` (``IllegalActionError`` with a sentence when it is
        illegal) and return the events it caused, in order."""
        ...

    def parse_action(self, data: JSON) -> Any: ...

    def view(self, seat: int | None) -> JSON: ...

    def views(self, seats: Sequence[int | None]) -> list[JSON]:
        """``[self.view(s) for s in seats]``, built at once: the values every seat sees alike
        are built once and shared between the views (the same objects). A caller may set a
        view's keys but must never change a shared value in place. The server's broadcast
        builds its views for the seats and the spectators this way."""
        ...

    def view_parts(self, seats: Sequence[int | None]) -> tuple[JSON, list[JSON]]:
        """:meth:`views` in two parts: ``(shared, owns)``, the keys every seat sees alike and,
        per seat, the keys of its own (``seat`` among them), with no key in both;
        ``{**shared, **owns[i]}`` equals ``view(seats[i])`` (the keys in another order). The
        server's broadcast encodes ``shared`` once for all its seats. The same rule as
        :meth:`views` for the values: never change one in place."""
        ...

    def to_record(self) -> JSON: ...


G = TypeVar("G", bound="Game")


@dataclass(frozen=True)
class RecordReader(Generic[G]):
    """One game's hooks for the shared ``tapete/1`` reader (:func:`tapete.reader.read_record`).

    The reader checks the header, the deals' cards, each action's seat and turn, applies the
    actions and compares the results, all in one place; the game says only what differs.
    Each hook may raise :class:`~tapete.errors.RecordError` (the reader adds where).
    """

    name: str
    #: the game's name in messages ("unknown Mil profile ...")
    title: str
    seats: int
    profiles: tuple[str, ...]
    hand_size: int
    #: the deal's field for the cards not in the hands ("talon", "stock") and their number
    rest: str
    rest_size: int
    #: the game's cards (a bitmask) and what to say of another card ("Mil uses A T K Q J 9")
    deck: int
    deck_note: str
    #: the record's top-level fields that the replay recomputes ("scores", "winner")
    final_fields: tuple[str, ...]
    #: the result and final fields whose numbers may end in .5 (Mil's scores); every other
    #: number the replay computes (a seat, a bid, a count) must be written as a whole number
    fractional: frozenset[str]
    #: whether the last deal may stop before its end (a match in progress, without result)
    in_progress: bool
    #: ``(record, deals, seeds) -> game``: the game before the first action, dealing
    #: ``deals`` in order (the header and the deals are already checked); ``seeds[k]`` is
    #: deal k's revealed fair seed (already checked against its cards) or None, for the game
    #: to write back
    start: Callable[[JSON, list[DealCards], list[bytes | None]], G]
    #: the seat that deals the current deal
    dealer: Callable[[G], int]
    parse_action: Callable[[JSON], Any]
    #: ``(game, seat, action)`` -> the engine actions the format leaves out before a recorded
    #: one (Mil's ``KeepDeal`` in a redeal window); each is applied as soon as it is yielded
    before: Callable[[G, int, Any], Iterator[Any]]
    #: ``game`` -> the engine actions left out after a deal's last recorded action (Mariage's
    #: ``Decline`` after the last trick of a closed hand), applied as they are yielded
    after: Callable[[G], Iterator[Any]]
    #: the number of finished deals
    finished: Callable[[G], int]
    #: ``(game, index)`` -> the record form of a finished deal's ``result``
    result: Callable[[G, int], JSON]
    #: ``game`` -> the values of ``final_fields`` after the last deal
    final: Callable[[G], JSON]
    #: ``seed -> (hands, rest)``: the fair deal of a seed (tapete.fair), which the reader
    #: compares with a deal's recorded cards
    deal_seeded: Callable[[bytes], DealCards]


#: ``(profile, *, seed, players, max_deals, start[, deal_seeds]) -> Game``: a new game, or one
#: begun from a record's ``start`` position (``ValueError``/``RecordError`` for a bad one);
#: ``deal_seeds`` (deal index -> a :mod:`tapete.fair` seed or None) deals fair deals
GameFactory = Callable[..., Game]


@dataclass(frozen=True)
class GameKind:
    """One game's registry entry: what generic code may know about it.

    The game package builds its own entry (``tapete.mil.KIND``, ``tapete.mariage.KIND``) and
    :mod:`tapete.games` lists them. ``bots``, ``terminal`` and ``analysis`` name the modules
    (above the engine) that provide the game's computer players (``make_bot(level, profile,
    **options)``), its terminal front-end and its deal review (the shape of
    :class:`tapete.analysis.core.GameAnalysis`), so that the engine never imports them.
    """

    name: str
    #: the game's name for people (the same in every language: "Mil", "Mariage")
    title: str
    seats: int
    #: rule profiles, the default first
    profiles: tuple[str, ...]
    #: profile -> the standing that wins (Mil 1000 or 500 points, Mariage 7 game points)
    targets: Mapping[str, int]
    default_players: tuple[str, ...]
    #: the key of the final standing in records and views ("scores", "match")
    score_key: str
    #: a cap on deals for games nobody plays to the end (simulations of random players)
    max_deals: int
    build: GameFactory
    parse_action: Callable[[JSON], Any]
    #: ``(record, *, check_results) -> Game``: replay a tapete/1 record, RecordError on a problem
    replay: Callable[..., Game]
    bots: str
    terminal: str
    analysis: str
    #: a deal's ``deltas`` are points won, never negative (Mariage's game points), so each
    #: seat's share of all the points is a figure of its own (the arena reports it); False
    #: where a deal can take points away (Mil)
    point_share: bool = False
    #: the game's hooks for the shared record reader (:mod:`tapete.replay` finds them here)
    reader: RecordReader[Any] | None = None
    #: ``state`` (a deal's ``Game.state``) -> that deal with every card face up: its
    #: spectator's view plus ``hands`` (every seat's) and ``hidden`` (the face-down cards in
    #: no hand: a talon, a stock). Only for finished games (the server's replay viewer)
    open_view: Callable[[Any], JSON] | None = None

    def new(
        self,
        profile: str | None = None,
        *,
        seed: int | None = None,
        players: list[str] | None = None,
        max_deals: int | None = None,
        start: JSON | None = None,
        deal_seeds: Callable[[int], bytes | None] | None = None,
    ) -> Game:
        """A new game of this kind (``profile`` None: the default one); ``deal_seeds`` (deal
        index -> seed) deals fair deals (:mod:`tapete.fair`), the others come from ``seed``."""
        profile = profile or self.profiles[0]
        if profile not in self.profiles:
            raise ValueError(
                f"unknown profile {profile!r} for {self.name} "
                f"(expected one of: {', '.join(self.profiles)})"
            )
        if deal_seeds is None:  # (a factory need not know fair deals to be a game)
            return self.build(profile, seed=seed, players=players, max_deals=max_deals, start=start)
        return self.build(
            profile,
            seed=seed,
            players=players,
            max_deals=max_deals,
            start=start,
            deal_seeds=deal_seeds,
        )

    def target(self, profile: str | None = None) -> int:
        return self.targets[profile or self.profiles[0]]
