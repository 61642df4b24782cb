"""A Mariage match: hands dealt from the game's own ``random.Random(seed)``, played to 7.

:class:`MariageGame` implements the :class:`tapete.game.Game` protocol (docs/dev/contract.md).

>>> g = MariageGame(seed=4000, players=["Ana", "Bruno"])
>>> g.state.dealer, g.turn, g.phase
(1, 0, 'open')
>>> [e.type for e in g.apply(g.parse_action({"type": "play", "card": "JD"}))]
['action']
>>> g.turn
1
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, Final, get_args

from tapete import arguments
from tapete.arguments import ActionTypes, check_seat, check_seats, check_seed
from tapete.cards import CARD_NAMES, CARD_POINTS, MARIAGE_DECK, SUIT_LETTERS, Card
from tapete.errors import IllegalActionError
from tapete.fair import DealSeeds, FairDeal, fresh_deck, shuffled
from tapete.game import JSON, DealSummary, Event, record_index, split_views
from tapete.mariage.actions import Action, Close, Decline, Exchange, Marriage, action_from_json
from tapete.mariage.state import STOCK_SIZE, WIN_POINTS, State, deal_cards, deal_deck

__all__ = [
    "DEFAULT_PLAYERS",
    "TARGET",
    "DealSpec",
    "MariageGame",
    "deal_seeded",
    "draw_first_dealer",
    "open_view",
]

#: Game points that win the match.
TARGET: Final = 7
DEFAULT_PLAYERS: Final = ("Player 1", "Player 2")

#: A predetermined deal: ``(hands, stock)`` with two 6-card hands and a 20-card stock.
DealSpec = tuple[Sequence[Sequence[Card]], Sequence[Card]]

#: the keys of a view that depend on its seat (``view_parts``); every other key is the same
#: for every seat and the spectators
_OWN_KEYS: Final = frozenset({"seat", "legal", "hand", "pair_cards"})

#: the fresh deck of fair deals (tapete.fair: S C D H, each A T K Q J 9 8 7)
_FAIR_DECK: Final = fresh_deck(MARIAGE_DECK)

#: the Mariage action classes and their fields' types (``MariageGame.apply`` checks what it
#: gets)
_ACTION_TYPES: Final = ActionTypes("Mariage", get_args(Action))


def deal_seeded(seed: bytes) -> tuple[list[list[Card]], list[Card]]:
    """The fair deal of ``seed`` (tapete.fair's shuffle, then the dealing rule
    :func:`tapete.mariage.state.deal_deck`)."""
    return deal_deck(shuffled(seed, _FAIR_DECK))


def draw_first_dealer(rng: random.Random) -> int:
    """Draw the first dealer by lot: cut one card of the 32 in deck order (spades, clubs,
    diamonds, hearts); a black card gives the deal to seat 0, a red one to seat 1."""
    return rng.randrange(32) // 16


class MariageGame:
    """A whole Mariage match for two seats, played hand after hand until one has 7 game points.

    ``start`` (optional) begins in the middle of a match: ``{"dealer": seat, "game_points":
    [a, b]}`` (missing fields take the values of a new match). ``max_deals`` stops the match
    after that many hands (``winner`` stays None unless someone reached 7). ``deals`` and
    ``first_dealer`` are for replays: predetermined hands used in order (the game's random
    generator still advances as if it had dealt them) and a first dealer that overrides the lot
    without being a start position. ``deal_seeds`` (hand index -> seed) deals fair hands
    (:mod:`tapete.fair`): the record and the events then carry each hand's commitment, and
    its seed once the hand is over.
    """

    name = "mariage"
    profile_name = "mariage"

    def __init__(
        self,
        seed: int | None = None,
        players: Sequence[str] | None = None,
        max_deals: int | None = None,
        start: JSON | None = None,
        *,
        deals: Sequence[DealSpec] | None = None,
        first_dealer: int | None = None,
        deal_seeds: DealSeeds | None = None,
    ) -> None:
        check_seed(seed)  # (its record must replay)
        self.seed = seed
        named = arguments.check_players(players, 2, "Mariage")
        self.players: list[str] = named or list(DEFAULT_PLAYERS)
        self.max_deals = arguments.check_max_deals(max_deals)
        self._rng = random.Random(seed)
        self._deals: Iterator[DealSpec] = iter(deals or ())
        self._deal_seeds = deal_seeds
        #: per hand dealt so far: its commitment and seed (None: not a fair deal)
        self._fair: list[FairDeal | None] = []
        points: list[int] = [0, 0]
        dealer: int | None = None
        self._start: JSON | None = None
        if start is not None:
            if not isinstance(start, dict):
                raise ValueError(f"start must be an object, not {start!r}")
            gp = start.get("game_points", [0, 0])
            if (
                not isinstance(gp, list)
                or len(gp) != 2
                or not all(type(x) is int and x >= 0 for x in gp)
            ):
                raise ValueError(f"start.game_points must be two non-negative ints, not {gp!r}")
            for s, got in enumerate(gp):
                # ([7, 7] was played on, a hand more, and [7, 0] was a match over before it
                # began; Mil refuses its own such starts in the same words)
                if got >= TARGET:
                    raise ValueError(
                        f"start: seat {s} already has {got} game points, the target "
                        f"({TARGET}): the match would be over"
                    )
            points = list(gp)
            if "dealer" in start:
                if start["dealer"] not in (0, 1) or type(start["dealer"]) is not int:
                    raise ValueError(f"start.dealer must be 0 or 1, not {start['dealer']!r}")
                dealer = start["dealer"]
        if dealer is None:
            # A replay still draws the lot, so that the generator stays in step.
            drawn = draw_first_dealer(self._rng)
            dealer = drawn if first_dealer is None else first_dealer
        if start is not None:
            self._start = {"dealer": dealer, "game_points": list(points)}
        #: Game points per seat.
        self.match: list[int] = points
        #: Finished hands in record form (``dealer``, ``hands``, ``stock``, ``actions``,
        #: ``result``).
        self.finished: list[JSON] = []
        #: Per finished hand, its row of the views' sheet, built once at its end: a copy of
        #: the record's ``result`` (the views and the ``deal_end`` event share the row, the
        #: record never) with ``dealer`` and, for a closed hand, the closing (``closed_by`` and
        #: the opponent's ``closed_points`` and ``closed_tricks`` written down then)
        self._rows: list[JSON] = []
        #: :attr:`finished_deals` built so far (each with a copy of its hand's record)
        self._summaries: list[DealSummary] = []
        self._winner: int | None = None
        self._stopped = False
        self.state: State = self._new_state(dealer)

    # --- dealing -----------------------------------------------------------------------------

    def _new_state(self, dealer: int) -> State:
        hands, stock = deal_cards(self._rng)  # (always: the generator stays in step)
        k = len(self.finished)
        seed = self._deal_seeds(k) if self._deal_seeds is not None else None
        given = next(self._deals, None)
        if given is not None:  # a replay: the recorded cards (the reader checked the seed)
            hands, stock = [list(h) for h in given[0]], list(given[1])
        elif seed is not None:
            hands, stock = deal_seeded(seed)
        self._fair.append(None if seed is None else FairDeal.of(seed))
        return State(hands, stock, dealer)

    @property
    def commitment(self) -> str | None:
        """The current hand's commitment (public), None when it is not a fair deal."""
        k = len(self.finished)
        fair = self._fair[k] if not self.over and k < len(self._fair) else None
        return None if fair is None else fair.commitment

    # --- the Game protocol -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return (
            self._winner is not None
            or self._stopped
            or (self.max_deals is not None and len(self.finished) >= self.max_deals)
        )

    def stop(self) -> None:
        """End the match here without a winner (the record keeps the finished hands), as
        ``MilGame.stop``."""
        self._stopped = True

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def turn(self) -> int | None:
        return None if self.over else self.state.turn

    @property
    def phase(self) -> str:
        return "over" if self.over else self.state.phase.value

    @property
    def deal_number(self) -> int:
        """The number of the hand the views show, counting from 1: the current one, also
        when the match is stopped in its middle, or once the match is over its last one."""
        return len(self.finished) + (0 if self.state.done else 1)

    @property
    def scores(self) -> list[int | float]:
        """Each seat's game points (the match standing; the same list as :attr:`match`)."""
        return list(self.match)

    @property
    def finished_deals(self) -> list[DealSummary]:
        """The finished hands in order, the same shape as Mil's (no declarer in Mariage);
        each built once, as Mil's are (a replay asks for them after every action)."""
        summaries = self._summaries
        for i in range(len(summaries), len(self.finished)):
            d = self.finished[i]
            result = d["result"]
            deltas: list[int | float] = [0, 0]
            if result["winner"] is not None:
                deltas[result["winner"]] = result["game_points"]
            summaries.append(
                DealSummary(
                    index=i,
                    dealer=d["dealer"],
                    declarer=None,
                    made=None,
                    deltas=tuple(deltas),
                    record=arguments.json_copy(d),
                )
            )
        return list(summaries)

    def legal_actions(self) -> list[Action]:
        return [] if self.over else self.state.legal_actions()

    def parse_action(self, data: JSON) -> Action:
        return action_from_json(data)

    def can_apply(self, action: object) -> bool:
        """Whether ``action`` is legal for ``turn`` now."""
        return self.why_illegal(action) is None

    def why_illegal(self, action: object) -> str | None:
        """None when ``action`` is legal now, else the sentence :meth:`apply` would raise."""
        malformed = _ACTION_TYPES.problem(action)
        if malformed is not None:
            return malformed
        if self.over:
            return f"nobody can {action}: the match is over"
        return self.state.why_illegal(action)

    def apply(self, action: Any) -> list[Event]:
        """Apply ``action`` for ``turn``; return the events it caused, in order (see
        docs/dev/protocol.md): the action, then a marriage, a trick and the stock draws, an
        exchange or a closing, and at a hand's end its sheet row, then the next hand or the
        match's end. :class:`IllegalActionError` for an illegal action, and before anything
        changes for an object that is not a Mariage action or whose fields are not of their
        declared types."""
        malformed = _ACTION_TYPES.problem(action)
        if malformed is not None:
            raise IllegalActionError(malformed)
        if self.over:
            raise IllegalActionError(f"nobody can {action}: the match is over")
        state = self.state
        seat = state.turn
        following = state.lead_card is not None
        pos = STOCK_SIZE - state.stock_count
        indicator = state.indicator
        state.apply(action)
        assert seat is not None
        index = record_index(state.history, _recorded)
        events = [Event("action", {"seat": seat, "action": action.to_json(), "index": index})]
        cls = type(action)
        if following:
            leader, lead, follow, winner = state.last_trick  # type: ignore[misc]
            events.append(
                Event(
                    "trick",
                    {
                        "winner": winner,
                        "cards": [
                            {"seat": leader, "card": CARD_NAMES[lead]},
                            {"seat": 1 - leader, "card": CARD_NAMES[follow]},
                        ],
                        "points": CARD_POINTS[lead] + CARD_POINTS[follow],
                    },
                )
            )
            if STOCK_SIZE - state.stock_count > pos:
                events.append(_draw_event(state, pos, winner))
        elif cls is Marriage:
            _, suit, value = state.marriages[-1]
            events.append(
                Event("marriage", {"seat": seat, "suit": SUIT_LETTERS[suit], "value": value})
            )
        elif cls is Exchange:
            assert indicator is not None
            new = state.indicator
            assert new is not None
            events.append(
                Event(
                    "exchange",
                    {"seat": seat, "card": CARD_NAMES[indicator], "indicator": CARD_NAMES[new]},
                )
            )
        elif cls is Close:
            events.append(Event("closed", {"seat": seat}))
        if state.done:
            self._finish_hand(events)
        return events

    def _finish_hand(self, events: list[Event]) -> None:
        state = self.state
        result = state.result
        assert result is not None
        if result.winner is not None:
            self.match[result.winner] += result.game_points
            if self.match[result.winner] >= TARGET:
                self._winner = result.winner
        k = len(self.finished)
        fair = self._fair[k]
        deal = _deal_json(state, result.to_json(self.match), fair)
        self.finished.append(deal)
        row = {"dealer": deal["dealer"], **arguments.json_copy(deal["result"]), **_closing(state)}
        self._rows.append(row)
        end: JSON = {"deal": k, "row": row}
        if fair is not None:  # the hand is over: its seed is revealed
            end["fair"] = fair.to_json()
        events.append(Event("deal_end", end))
        if self.over:
            events.append(Event("game_over", {"winner": self._winner, "scores": self.scores}))
            return
        self.state = self._new_state(1 - state.dealer)
        events.append(_deal_event(self.state, self.deal_number, self.commitment))

    def view(self, seat: int | None) -> JSON:
        """What ``seat`` may know (None: a spectator); JSON-safe, keys as in the contract.
        ``ValueError`` for a seat that is neither None nor 0 or 1."""
        check_seat(seat, len(self.players))
        return self._view(seat, self._public_view())

    def views(self, seats: Sequence[int | None]) -> list[JSON]:
        """The views of ``seats`` (equal to ``[self.view(s) for s in seats]``), built at once:
        what every seat sees alike is built once, and the views share those values (the
        same objects; a caller may replace a view's keys, never change a value in place)."""
        check_seats(seats, len(self.players))
        public = self._public_view()
        return [self._view(seat, public) for seat in seats]

    def view_parts(self, seats: Sequence[int | None]) -> tuple[JSON, list[JSON]]:
        """``views(seats)`` in two parts, as ``Game.view_parts`` says: what every seat sees
        alike, and each seat's own keys (:data:`_OWN_KEYS`)."""
        if not seats:  # (the shared part all the same: a spectator's view has it)
            return split_views([self.view(None)], _OWN_KEYS)[0], []
        return split_views(self.views(seats), _OWN_KEYS)

    def _public_view(self) -> tuple[JSON, JSON]:
        """The match's lists every view holds, and the hand's ``State.public_view``."""
        match: JSON = {
            "players": list(self.players),
            "match": list(self.match),
            "sheet": list(self._rows),
        }
        return match, self.state.public_view()

    def _view(self, seat: int | None, public: tuple[JSON, JSON]) -> JSON:
        match, hand = public
        v = self.state.view(seat, hand)
        over = self.over
        return {
            "game": self.name,
            "profile": self.profile_name,
            "seat": seat,
            "players": match["players"],
            "phase": self.phase,
            "turn": self.turn,
            "over": over,
            "winner": self._winner,
            "legal": [] if over else v["legal"],
            "hand": v["hand"],
            "hand_counts": v["hand_counts"],
            "deal_number": self.deal_number,
            "dealer": v["dealer"],
            "match": match["match"],
            "target": TARGET,
            "trump": v["trump"],
            "indicator": v["indicator"],
            "stock_count": v["stock_count"],
            "closed": v["closed"],
            "closed_by": v["closed_by"],
            "trick": v["trick"],
            "leader": v["leader"],
            "last_trick": v["last_trick"],
            "points": v["points"],
            "tricks_won": v["tricks_won"],
            "marriages": v["marriages"],
            "pending_marriage": v["pending_marriage"],
            "pair_cards": v["pair_cards"],
            "claim_points": WIN_POINTS,
            "sheet": match["sheet"],
            # the current hand's commitment (tapete.fair); None: not a fair deal
            "commitment": self.commitment,
        }

    def to_record(self) -> JSON:
        """The tapete/1 record of the match so far.

        A hand in progress with at least one action is written last, without ``result``.
        """
        # (copies: a caller may change its record, never the match's own; a bot that edited
        # a sheet row or a record it was given changed what the match then wrote)
        deals = [arguments.json_copy(d) for d in self.finished]
        if not self.over and self.state.history:
            deals.append(_deal_json(self.state, None, None))  # (no seed while it is played)
        record: JSON = {
            "format": "tapete/1",
            "game": self.name,
            "profile": self.profile_name,
            "seed": self.seed,
            "players": list(self.players),
        }
        if self._start is not None:
            record["start"] = {
                "dealer": self._start["dealer"],
                "game_points": list(self._start["game_points"]),
            }
        record["deals"] = deals
        record["match"] = list(self.match)
        record["winner"] = self._winner
        return record

    def __repr__(self) -> str:
        return (
            f"<MariageGame seed={self.seed} match={self.match} hand={self.deal_number} "
            f"{self.phase}>"
        )


