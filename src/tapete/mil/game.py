"""A whole Mil game: deals in sequence, the standing between them, views and records."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, get_args

from tapete.arguments import (
    ActionTypes,
    check_max_deals,
    check_players,
    check_seat,
    check_seats,
    check_seed,
    json_copy,
)
from tapete.cards import (
    CARD_NAMES,
    CARD_POINTS,
    MIL_DECK,
    SUIT_LETTERS,
    bits,
    card_name,
)
from tapete.errors import IllegalActionError
from tapete.fair import DealSeeds, FairDeal, fresh_deck, shuffled
from tapete.game import DealSummary, Event
from tapete.mil.actions import Give, KeepDeal, MilAction, Play, Redeal, action_from_json
from tapete.mil.profiles import Profile, get_profile
from tapete.mil.scoring import BARREL_ATTEMPTS, DealResult, Standing, settle
from tapete.mil.state import MARRIAGE_VALUES, Phase, State, contract_made, hand_order
from tapete.scores import score_json

__all__ = ["DealSource", "MilGame", "deal_cards", "deal_deck", "deal_seeded", "open_view"]

#: (dealer) -> (three hands of 7 cards, talon of 3), in dealt order
DealSource = Callable[[int], tuple[list[list[int]], list[int]]]

_MIL_CARDS = sorted(bits(MIL_DECK))
#: the fresh deck of fair deals (tapete.fair: S C D H, each A T K Q J 9)
_FAIR_DECK = fresh_deck(MIL_DECK)


def deal_deck(deck: Sequence[int]) -> tuple[list[list[int]], list[int]]:
    """Mil's dealing rule on a shuffled deck of 24: three hands of 7 (seat 0 first), then
    the talon of 3."""
    return [list(deck[0:7]), list(deck[7:14]), list(deck[14:21])], list(deck[21:24])


def deal_cards(rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Shuffle the 24 cards: three hands of 7 and a talon of 3 (a uniform deal)."""
    deck = list(_MIL_CARDS)
    rng.shuffle(deck)
    return deal_deck(deck)


def deal_seeded(seed: bytes) -> tuple[list[list[int]], list[int]]:
    """The fair deal of ``seed`` (tapete.fair's shuffle, then :func:`deal_deck`)."""
    return deal_deck(shuffled(seed, _FAIR_DECK))


