"""One Mil deal as an explicit state machine: redeal offers, auction, talon, giving,
contract, the four-nines offer, eight tricks.

The state is mutable and cheap to undo: :meth:`State.push` saves a handful of fields and
:meth:`State.pop` restores them (no deepcopy). Hands, tricks and the talon are int bitmasks
of cards (see :mod:`tapete.cards`). Scoring a finished deal against the game's standing is
:mod:`tapete.mil.scoring`'s job; the deal itself knows only what happens at the table.

>>> from tapete.mil import CLUB, State, Bid, Pass
>>> from tapete.cards import parse_card as c
>>> hands = [[c(x) for x in h.split()] for h in
...     ("AH TH KH QH JS 9C 9D", "AS TS KS QS JH 9H 9S", "AC TC KC QC JC AD TD")]
>>> st = State(CLUB, dealer=2, hands=hands, talon=[c("KD"), c("QD"), c("JD")])
>>> st.phase, st.turn, st.legal_actions()
(<Phase.BIDDING: 'bidding'>, 0, [Bid(value=100)])
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final, cast

from tapete.cards import (
    ABOVE,
    CARD_NAMES,
    CARD_POINTS,
    KING,
    NINE,
    PAIR_MASKS,
    QUEEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    beats,
    bits,
    card_name,
    mask_of,
    mask_points,
    trick_winner,
)
from tapete.errors import IllegalActionError
from tapete.mil.actions import (
    Bid,
    Contract,
    Give,
    KeepDeal,
    MilAction,
    Pass,
    Play,
    Redeal,
    Rospis,
)
from tapete.mil.profiles import Profile

__all__ = [
    "MARRIAGE_VALUES",
    "PAIR_MASKS",
    "Phase",
    "State",
    "contract_made",
    "hand_order",
    "held_marriages",
    "marriages_value",
    "play_mask_of",
    "trick_winner",
]

#: Marriage bonus by suit: spades 40, clubs 60, diamonds 80, hearts 100.
MARRIAGE_VALUES: Final = (40, 60, 80, 100)
_P0, _P1, _P2, _P3 = PAIR_MASKS
NINES_MASK: Final = sum(1 << (s * 8 + NINE) for s in range(4))
_MAX_DEAL_ACTIONS: Final = 64
_POINTS: Final = CARD_POINTS

_PASS: Final = Pass()
_KEEP: Final = KeepDeal()
_ROSPIS: Final = Rospis()
_BIDS: Final = {v: Bid(v) for v in range(100, 405, 5)}
_CONTRACTS: Final = {v: Contract(v) for v in range(100, 405, 5)}
_PLAYS: Final = {(c, m): Play(c, m) for c in range(32) for m in (False, True)}
_GIVES: Final = {(c, t): Give(c, t) for c in range(32) for t in range(3)}
_LOW_TALON: Final = Redeal("low_talon")
#: (lowest, highest, step) -> pass and the bids in that range (a few hundred entries at most)
_BID_LISTS: dict[tuple[int, int, int], tuple[MilAction, ...]] = {}
_CONTRACT_LISTS: dict[tuple[int, int, int], tuple[Contract, ...]] = {}
#: plays without a marriage for the cards of a mask restricted to spades+clubs (the low 16
#: bits) or diamonds+hearts (the high 16 bits), weakest int first; filled on demand (at most
#: 2 * 4096 entries for Mil cards)
_HALF_PLAYS: dict[int, tuple[Play, ...]] = {}
#: the same for gives to one seat (key: half mask | seat << 32)
_HALF_GIVES: dict[int, tuple[Give, ...]] = {}
_LOW_HALF: Final = 0xFFFF
_HIGH_HALF: Final = 0xFFFF0000


def _half_gives(mask: int, to: int) -> tuple[Give, ...]:
    key = mask | to << 32
    gives = _HALF_GIVES.get(key)
    if gives is None:
        gives = _HALF_GIVES[key] = tuple(_GIVES[c, to] for c in bits(mask))
    return gives


def _half_plays(mask: int) -> tuple[Play, ...]:
    plays = _HALF_PLAYS.get(mask)
    if plays is None:
        plays = _HALF_PLAYS[mask] = tuple(_PLAYS[c, False] for c in bits(mask))
    return plays


class Phase(StrEnum):
    REDEAL_OFFER = "redeal_offer"
    BIDDING = "bidding"
    TALON = "talon"
    GIVE = "give"
    CONTRACT = "contract"
    NINES_OFFER = "nines_offer"
    PLAY = "play"
    DONE = "done"


# Module constants: reading ``Phase.PLAY`` goes through the enum class (about 0.3 us each in
# CPython 3.11), and the hot paths compare phases many times per action.
_PH_REDEAL_OFFER: Final = Phase.REDEAL_OFFER
_PH_BIDDING: Final = Phase.BIDDING
_PH_TALON: Final = Phase.TALON
_PH_GIVE: Final = Phase.GIVE
_PH_CONTRACT: Final = Phase.CONTRACT
_PH_NINES_OFFER: Final = Phase.NINES_OFFER
_PH_PLAY: Final = Phase.PLAY
_PH_DONE: Final = Phase.DONE


def held_marriages(hand: int) -> list[int]:
    """Suits whose K and Q are both in ``hand``."""
    return [s for s in range(4) if hand & PAIR_MASKS[s] == PAIR_MASKS[s]]


def marriages_value(hand: int) -> int:
    """The total value of the marriages (K and Q of a suit) in ``hand``."""
    return (
        (40 if hand & _P0 == _P0 else 0)
        + (60 if hand & _P1 == _P1 else 0)
        + (80 if hand & _P2 == _P2 else 0)
        + (100 if hand & _P3 == _P3 else 0)
    )


def contract_made(raw: int, contract: int) -> bool:
    """Whether a declarer with ``raw`` points (captured cards plus announced marriages) has
    made ``contract``: at least as many points as the contract."""
    return raw >= contract


def play_mask_of(hand: int, trick: list[int], trump: int, must_head: bool) -> int:
    """The cards of ``hand`` that may be played to ``trick`` (the cards already on the table,
    in play order; empty: a lead) with ``trump`` (-1: none yet): follow suit, else trump,
    else anything; under ``must_head`` (casa) also beat the led suit's top card, or overtrump.
    A pure function of its arguments: the one statement of the card-play rule, for the engine's
    :meth:`State.play_mask` and for any code asking "was this card legal with that hand".

    >>> from tapete.cards import CardSet
    >>> hand = CardSet.parse("9H KH AS").mask
    >>> str(CardSet(play_mask_of(hand, [CardSet.parse("TH").mask.bit_length() - 1], -1, True)))
    '9H KH'
    """
    if not trick:
        return hand
    led = trick[0] >> 3
    same = hand & SUIT_MASKS[led]
    if not must_head:
        if same:
            return same
        if trump >= 0 and hand & SUIT_MASKS[trump]:
            return hand & SUIT_MASKS[trump]
        return hand
    if same:
        top = trick[0]
        if len(trick) == 2:
            second = trick[1]
            if second >> 3 == led:
                if second > top:
                    top = second
            elif trump >= 0 and second >> 3 == trump:
                # the trick is already trumped: any card of the led suit
                return same
        return same & ABOVE[top] or same
    if trump >= 0:
        trumps = hand & SUIT_MASKS[trump]
        if trumps:
            top = -1
            for c in trick:
                if c >> 3 == trump and c > top:
                    top = c
            if top >= 0:
                return trumps & ABOVE[top] or trumps
            return trumps
    return hand


def hand_order(c: int) -> tuple[int, int]:
    """The sort key of a hand for people: hearts, spades, diamonds, clubs (the colours
    alternate), strongest first inside a suit."""
    return ((3, 0, 2, 1).index(c >> 3), -c)


#: every card index (0..31) in :func:`hand_order`: a hand in that order is the cards of
#: this tuple that it holds (a view sorts a hand without a key function per card)
BY_HAND_ORDER: tuple[int, ...] = tuple(sorted(range(32), key=hand_order))


def _names(mask: int) -> str:
    return ", ".join(card_name(c) for c in sorted(bits(mask), reverse=True)) or "nothing"


class State:
    """A Mil deal from the dealt cards to the last trick (or an annulment or rospis)."""

    __slots__ = (
        "_undo",
        "bid",
        "captured",
        "contract",
        "dealer",
        "dealt_hands",
        "dealt_talon",
        "declarer",
        "gives",
        "hands",
        "high",
        "history",
        "in_barrel",
        "leader",
        "limits",
        "marriages",
        "mpoints",
        "offers",
        "passed",
        "phase",
        "profile",
        "redeal_reason",
        "rospis",
        "talon",
        "trick",
        "tricks",
        "tricks_won",
        "trump",
        "turn",
    )

    def __init__(
        self,
        profile: Profile,
        dealer: int,
        hands: Sequence[Sequence[int]],
        talon: Sequence[int],
        in_barrel: Sequence[bool] = (False, False, False),
    ) -> None:
        self.profile = profile
        self.dealer = dealer
        self.dealt_hands: tuple[tuple[int, ...], ...] = tuple(tuple(h) for h in hands)
        self.dealt_talon: tuple[int, ...] = tuple(talon)
        #: who was in the barrel when the deal started (club: no rospis, contract >= 120)
        self.in_barrel: tuple[bool, ...] = tuple(in_barrel)
        self.hands: list[int] = [mask_of(h) for h in hands]
        #: each seat's bid limit: 120 + the marriages in its 7 dealt cards (fixed for the deal)
        self.limits: tuple[int, ...] = tuple(120 + marriages_value(h) for h in self.hands)
        self.talon = mask_of(talon)
        self.history: list[tuple[int, MilAction]] = []
        self.high = 0
        self.passed = 0
        self.declarer = -1
        self.bid = 0
        self.contract = 0
        self.rospis = False
        self.redeal_reason: str | None = None
        self.gives: list[tuple[int, int]] = []
        self.leader = -1
        self.trick: list[int] = []
        self.trump = -1
        self.captured = [0, 0, 0]
        self.mpoints = [0, 0, 0]
        self.tricks_won = [0, 0, 0]
        self.marriages: list[tuple[int, int]] = []
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self._undo: list[tuple[Any, ...]] = []
        opener = (dealer + 1) % 3
        below = profile.low_points_below
        hs = self.hands
        self.offers = [
            s
            for s in (opener, (opener + 1) % 3, dealer)
            # a quick test first: four 9s or few points, then the exact reasons
            if (hs[s] & NINES_MASK == NINES_MASK or mask_points(hs[s]) < below)
            and self._pre_auction_reasons(s)
        ]
        if self.offers:
            self.phase = _PH_REDEAL_OFFER
            self.turn = self.offers[0]
        else:
            self.phase = _PH_BIDDING
            self.turn = opener

    # ------------------------------------------------------------------ queries
    @property
    def done(self) -> bool:
        return self.phase is _PH_DONE

    @property
    def annulled(self) -> bool:
        return self.redeal_reason is not None

    @property
    def tricks_done(self) -> int:
        return len(self.tricks)

    def raw(self) -> tuple[int, int, int]:
        """Each seat's deal total: captured card points plus announced marriages."""
        c, m = self.captured, self.mpoints
        return (c[0] + m[0], c[1] + m[1], c[2] + m[2])

    def bid_limit(self, seat: int) -> int:
        """The highest bid ``seat`` may make: 120 + the marriages in its 7 dealt cards."""
        return self.limits[seat]

    def contract_range(self) -> tuple[int, int]:
        """Lowest and highest contract the declarer may fix now."""
        p = self.profile
        low = self.bid
        if p.barrel == "club" and self.in_barrel[self.declarer]:
            low = max(low, p.barrel_min_contract)
        high = max(self.bid, 120 + marriages_value(self.hands[self.declarer]))
        return low, max(low, high)

    def _pre_auction_reasons(self, seat: int) -> list[str]:
        # self.hands[seat] is still the dealt hand: offers come before the talon is taken
        hand = self.hands[seat] if self.declarer < 0 else mask_of(self.dealt_hands[seat])
        reasons = []
        if hand & NINES_MASK == NINES_MASK:
            reasons.append("four_nines")
        p = self.profile
        if mask_points(hand) < p.low_points_below and not (
            p.low_points_needs_no_marriage and held_marriages(hand)
        ):
            reasons.append("low_points")
        return reasons

    def _offer_reasons(self, seat: int) -> list[str]:
        if self.phase is _PH_REDEAL_OFFER:
            return self._pre_auction_reasons(seat)
        if self.phase is _PH_NINES_OFFER:
            return ["four_nines"]
        return []

    def play_mask(self) -> int:
        """The cards the seat to act may play now (fast path for search)."""
        return play_mask_of(self.hands[self.turn], self.trick, self.trump, self.profile.must_head)

    def can_announce(self, c: int) -> bool:
        """Leading ``c`` now may announce a marriage (trick 2 on, K or Q of a held pair)."""
        if self.trick or not self.tricks:
            return False
        r = c & 7
        if r != KING and r != QUEEN:
            return False
        pair = PAIR_MASKS[c >> 3]
        return self.hands[self.turn] & pair == pair

    def _holds_pair(self, seat: int) -> bool:
        h = self.hands[seat]
        return h & _P0 == _P0 or h & _P1 == _P1 or h & _P2 == _P2 or h & _P3 == _P3

    def legal_actions(self) -> list[MilAction]:
        """Every action the seat ``turn`` may take now (empty once the deal is done)."""
        phase = self.phase
        if phase is _PH_PLAY:
            mask = self.play_mask()
            h = self.hands[self.turn]
            if (
                self.trick
                or not self.tricks
                or not (h & _P0 == _P0 or h & _P1 == _P1 or h & _P2 == _P2 or h & _P3 == _P3)
            ):
                # no marriage can be announced: the plain plays, weakest int first
                try:
                    return [*_HALF_PLAYS[mask & _LOW_HALF], *_HALF_PLAYS[mask & _HIGH_HALF]]
                except KeyError:
                    return [*_half_plays(mask & _LOW_HALF), *_half_plays(mask & _HIGH_HALF)]
            out: list[MilAction] = []
            auto = self.profile.auto_marriage
            for c in bits(mask):
                if self.can_announce(c):
                    if not auto:
                        out.append(_PLAYS[c, False])
                    out.append(_PLAYS[c, True])
                else:
                    out.append(_PLAYS[c, False])
            return out
        if phase is _PH_BIDDING:
            if self.high == 0:
                return [_BIDS[100]]
            low, high = self._bid_range(self.turn)
            key = (low, high, self.profile.step)
            bids = _BID_LISTS.get(key)
            if bids is None:
                bids = _BID_LISTS[key] = (_PASS, *(_BIDS[v] for v in range(low, high + 1, key[2])))
            return list(bids)
        if phase is _PH_TALON or phase is _PH_GIVE:
            out = []
            if phase is _PH_TALON:
                p = self.profile
                if p.low_talon_below is not None and self._talon_points() < p.low_talon_below:
                    out.append(_LOW_TALON)
                if p.rospis and not self.in_barrel[self.declarer]:
                    out.append(_ROSPIS)
            hand = self.hands[self.declarer]
            for to in self._give_targets():
                out.extend(_half_gives(hand & _LOW_HALF, to))
                out.extend(_half_gives(hand & _HIGH_HALF, to))
            return out
        if phase is _PH_CONTRACT:
            low, high = self.contract_range()
            key = (low, high, self.profile.step)
            contracts = _CONTRACT_LISTS.get(key)
            if contracts is None:
                contracts = _CONTRACT_LISTS[key] = tuple(
                    _CONTRACTS[v] for v in range(low, high + 1, key[2])
                )
            return list(contracts)
        if phase is _PH_REDEAL_OFFER or phase is _PH_NINES_OFFER:
            return [*(Redeal(r) for r in self._offer_reasons(self.turn)), _KEEP]
        return []

    def _bid_range(self, seat: int) -> tuple[int, int]:
        p = self.profile
        low = self.high + p.step
        high = self.limits[seat]
        if p.stop_at_120 and self.high < 120:
            high = min(high, 120)
        return low, high

    def _talon_points(self) -> int:
        return mask_points(mask_of(self.dealt_talon))

    def _give_targets(self) -> list[int]:
        d = self.declarer
        left, right = (d + 1) % 3, (d + 2) % 3
        done = [to for _, to in self.gives]
        if self.profile.give_left_first:
            return [left] if not done else ([right] if len(done) == 1 else [])
        return [t for t in (left, right) if t not in done]

    # ------------------------------------------------------------------ actions
    def can_apply(self, action: object) -> bool:
        """Whether ``action`` is legal for the seat ``turn`` now."""
        return self._why_illegal(action) is None

    def why_illegal(self, action: object) -> str | None:
        """None when ``action`` is legal now, else the sentence :meth:`apply` would raise."""
        why = self._why_illegal(action)
        if why is None:
            return None
        return f"seat {self.turn} cannot {action}: {why}"

    def _why_illegal(self, action: object) -> str | None:
        """None when legal, else the reason as the end of a sentence."""
        phase = self.phase
        seat = self.turn
        if phase is _PH_DONE:
            return "the deal is over"
        if isinstance(action, Play):
            if phase is not _PH_PLAY:
                return f"cards are played only after the contract (now: {phase.value})"
            c = action.card
            hand = self.hands[seat]
            if not hand >> c & 1:
                return f"{card_name(c)} is not in its hand (holds {_names(hand)})"
            mask = self.play_mask()
            if not mask >> c & 1:
                led = SUIT_NAMES[self.trick[0] >> 3]
                if self.profile.must_head:
                    need = f"must head the trick ({led} led"
                    if self.trump >= 0:
                        need += f", {SUIT_NAMES[self.trump]} trump"
                    need += ")"
                elif mask & SUIT_MASKS[self.trick[0] >> 3]:
                    need = f"must follow {led}"
                else:
                    need = f"must play a trump ({SUIT_NAMES[self.trump]})"
                return f"{need}: may play {_names(mask)}"
            can = self.can_announce(c)
            if action.marriage and not can:
                if self.trick:
                    return "a marriage is announced only when leading"
                if not self.tricks:
                    return "no marriage may be announced on the first trick"
                return f"{card_name(c)} is not the K or Q of a pair held in hand"
            if can and not action.marriage and self.profile.auto_marriage:
                return (
                    f"in {self.profile.name} leading {card_name(c)} of a held pair always "
                    'announces the marriage ("marriage": true)'
                )
            return None
        if phase is _PH_BIDDING:
            if isinstance(action, Pass):
                return "the opener must bid 100" if self.high == 0 else None
            if not isinstance(action, Bid):
                return f"the auction is on: bid or pass (not {action})"
            v = action.value
            if self.high == 0:
                return None if v == 100 else "the opener must bid exactly 100"
            low, high = self._bid_range(seat)
            if v % self.profile.step:
                return f"bids are multiples of {self.profile.step}"
            if v < low:
                return f"a bid must be at least {low} (the bid is {self.high})"
            if v > high:
                limit = self.bid_limit(seat)
                if self.profile.stop_at_120 and self.high < 120 and v <= limit:
                    return "nobody may bid above 120 before someone has bid 120"
                return (
                    f"the limit is {limit} (120 + marriages in hand: "
                    f"{marriages_value(mask_of(self.dealt_hands[seat]))})"
                )
            return None
        if phase is _PH_REDEAL_OFFER or phase is _PH_NINES_OFFER:
            if isinstance(action, KeepDeal):
                return None
            if isinstance(action, Redeal):
                reasons = self._offer_reasons(seat)
                if action.reason in reasons:
                    return None
                return f"its hand does not allow a redeal for {action.reason}"
            return f"it must first say whether it asks for a redeal (not {action})"
        if phase is _PH_TALON or phase is _PH_GIVE:
            if isinstance(action, Give):
                if not self.hands[seat] >> action.card & 1:
                    return f"{card_name(action.card)} is not in its hand"
                targets = self._give_targets()
                if action.to not in targets:
                    if action.to == seat:
                        return "the declarer gives to the opponents, not to itself"
                    if self.profile.give_left_first:
                        return f"the next card goes to seat {targets[0]}"
                    return f"seat {action.to} already got its card"
                return None
            if phase is _PH_TALON and isinstance(action, Rospis):
                if not self.profile.rospis:
                    return f"there is no rospis in {self.profile.name}"
                if self.in_barrel[seat]:
                    return "a declarer in the barrel may not concede (rospis)"
                return None
            if phase is _PH_TALON and isinstance(action, Redeal):
                p = self.profile
                if action.reason != "low_talon" or p.low_talon_below is None:
                    return f"no redeal for {action.reason} after the auction"
                if self._talon_points() >= p.low_talon_below:
                    return (
                        f"the talon has {self._talon_points()} points "
                        f"(a redeal needs < {p.low_talon_below})"
                    )
                return None
            if phase is _PH_GIVE:
                return "the declarer must give the second card"
            return f"the declarer must give a card to each opponent (not {action})"
        if phase is _PH_CONTRACT:
            if not isinstance(action, Contract):
                return f"the declarer must fix the contract (not {action})"
            low, high = self.contract_range()
            v = action.value
            if v % self.profile.step:
                return f"contracts are multiples of {self.profile.step}"
            if v < low:
                if v >= self.bid:
                    return f"a declarer in the barrel must play at least {low}"
                return f"the contract must be at least the bid ({self.bid})"
            if v > high:
                return f"the limit is {high} (120 + marriages in the 8-card hand)"
            return None
        # the only phase left is the card play, and this is not a Play
        return f"cards are being played: play a card (not {action})"

    def apply(self, action: object) -> None:
        """Apply ``action`` for the seat ``turn``; raise :class:`IllegalActionError` (also for
        an object that is not a Mil action: typed ``object`` so that compiled with mypyc, this
        stays an IllegalActionError, not a TypeError)."""
        if self.phase is _PH_PLAY and action.__class__ is Play:
            # fast path for the common case: a legal card, the right marriage flag
            c = action.card
            if 0 <= c < 32 and self.play_mask() >> c & 1:
                if self.trick or not self.tricks:
                    if not action.marriage:  # following, or the first lead: never announces
                        self.history.append((self.turn, action))
                        self.play_card(c)
                        return
                else:
                    can = self.can_announce(c)
                    if action.marriage is can or (can and not self.profile.auto_marriage):
                        self.history.append((self.turn, action))
                        self.play_card(c, action.marriage)
                        return
        elif self.phase is _PH_BIDDING and self.high:
            # fast path for the auction after the opening: a pass, or a bid in range
            if action.__class__ is Pass:
                self._do(action)
                return
            if action.__class__ is Bid:
                low, high = self._bid_range(self.turn)
                v = action.value
                if low <= v <= high and not v % self.profile.step:
                    self._do(action)
                    return
        why = self.why_illegal(action)
        if why is not None:
            raise IllegalActionError(why)
        self._do(cast(MilAction, action))  # a legal action is a Mil action

    def push(self, action: object) -> None:
        """Apply ``action`` and remember how to undo it with :meth:`pop`.

        An illegal action raises :class:`IllegalActionError` and leaves nothing to pop.
        """
        snapshot = self._snapshot()
        self.apply(action)
        self._undo.append(snapshot)

    def pop(self) -> MilAction:
        """Undo the last :meth:`push` and return its action (``IndexError`` if none is left)."""
        if not self._undo:
            raise IndexError("pop from a deal with no pushed action")
        (
            hands,
            self.talon,
            self.phase,
            self.turn,
            offers,
            self.high,
            self.passed,
            self.declarer,
            self.bid,
            self.contract,
            self.rospis,
            self.redeal_reason,
            n_gives,
            self.leader,
            trick,
            self.trump,
            captured,
            mpoints,
            won,
            n_marriages,
            n_tricks,
            n_history,
        ) = self._undo.pop()
        self.hands = list(hands)
        self.offers = list(offers)
        self.trick = list(trick)
        self.captured = list(captured)
        self.mpoints = list(mpoints)
        self.tricks_won = list(won)
        del self.gives[n_gives:]
        del self.marriages[n_marriages:]
        del self.tricks[n_tricks:]
        action: MilAction = self.history[n_history][1]
        del self.history[n_history:]
        return action

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            tuple(self.hands),
            self.talon,
            self.phase,
            self.turn,
            tuple(self.offers),
            self.high,
            self.passed,
            self.declarer,
            self.bid,
            self.contract,
            self.rospis,
            self.redeal_reason,
            len(self.gives),
            self.leader,
            tuple(self.trick),
            self.trump,
            tuple(self.captured),
            tuple(self.mpoints),
            tuple(self.tricks_won),
            len(self.marriages),
            len(self.tricks),
            len(self.history),
        )

    def _do(self, action: MilAction) -> None:
        seat = self.turn
        self.history.append((seat, action))
        if isinstance(action, Play):
            self.play_card(action.card, action.marriage)
            return
        if isinstance(action, Bid):
            self.high = action.value
            self._next_bidder(seat)
        elif isinstance(action, Pass):
            self.passed |= 1 << seat
            self._next_bidder(seat)
        elif isinstance(action, Give):
            self.hands[seat] &= ~(1 << action.card)
            self.hands[action.to] |= 1 << action.card
            self.gives.append((action.card, action.to))
            if len(self.gives) == 2:
                self.phase = _PH_CONTRACT
            else:
                self.phase = _PH_GIVE
        elif isinstance(action, Contract):
            self.contract = action.value
            nines = (
                [s for s in range(3) if self.hands[s] & NINES_MASK == NINES_MASK]
                if self.profile.nines_after_contract
                else []
            )
            if nines:
                self.phase = _PH_NINES_OFFER
                self.turn = nines[0]
            else:
                self._start_play()
        elif isinstance(action, KeepDeal):
            if self.phase is _PH_NINES_OFFER:
                self._start_play()
            else:
                self.offers.pop(0)
                if self.offers:
                    self.turn = self.offers[0]
                else:
                    self.phase = _PH_BIDDING
                    self.turn = (self.dealer + 1) % 3
        elif isinstance(action, Redeal):
            self.redeal_reason = action.reason
            self.phase = _PH_DONE
        elif isinstance(action, Rospis):
            self.rospis = True
            self.contract = self.bid
            self.phase = _PH_DONE

    def _next_bidder(self, seat: int) -> None:
        if self.passed.bit_count() == 2:
            d = next(s for s in range(3) if not self.passed >> s & 1)
            self.declarer = d
            self.bid = self.high
            self.hands[d] |= self.talon
            self.talon = 0
            self.phase = _PH_TALON
            self.turn = d
            return
        nxt = (seat + 1) % 3
        while self.passed >> nxt & 1:
            nxt = (nxt + 1) % 3
        self.turn = nxt

    def _start_play(self) -> None:
        self.phase = _PH_PLAY
        self.leader = self.declarer
        self.turn = self.declarer

    def play_card(self, c: int, marriage: bool = False) -> None:
        """Play ``c`` for the seat ``turn`` without checks (search fast path)."""
        seat = self.turn
        trick = self.trick
        if not trick:
            self.leader = seat
            if marriage:
                s = c >> 3
                self.trump = s
                self.marriages.append((seat, s))
                self.mpoints[seat] += MARRIAGE_VALUES[s]
        self.hands[seat] &= ~(1 << c)
        trick.append(c)
        if len(trick) < 3:
            self.turn = (seat + 1) % 3
            return
        # the trick's winner (tapete.cards.trick_winner, unrolled for the three cards)
        a, b, c3 = trick
        trump = self.trump
        best, top = 0, a
        if beats(b, top, trump):
            best, top = 1, b
        if beats(c3, top, trump):
            best = 2
        winner = (self.leader + best) % 3
        self.captured[winner] += _POINTS[a] + _POINTS[b] + _POINTS[c3]
        self.tricks_won[winner] += 1
        self.tricks.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.leader = winner
        self.turn = winner
        if len(self.tricks) == 8:
            self.phase = _PH_DONE

    # ------------------------------------------------------------------ views
    def redeal_reasons(self, seat: int | None) -> list[str]:
        """The redeals ``seat`` may ask for now (only the seat to act may)."""
        if seat is None or seat != self.turn or self.phase is _PH_DONE:
            return []
        out: list[str] = []
        for a in self.legal_actions():
            if isinstance(a, Redeal):
                out.append(a.reason)
        return out

    def redeal_proof(self, seat: int, reason: str) -> list[int]:
        """The cards that justify ``seat``'s redeal for ``reason``, in hand order: its four
        9s, its dealt hand (too few points) or the talon (a poor talon). The same before and
        after the redeal is applied (a redeal moves no card); everyone sees them."""
        if reason == "four_nines":
            cards = [c for c in bits(self.hands[seat]) if c & 7 == NINE]
        elif reason == "low_points":
            cards = list(self.dealt_hands[seat])
        elif reason == "low_talon":
            cards = list(self.dealt_talon)
        else:
            cards = []
        return sorted(cards, key=hand_order)

    def public_view(self) -> dict[str, Any]:
        """The part of :meth:`view` that every seat sees alike (spectators too), to build once
        for the views of several seats (``MilGame.views``)."""
        revealed = self.declarer >= 0
        bids: list[dict[str, Any]] = []
        for s, a in self.history:
            if isinstance(a, Bid):
                bids.append({"seat": s, "type": "bid", "value": a.value})
            elif isinstance(a, Pass):
                bids.append({"seat": s, "type": "pass"})
        tricks: list[dict[str, Any]] = []
        for leader, cards, w in self.tricks:
            tricks.append(
                {
                    "leader": leader,
                    "cards": [
                        {"seat": (leader + i) % 3, "card": CARD_NAMES[c]}
                        for i, c in enumerate(cards)
                    ],
                    "winner": w,
                }
            )
        return {
            "hand_counts": [h.bit_count() for h in self.hands],
            "bids": bids,
            "high_bid": self.high or None,
            "declarer": self.declarer if revealed else None,
            "bid": self.bid if revealed else None,
            "contract": self.contract or None,
            "talon": [CARD_NAMES[c] for c in self.dealt_talon] if revealed else None,
            "talon_count": self.talon.bit_count(),
            "trump": SUIT_LETTERS[self.trump] if self.trump >= 0 else None,
            "marriages": [
                {"seat": s, "suit": SUIT_LETTERS[su], "value": MARRIAGE_VALUES[su]}
                for s, su in self.marriages
            ],
            "trick": [
                {"seat": (self.leader + i) % 3, "card": CARD_NAMES[c]}
                for i, c in enumerate(self.trick)
            ],
            "leader": self.leader if self.phase is _PH_PLAY else None,
            "tricks": tricks,
            "tricks_won": list(self.tricks_won),
            "captured_points": list(self.captured),
            "talon_points": mask_points(mask_of(self.dealt_talon)) if revealed else None,
        }

    def view(self, seat: int | None, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """What ``seat`` may know of this deal (``None``: a spectator), JSON-safe; the keys of
        docs/dev/contract.md. A spectator never gets legal actions, nor a seat not to act.
        ``public``: this deal's :meth:`public_view` (now), whose values the view then shares
        (the same objects) instead of building its own."""
        pub = self.public_view() if public is None else public
        own = self.seat_view(seat)
        return {
            "phase": self.phase.value,
            "turn": self.turn,
            "dealer": self.dealer,
            "legal": own["legal"],
            "hand": own["hand"],
            "hand_counts": pub["hand_counts"],
            "bids": pub["bids"],
            "high_bid": pub["high_bid"],
            "declarer": pub["declarer"],
            "bid": pub["bid"],
            "contract": pub["contract"],
            "talon": pub["talon"],
            "talon_count": pub["talon_count"],
            "given": own["given"],
            "trump": pub["trump"],
            "marriages": pub["marriages"],
            "trick": pub["trick"],
            "leader": pub["leader"],
            "tricks": pub["tricks"],
            "tricks_won": pub["tricks_won"],
            "captured_points": pub["captured_points"],
            "held_marriages": own["held_marriages"],
            "pair_cards": own["pair_cards"],
            "hand_points": own["hand_points"],
            "talon_points": pub["talon_points"],
            "redeal_reasons": own["redeal_reasons"],
            "redeal_cards": own["redeal_cards"],
            "bid_limit_reason": own["bid_limit_reason"],
        }

    def seat_view(self, seat: int | None) -> dict[str, Any]:
        """The keys of :meth:`view` that depend on ``seat`` (the others are
        :meth:`public_view`'s, and ``phase``, ``turn`` and ``dealer``): its legal actions (only
        the seat to act has any), its hand, the gives as it may see them, its marriages, the
        hand's points, its reasons to ask for a new deal and the cards that prove them, and
        why its bids stop at 120."""
        own = self.hands[seat] if seat is not None else 0
        to_act = seat is not None and seat == self.turn and self.phase is not _PH_DONE
        hand = [c for c in BY_HAND_ORDER if own >> c & 1]
        pairs = held_marriages(own)
        reasons = self.redeal_reasons(seat)
        redeal_cards: dict[str, list[str]] = {}
        if seat is not None:
            for reason in reasons:
                redeal_cards[reason] = [CARD_NAMES[c] for c in self.redeal_proof(seat, reason)]
        given: list[dict[str, Any]] = []
        for c, to in self.gives:
            shown = seat is not None and (seat == to or seat == self.declarer)
            given.append(
                {"from": self.declarer, "to": to, "card": CARD_NAMES[c] if shown else None}
            )
        return {
            "legal": [a.to_json() for a in self.legal_actions()] if to_act else [],
            "hand": [CARD_NAMES[c] for c in hand],
            "given": given,
            "held_marriages": [SUIT_LETTERS[su] for su in pairs],
            "pair_cards": [
                CARD_NAMES[c] for c in hand if any(PAIR_MASKS[su] >> c & 1 for su in pairs)
            ],
            "hand_points": mask_points(own) if seat is not None else None,
            "redeal_reasons": reasons,
            "redeal_cards": redeal_cards,
            "bid_limit_reason": self._bid_limit_reason(seat),
        }

    def _bid_limit_reason(self, seat: int | None) -> str | None:
        """Why ``seat``'s bids stop at 120 in the auction: ``"no_marriage"`` (no marriage in its
        7 dealt cards: the limit is 120), ``"until_120"`` (club: nobody bids past 120 before
        someone has bid 120), else None (also for a spectator and outside the auction)."""
        if seat is None or self.phase is not _PH_BIDDING:
            return None
        if self.limits[seat] <= 120:
            return "no_marriage"
        if self.profile.stop_at_120 and self.high < 120:
            return "until_120"
        return None

    def seat_knows(self, seat: int | None) -> int:
        """Mask of every card ``seat`` may know the place of now (None: spectator)."""
        known = 0
        for _, cards, _ in self.tricks:
            for c in cards:
                known |= 1 << c
        for c in self.trick:
            known |= 1 << c
        if self.declarer >= 0:
            known |= mask_of(self.dealt_talon)
        if seat is not None:
            known |= self.hands[seat]
            for c, to in self.gives:
                if seat in (to, self.declarer):
                    known |= 1 << c
        return known

    def __repr__(self) -> str:
        return (
            f"<mil.State {self.profile.name} dealer={self.dealer} phase={self.phase.value} "
            f"turn={self.turn} hands=[{'; '.join(_names(h) for h in self.hands)}]>"
        )