def open_view(state: State) -> JSON:
    """Hand ``state`` with every card face up, for the replay of a finished match (never for
    a table in play): the spectator's view of the hand (``state.view(None)``) with ``hands``
    (each seat's cards, in the order of its own view), ``turn`` None once the hand is over,
    and ``hidden``: the cards in no hand that lie face down, the stock in the order it is
    drawn (the indicator last while the stock is closed; while it lies face up it is the
    view's ``indicator``).
    :data:`tapete.mariage.kind.KIND` offers it as ``open_view``."""
    v = state.view(None)
    if state.done:  # nobody is to act in a finished deal
        v["turn"] = None
    v["hands"] = [state.view(s)["hand"] for s in (0, 1)]
    left = state.stock[STOCK_SIZE - state.stock_count :]
    if state.indicator is not None:
        left = left[:-1]
    v["hidden"] = [CARD_NAMES[c] for c in left]
    return v


def _draw_event(state: State, pos: int, winner: int) -> Event:
    """The two cards drawn after a trick: the winner's first. Each seat sees its own card;
    the last draw takes the face-up indicator, which everyone sees go to the loser."""
    first, second = state.stock[pos], state.stock[pos + 1]
    public: JSON = {"seats": [winner, 1 - winner], "stock_count": state.stock_count}
    if pos + 2 >= STOCK_SIZE:
        public["indicator"] = {"seat": 1 - winner, "card": CARD_NAMES[second]}
    return Event(
        "draw",
        public,
        {winner: {"card": CARD_NAMES[first]}, 1 - winner: {"card": CARD_NAMES[second]}},
    )