class MilGame:
    """A Mil game to 1000 (or 500) under one profile; see docs/dev/contract.md.

    >>> g = MilGame("club", seed=1)
    >>> g.turn in (0, 1, 2), g.phase in ("bidding", "redeal_offer")
    (True, True)
    """

    name = "mil"

    def __init__(
        self,
        profile: str | Profile,
        *,
        seed: int | None = None,
        players: Sequence[str] | None = None,
        max_deals: int | None = None,
        start: dict[str, Any] | None = None,
        standing: Standing | None = None,
        dealer: int | None = None,
        deal_source: DealSource | None = None,
        deal_seeds: DealSeeds | None = None,
    ) -> None:
        check_seed(seed)  # (its record must replay)
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        self.profile_name = self.profile.name
        self.seed = seed
        self.players = check_players(players, 3, "Mil") or ["Ana", "Bruno", "Carla"]
        self.max_deals = check_max_deals(max_deals, least=0)
        # (a copy: the caller's dict may change after; the record writes this one)
        self.start = json_copy(start) if start is not None else None
        self._rng = random.Random(seed)
        self.standing = standing or Standing()
        self.dealer = self._rng.randrange(3) if dealer is None else dealer
        self._deal_source = deal_source
        #: deal k's seed (a fair deal), or None: the rng (or ``deal_source``) deals it
        self._deal_seeds = deal_seeds
        #: per deal dealt so far: its commitment and seed (None: not a fair deal)
        self._fair: list[FairDeal | None] = []
        self.deals: list[tuple[State, DealResult]] = []
        self._sheet: list[dict[str, Any]] = []
        self._summaries: list[DealSummary] = []
        self.winner: int | None = None
        self.state: State | None = None
        self._stopped = False
        #: the game's part of the views as of the last build, and the standing, deal and
        #: end it was built for (``_public_view``): it only changes when a deal ends (a new
        #: deal, or none) or the game stops
        self._game_part: _GamePart | None = None
        #: the ``players`` of the last views built, given again while the names are the same
        self._players_shown: list[str] = []
        #: what the own keys of the seats not to act were last built from (``view_parts``)
        self._own_from: _OwnFrom | None = None
        #: per seat: its own keys last built while it was not to act, with its cards then
        #: and what else they were built from (the same ``_own_from`` object)
        self._owns: dict[int | None, tuple[_OwnFrom, int, dict[str, Any]]] = {}
        #: the deal's history, its last entry and its recorded actions at the last action
        #: (``_record_index``)
        self._counted: tuple[list[tuple[int, MilAction]], tuple[int, MilAction], int] | None = None
        self._deal()

    # ------------------------------------------------------------------ the flow
    def _deal(self) -> None:
        if self.max_deals is not None and len(self.deals) >= self.max_deals:
            self.state = None
            self._stopped = True
            return
        seed = self._deal_seeds(len(self.deals)) if self._deal_seeds is not None else None
        if self._deal_source is not None:  # a replay: the recorded cards (checked against
            hands, talon = self._deal_source(self.dealer)  # the seed by the reader)
        elif seed is not None:
            hands, talon = deal_seeded(seed)
        else:
            hands, talon = deal_cards(self._rng)
        self._fair.append(None if seed is None else FairDeal.of(seed))
        self.state = State(
            self.profile, self.dealer, hands, talon, self.standing.barrel_flags(self.profile)
        )

    @property
    def over(self) -> bool:
        return self.winner is not None or self._stopped

    @property
    def turn(self) -> int | None:
        return None if self.over or self.state is None else self.state.turn

    @property
    def phase(self) -> str:
        return "over" if self.over or self.state is None else self.state.phase.value

    @property
    def deal_number(self) -> int:
        """The number of the deal the views show, counting from 1 (annulled deals count):
        the current one, also when the game is stopped in its middle, or once the game is
        over the last one (:attr:`shown_deal`)."""
        return len(self.deals) + (self.state is not None)

    @property
    def scores(self) -> list[int | float]:
        """Each seat's points as JSON numbers (``125``, or ``62.5`` after a rospis half)."""
        return [score_json(s) for s in self.standing.scores]

    @property
    def finished_deals(self) -> list[DealSummary]:
        """The finished deals in order (annulled ones too), the same shape as Mariage's."""
        summaries = self._summaries
        for i in range(len(summaries), len(self.deals)):
            st, res = self.deals[i]
            row = self._sheet[i]
            summaries.append(
                DealSummary(
                    index=i,
                    dealer=st.dealer,
                    declarer=res.declarer,
                    made=row["made"],
                    deltas=tuple(row["deltas"]),
                    record=self._deal_record(i, st, res),
                )
            )
        return list(summaries)

    def legal_actions(self) -> list[MilAction]:
        return [] if self.over or self.state is None else self.state.legal_actions()

    def parse_action(self, data: dict[str, Any]) -> MilAction:
        return action_from_json(data)

    def can_apply(self, action: object) -> bool:
        """Whether ``action`` is legal for ``turn`` now."""
        return self.why_illegal(action) is None

    def why_illegal(self, action: object) -> str | None:
        """None when ``action`` is legal now, else the sentence :meth:`apply` would raise."""
        malformed = _ACTION_TYPES.problem(action)
        if malformed is not None:
            return malformed
        if self.over or self.state is None:
            return f"cannot {action}: the game is over"
        return self.state.why_illegal(action)

    def apply(self, action: MilAction) -> list[Event]:
        """Apply ``action`` for ``turn``; return the events it caused, in order (see
        docs/dev/protocol.md): the action, then a marriage, a trick or the talon turned up, and
        at a deal's end the deal's sheet row, then the next deal or the game's end.
        :class:`IllegalActionError` for an illegal action, and before anything changes for
        an object that is not a Mil action or whose fields are not of their declared types."""
        malformed = _ACTION_TYPES.problem(action)
        if malformed is not None:
            raise IllegalActionError(malformed)
        if self.over or self.state is None:
            raise IllegalActionError(f"cannot {action}: the game is over")
        st = self.state
        seat = st.turn
        n_tricks = len(st.tricks)
        n_marriages = len(st.marriages)
        auction = st.declarer < 0
        st.apply(action)
        events = [_action_event(st, seat, action, self._record_index(st.history))]
        if len(st.marriages) > n_marriages:
            suit = st.marriages[-1][1]
            events.append(
                Event(
                    "marriage",
                    {"seat": seat, "suit": SUIT_LETTERS[suit], "value": MARRIAGE_VALUES[suit]},
                )
            )
        if len(st.tricks) > n_tricks:
            leader, cards, winner = st.tricks[-1]
            events.append(
                Event(
                    "trick",
                    {
                        "winner": winner,
                        "cards": [
                            {"seat": (leader + i) % 3, "card": CARD_NAMES[c]}
                            for i, c in enumerate(cards)
                        ],
                        "points": sum(CARD_POINTS[c] for c in cards),
                    },
                )
            )
        elif auction and st.declarer >= 0:
            events.append(
                Event(
                    "talon",
                    {"seat": st.declarer, "cards": [CARD_NAMES[c] for c in st.dealt_talon]},
                )
            )
        if st.done:
            self._finish_deal(events)
        return events

    def _record_index(self, history: list[tuple[int, MilAction]]) -> int | None:
        """``record_index(history, _recorded)`` for the action just applied, without going
        through the whole deal's history at every action: the recorded actions before it
        were counted at the last action, when the one before it was the last (a deal's
        history only grows by new entries at its end, or loses its last ones: the same
        entry where the last count ended means the same entries up to it)."""
        last = history[-1]
        counted = self._counted
        if (
            counted is not None
            and counted[0] is history
            and len(history) > 1
            and counted[1] is history[-2]
        ):
            count = counted[2] + _recorded(last[1])
        else:
            count = sum(1 for _, action in history if _recorded(action))
        self._counted = (history, last, count)
        return count - 1 if _recorded(last[1]) else None

    def _finish_deal(self, events: list[Event]) -> None:
        st = self.state
        assert st is not None
        before = self.standing.scores
        result = settle(self.profile, self.standing, st)
        self.deals.append((st, result))
        row = {
            "dealer": st.dealer,
            **result.to_json(self.profile),
            "notes": list(result.notes),
            # (only when a cap held someone: every row of every sheet carried an empty list)
            **({"capped": list(result.capped)} if result.capped else {}),
            # (only when a penalty struck: the seat and why, ``scoring.PENALTIES``)
            **(
                {"penalties": [{"seat": p, "why": why} for p, why in result.penalties]}
                if result.penalties
                else {}
            ),
            # for the views: what the deal changed, so that no client works it out
            "deltas": [
                score_json(a - b) for a, b in zip(result.standing.scores, before, strict=True)
            ],
            "made": _made(result),
        }
        self._sheet.append(row)
        k = len(self.deals) - 1
        fair = self._fair[k]
        end: dict[str, Any] = {"deal": k, "row": row}
        if fair is not None:  # the deal is over: its seed is revealed
            end["fair"] = fair.to_json()
        events.append(Event("deal_end", end))
        self.standing = result.standing
        if result.winner is not None:
            self.winner = result.winner
            self.state = None
        else:
            if not result.annulled:
                self.dealer = (self.dealer + 1) % 3
            self._deal()
        new = self.state
        if new is None:
            events.append(Event("game_over", {"winner": self.winner, "scores": self.scores}))
        else:
            events.append(_deal_event(new, len(self.deals) + 1, self.commitment))

    def stop(self) -> None:
        """End the game here without a winner (the record keeps the finished deals)."""
        self._stopped = True

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "format": "tapete/1",
            "game": "mil",
            "profile": self.profile.name,
            "seed": self.seed,
            "players": list(self.players),
        }
        if self.start is not None:
            rec["start"] = json_copy(self.start)  # (the caller's to change, not the game's)
        rec["deals"] = [self._deal_record(k, st, res) for k, (st, res) in enumerate(self.deals)]
        rec["scores"] = self.standing.to_json(self.profile)["scores"]
        rec["winner"] = self.winner
        return rec

    @property
    def commitment(self) -> str | None:
        """The current deal's commitment (public), None when it is not a fair deal."""
        k = len(self.deals)
        fair = self._fair[k] if self.state is not None and k < len(self._fair) else None
        return None if fair is None else fair.commitment

    def _deal_record(self, k: int, st: State, res: DealResult) -> dict[str, Any]:
        deal: dict[str, Any] = {
            "dealer": st.dealer,
            "hands": [[card_name(c) for c in h] for h in st.dealt_hands],
            "talon": [card_name(c) for c in st.dealt_talon],
        }
        fair = self._fair[k]
        if fair is not None:  # a finished deal: commitment and seed
            deal["fair"] = fair.to_json()
        deal["actions"] = [{"seat": seat, **a.to_json()} for seat, a in st.history if _recorded(a)]
        deal["result"] = res.to_json(self.profile)
        return deal

    # ------------------------------------------------------------------ views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (``None``: a spectator), as a JSON-safe dict; ``ValueError``
        for a seat that is neither None nor 0, 1 or 2."""
        check_seat(seat, len(self.players))
        return self._view(seat, self._public_view())

    def views(self, seats: Sequence[int | None]) -> list[dict[str, Any]]:
        """The views of ``seats`` (equal to ``[self.view(s) for s in seats]``), built at once:
        what every seat sees alike is built once, and the views share those values (the
        same objects, some of them also in later views until the deal ends; a caller may
        replace a view's keys, never change a value in place)."""
        check_seats(seats, len(self.players))
        public = self._public_view()
        return [self._view(seat, public) for seat in seats]

    def view_parts(
        self, seats: Sequence[int | None]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """``views(seats)`` in two parts: the keys every seat sees alike, built once, and each
        seat's own keys (``seat`` among them), ``{**shared, **own}`` being its view (the
        keys in another order; no key in both). The server encodes the shared part once
        for all the seats of a broadcast (``Table.view_texts``). The own dict of a seat not
        to act may be the one an earlier call returned (see below): a caller never changes
        one in place, nor a value (``views``)."""
        check_seats(seats, len(self.players))
        game, deal = self._public_view()
        st = self.shown_deal
        if st is None or deal is None:
            return {**game, **_no_deal_shared()}, [
                {"seat": seat, **_no_deal_own()} for seat in seats
            ]
        over = self.over
        game.update(deal)  # (a copy of the game's part: ours)
        # A seat not to act (no legal actions, no reasons for a new deal) gets the very dict
        # it got last while its cards and what else its keys are made of are the same: at
        # most broadcasts the seat that neither acted nor is to act next, and the
        # spectators; the server then knows them unchanged without a look inside
        # (``patches.changes``).
        made_of = _own_from(st, over)
        if made_of != self._own_from:
            self._own_from = made_of
        made_of = self._own_from
        turn = st.turn if st.phase is not _DONE else None
        kept = self._owns
        hands = st.hands
        owns = []
        for seat in seats:
            cards = 0 if seat is None else hands[seat]
            to_act = seat is not None and seat == turn
            if not to_act:
                last = kept.get(seat)
                if last is not None and last[0] is made_of and last[1] == cards:
                    owns.append(last[2])
                    continue
            own: dict[str, Any] = {"seat": seat, **st.seat_view(seat)}
            if over:
                _stopped(own)
            if not to_act:
                kept[seat] = (made_of, cards, own)
            owns.append(own)
        return game, owns

    @property
    def shown_deal(self) -> State | None:
        """The deal the views show: the one being played, or, once the game is over, the
        last one as it ended (its tricks, talon, contract and marriages are public; each
        seat sees its own cards of it only, as it did then). None before any deal ended."""
        if self.state is not None or not self.deals:
            return self.state
        return self.deals[-1][0]

    def _public_view(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The game's part of every view (all but ``seat``) and the deal's
        (``State.public_view``; None between deals)."""
        st = self.state
        over = self.over
        built = self._game_part
        if built is None or built[0] is not self.standing or built[1] is not st or built[2] != over:
            # a deal ended, the game stopped: the keys that only change then, built once
            built = self._game_part = (self.standing, st, over, self._game_keys())
        game = built[3].copy()
        players = self._players_shown
        if players != self.players:  # (the server names a seat when it is taken, in place)
            players = self._players_shown = list(self.players)
        game["players"] = players
        game["phase"] = self.phase
        game["turn"] = self.turn
        shown = self.shown_deal
        return game, None if shown is None else shown.public_view()

    def _game_keys(self) -> dict[str, Any]:
        """The game's part of the views, in their order; ``players``, ``phase`` and ``turn``
        hold places that ``_public_view`` fills at every build."""
        p = self.profile
        standing = self.standing.to_json(p)
        return {
            "game": "mil",
            "profile": p.name,
            "players": None,
            "phase": None,
            "turn": None,
            "over": self.over,
            "winner": self.winner,
            "deal_number": self.deal_number,
            # (once the game is over, the dealer of the last deal, which the views show)
            "dealer": self.dealer if self.shown_deal is None else self.shown_deal.dealer,
            "target": p.target,
            "barrel_from": p.barrel_from,
            # club: a player in the barrel has this many deals to get out (scoring.py)
            "barrel_attempts_max": BARREL_ATTEMPTS if p.barrel == "club" else None,
            # False: the profile has no bolts (casa); "bolts" then stays all zero
            "has_bolts": p.bolts,
            **standing,
            "sheet": list(self._sheet),
            # the current deal's commitment (tapete.fair); None: not a fair deal
            "commitment": self.commitment,
        }

    def _view(
        self, seat: int | None, public: tuple[dict[str, Any], dict[str, Any] | None]
    ) -> dict[str, Any]:
        game, deal = public
        v: dict[str, Any] = {"game": game["game"], "profile": game["profile"], "seat": seat, **game}
        st = self.shown_deal
        if st is None or deal is None:
            v.update(_no_deal_shared())
            v.update(_no_deal_own())
            return v
        # the deal's part of the view after the game's, whose keys keep their places and
        # win (phase "over", turn None once over: _GAME_WINS)
        v.update(st.view(seat, deal))
        for key in _GAME_WINS:
            v[key] = game[key]
        if self.over:
            _stopped(v)
        return v


def _stopped(view: dict[str, Any]) -> None:
    """The deal of a game that is over (stopped in its middle, or the last one as it ended):
    nobody acts any more, and no hand's points are counted (a view's keys)."""
    view.update(legal=[], redeal_reasons=[], redeal_cards={}, hand_points=None)


def _no_deal_shared() -> dict[str, Any]:
    """The deal's keys of a view between deals that every seat sees alike (fresh values:
    ``State.public_view`` of no deal)."""
    return {
        "hand_counts": [0, 0, 0],
        "bids": [],
        "high_bid": None,
        "declarer": None,
        "bid": None,
        "contract": None,
        "talon": None,
        "talon_count": 0,
        "trump": None,
        "marriages": [],
        "trick": [],
        "leader": None,
        "tricks": [],
        "tricks_won": [0, 0, 0],
        "captured_points": [0, 0, 0],
        "talon_points": None,
    }


def _no_deal_own() -> dict[str, Any]:
    """A seat's own keys of a view between deals (fresh values: ``State.seat_view`` of no
    deal)."""
    return {
        "legal": [],
        "hand": [],
        "given": [],
        "held_marriages": [],
        "pair_cards": [],
        "redeal_reasons": [],
        "redeal_cards": {},
        "bid_limit_reason": None,
        "hand_points": None,
    }


#: the Mil action classes and their fields' types (``MilGame.apply`` checks what it gets)
_ACTION_TYPES = ActionTypes("Mil", get_args(MilAction))

_DONE = Phase.DONE
_BIDDING = Phase.BIDDING

#: what the own keys of a seat not to act are made of besides its cards
#: (``MilGame.view_parts``): the deal, whether the game is over, the gives, the declarer,
#: whether the auction is on, and the high bid
_OwnFrom = tuple[State, bool, tuple[tuple[int, int], ...], int, bool, int]


def _own_from(st: State, over: bool) -> _OwnFrom:
    """Everything besides its cards that ``State.seat_view`` reads for a seat that is not to
    act (no legal actions, no reasons for a new deal), and ``over`` (``_stopped``): the gives
    as the seat may see them (``gives`` and ``declarer``), and why its bids stop at 120
    (``phase``, ``high``; its limit and the profile are the deal's). A change of
    ``State.seat_view`` that reads anything else must add it here
    (``tests/test_engine_contract.py`` compares the views with those of a game built afresh
    after every action of whole games)."""
    return (st, over, tuple(st.gives), st.declarer, st.phase is _BIDDING, st.high)


#: the keys of both parts of a view, the game's and the deal's (``State.view``): the game's
#: value is the view's
_GAME_WINS = ("phase", "turn", "dealer")

#: ``MilGame._game_part``: the standing, deal and ``over`` it was built for, and the game's
#: part of the views then (every deal's end brings a new ``State``, or None)
_GamePart = tuple[Standing, "State | None", bool, dict[str, Any]]


def open_view(st: State) -> dict[str, Any]:
    """Deal ``st`` with every card face up, for the replay of a finished game (never for a
    table in play): the spectator's view of the deal (``st.view(None)``) with ``hands``
    (each seat's hand, in the order of its own view), the gives with their cards, ``turn``
    None once the deal is over, and ``hidden``: the cards in no hand that nobody has seen
    (the talon while it lies face down). :data:`tapete.mil.kind.KIND` offers it as
    ``open_view``."""
    v = st.view(None)
    if st.done:  # nobody is to act in a finished deal
        v["turn"] = None
    v["hands"] = [st.view(s)["hand"] for s in range(3)]
    v["given"] = [{"from": st.declarer, "to": to, "card": CARD_NAMES[c]} for c, to in st.gives]
    face_down = st.declarer < 0  # the declarer takes the talon face up
    talon = sorted(bits(st.talon), key=hand_order) if face_down else []
    v["hidden"] = [CARD_NAMES[c] for c in talon]
    return v


def _recorded(action: MilAction) -> bool:
    """Whether a record writes ``action``: every action but a declined redeal offer
    (``KeepDeal``), which the reader puts back (docs/records.md)."""
    return not isinstance(action, KeepDeal)


def _action_event(st: State, seat: int, action: MilAction, index: int | None) -> Event:
    """The action as every viewer may see it, with its ``index`` in the deal's record: a
    give's card only for the giver and the receiver; a redeal with the cards that justify it
    (shown to everyone)."""
    data = action.to_json()
    if action.__class__ is Play:
        return Event("action", {"seat": seat, "action": data, "index": index})
    if isinstance(action, Give):
        hidden = {**data, "card": None}
        mine = {"action": data}
        return Event(
            "action",
            {"seat": seat, "action": hidden, "index": index},
            {seat: mine, action.to: mine},
        )
    if isinstance(action, Redeal):
        shown = [CARD_NAMES[c] for c in st.redeal_proof(seat, action.reason)]
        return Event("action", {"seat": seat, "action": data, "index": index, "shown": shown})
    return Event("action", {"seat": seat, "action": data, "index": index})


def _deal_event(st: State, deal_number: int, commitment: str | None) -> Event:
    """A new deal: its number, dealer (and a fair deal's commitment) for everyone, each
    seat's 7 cards for that seat."""
    public: dict[str, Any] = {"deal_number": deal_number, "dealer": st.dealer}
    if commitment is not None:
        public["commitment"] = commitment
    return Event(
        "deal",
        public,
        {
            s: {"hand": [CARD_NAMES[c] for c in sorted(st.dealt_hands[s], key=hand_order)]}
            for s in range(3)
        },
    )


def _made(res: DealResult) -> bool | None:
    """Whether the declarer made the contract (None for an annulled deal or a rospis)."""
    if res.annulled or res.rospis or res.raw is None or res.declarer is None:
        return None
    return res.contract is not None and contract_made(res.raw[res.declarer], res.contract)