def _deal_event(state: State, deal_number: int, commitment: str | None) -> Event:
    """A new hand: its number, dealer, trump and face-up indicator (and a fair deal's
    commitment) for everyone, each seat's six cards for that seat."""
    indicator = state.indicator
    public: JSON = {
        "deal_number": deal_number,
        "dealer": state.dealer,
        "trump": SUIT_LETTERS[state.trump],
        "indicator": None if indicator is None else CARD_NAMES[indicator],
    }
    if commitment is not None:
        public["commitment"] = commitment
    return Event(
        "deal",
        public,
        {s: {"hand": [CARD_NAMES[c] for c in sorted(state.initial_hands[s])]} for s in (0, 1)},
    )


def _closing(state: State) -> JSON:
    """A finished hand's closing for its sheet row: who closed the stock and the opponent's
    points and tricks written down then (``{}``: nobody closed)."""
    position = state.closed_position
    if position is None:
        return {}
    return {
        "closed_by": state.closed_by,
        "closed_points": position[0],
        "closed_tricks": position[1],
    }


def _recorded(action: Action) -> bool:
    """Whether a record writes ``action``: every action but a ``Decline`` (a closed hand's
    last trick taker not claiming), which the reader puts back (docs/records.md)."""
    return type(action) is not Decline


def _deal_json(state: State, result: JSON | None, fair: FairDeal | None) -> JSON:
    deal: JSON = {
        "dealer": state.dealer,
        "hands": [[CARD_NAMES[c] for c in h] for h in state.initial_hands],
        "stock": [CARD_NAMES[c] for c in state.initial_stock],
    }
    if fair is not None:  # a finished hand: commitment and seed
        deal["fair"] = fair.to_json()
    deal["actions"] = [
        {"seat": seat, **action.to_json()} for seat, action in state.history if _recorded(action)
    ]
    if result is not None:
        deal["result"] = result
    return deal
