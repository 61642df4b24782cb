"""One hand of Mariage: the state machine, its legal actions, scoring, and cheap undo.

The whole hand lives in a few ints: each hand, each pile of captured cards is a 32-bit mask
(``suit * 8 + rank``, rank 0 = 7 .. 7 = ace, see :mod:`tapete.cards`), so the hot paths
(legal actions, following rules, trick winner) are a handful of mask operations on tables
computed at import time.

>>> import random
>>> s = State.deal(random.Random(7), dealer=0)
>>> s.phase, s.turn, s.stock_count
(<Phase.OPEN: 'open'>, 1, 20)
>>> a = s.legal_actions()[0]
>>> s.apply(a); _ = s.pop(); s.stock_count
20
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from tapete.cards import (
    ABOVE,
    CARD_NAMES,
    CARD_POINTS,
    KING,
    PAIR_MASKS,
    QUEEN,
    SEVEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    Card,
    beats,
    bits,
    mask_points,
)
from tapete.errors import IllegalActionError
from tapete.game import JSON
from tapete.mariage.actions import (
    CLAIM,
    CLOSE,
    DECLINE,
    EXCHANGE,
    MARRIAGES,
    PLAYS,
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
)

__all__ = [
    "DECK_ORDER",
    "HAND_SIZE",
    "STOCK_SIZE",
    "WIN_POINTS",
    "HandResult",
    "Phase",
    "Reason",
    "State",
    "deal_cards",
    "deal_deck",
    "game_points_rate",
    "marriage_value",
]

HAND_SIZE: Final = 6
STOCK_SIZE: Final = 20
#: Card points a player must claim to win the hand.
WIN_POINTS: Final = 66
#: Below this the loser is "schneider" (2 game points instead of 1).
HALF_POINTS: Final = 33
LAST_TRICK_BONUS: Final = 10

#: The order of a fresh deck before shuffling: spades, clubs, diamonds, hearts, each A T K Q J
#: 9 8 7. Shuffling this list with ``random.Random(seed)`` reproduces the reference deals.
DECK_ORDER: Final = tuple(s * 8 + r for s in range(4) for r in range(7, -1, -1))

_SUIT_NAMES: Final = SUIT_NAMES


class Phase(StrEnum):
    """Where the hand stands: free play with an open stock, strict play, or over."""

    OPEN = "open"
    STRICT = "strict"
    DONE = "done"


class Reason(StrEnum):
    """Why a hand ended (``result.reason`` in records)."""

    CLAIM = "claim"
    FALSE_CLAIM = "false_claim"
    CLOSER_FAILED = "closer_failed"
    OPPONENT_CLAIMED_AFTER_CLOSE = "opponent_claimed_after_close"
    EXHAUSTED = "exhausted"
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class HandResult:
    """The score of a finished hand. ``winner`` is None (and 0 game points) for a tie."""

    winner: int | None
    game_points: int
    reason: Reason
    points: tuple[int, int]
    tricks: tuple[int, int]

    def __reduce__(self) -> tuple[type[HandResult], tuple[object, ...]]:
        # copy and pickle by the constructor (see tapete.mil.profiles.Profile.__reduce__)
        return HandResult, (self.winner, self.game_points, self.reason, self.points, self.tricks)

    def to_json(self, match: Sequence[int]) -> JSON:
        """The record's ``result`` object, with the match score after the hand."""
        return {
            "winner": self.winner,
            "game_points": self.game_points,
            "reason": self.reason.value,
            "points": list(self.points),
            "tricks": list(self.tricks),
            "match": list(match),
        }


def marriage_value(suit: int, trump: int) -> int:
    """What declaring the marriage of ``suit`` scores: 40 in trumps, else 20."""
    return 40 if suit == trump else 20


def game_points_rate(loser_points: int, loser_tricks: int) -> int:
    """1 game point if the loser has 33 or more, 2 if fewer but a trick, 3 without a trick."""
    if loser_points >= HALF_POINTS:
        return 1
    return 2 if loser_tricks else 3


def deal_deck(deck: Sequence[Card]) -> tuple[list[list[Card]], list[Card]]:
    """Mariage's dealing rule on a shuffled deck of 32: seat 0 gets the first 6 cards, seat
    1 the next 6, the remaining 20 form the stock (the last one is the trump indicator)."""
    return [list(deck[0:6]), list(deck[6:12])], list(deck[12:])


def deal_cards(rng: random.Random) -> tuple[list[list[Card]], list[Card]]:
    """Shuffle a deck with ``rng`` and deal it (:func:`deal_deck`)."""
    deck = list(DECK_ORDER)
    rng.shuffle(deck)
    return deal_deck(deck)


# --- tables -------------------------------------------------------------------------------

#: ``_SUIT_PLAYS[s][byte]``: the Play actions of the cards of suit ``s`` in ``byte``.
_SUIT_PLAYS: Final = tuple(
    tuple(tuple(PLAYS[s * 8 + r] for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)
_KQ: Final = PAIR_MASKS
_SEVENS: Final = tuple(1 << (s * 8 + SEVEN) for s in range(4))
_QUEENS: Final = sum(1 << (s * 8 + QUEEN) for s in range(4))


def _plays(mask: int) -> list[Action]:
    """Play actions for every card of ``mask``, in card order (four table look-ups)."""
    return [
        *_SUIT_PLAYS[0][mask & 0xFF],
        *_SUIT_PLAYS[1][(mask >> 8) & 0xFF],
        *_SUIT_PLAYS[2][(mask >> 16) & 0xFF],
        *_SUIT_PLAYS[3][mask >> 24],
    ]


def _names(mask: int) -> str:
    return ", ".join(CARD_NAMES[c] for c in bits(mask))


_OPEN, _STRICT, _DONE = 0, 1, 2
_PHASES: Final = (Phase.OPEN, Phase.STRICT, Phase.DONE)


class State:
    """One hand of Mariage with full information (both hands, the stock order).

    ``apply`` pushes a small undo entry and ``pop`` restores the previous position exactly,
    so search code can walk the tree without copying.
    """

    __slots__ = (
        "_closed_opp_points",
        "_closed_opp_tricks",
        "_closer",
        "_lead",
        "_leader",
        "_pending",
        "_phase",
        "_pos",
        "_result",
        "_trick_no",
        "_turn",
        "_undo",
        "dealer",
        "hands",
        "history",
        "initial_hands",
        "initial_stock",
        "last_trick",
        "marriages",
        "points",
        "stock",
        "tricks",
        "trump",
        "won",
    )

    def __init__(self, hands: Sequence[Sequence[Card]], stock: Sequence[Card], dealer: int) -> None:
        """A hand dealt as ``hands`` (6 cards each) and ``stock`` (20 cards, indicator last)."""
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, not {dealer!r}")
        if len(hands) != 2 or any(len(h) != HAND_SIZE for h in hands):
            raise ValueError("each of the two hands must hold exactly 6 cards")
        if len(stock) != STOCK_SIZE:
            raise ValueError(f"the stock must hold exactly 20 cards, not {len(stock)}")
        cards = [*hands[0], *hands[1], *stock]
        if sorted(cards) != list(range(32)):
            raise ValueError("hands and stock must hold each of the 32 cards exactly once")
        self._setup(tuple(hands[0]), tuple(hands[1]), list(stock), dealer)

    def _setup(
        self, hand0: tuple[Card, ...], hand1: tuple[Card, ...], stock: list[Card], dealer: int
    ) -> None:
        """Set up a checked deal (``stock`` becomes this state's own list)."""
        self.dealer = dealer
        self.initial_hands: tuple[tuple[Card, ...], tuple[Card, ...]] = (hand0, hand1)
        self.initial_stock: tuple[Card, ...] = tuple(stock)
        m0 = m1 = 0
        for c in hand0:
            m0 |= 1 << c
        for c in hand1:
            m1 |= 1 << c
        #: Cards in each seat's hand (bitmasks).
        self.hands = [m0, m1]
        #: The stock, next card to draw at ``stock[_pos]``; ``stock[19]`` is the indicator.
        self.stock = stock
        self.trump: int = stock[-1] >> 3
        #: Captured cards (bitmasks), points (cards + marriages), tricks won, per seat.
        self.won = [0, 0]
        self.points = [0, 0]
        self.tricks = [0, 0]
        #: Declared marriages: ``(seat, suit, value)``.
        self.marriages: list[tuple[int, int, int]] = []
        #: Every action applied so far: ``(seat, action)``.
        self.history: list[tuple[int, Action]] = []
        #: The last completed trick: ``(leader, lead card, follow card, winner)``.
        self.last_trick: tuple[int, Card, Card, int] | None = None
        self._pos = 0
        self._trick_no = 0
        self._leader = 1 - dealer
        self._turn = 1 - dealer
        self._lead = -1
        self._closer = -1
        self._closed_opp_points = 0
        self._closed_opp_tricks = 0
        self._pending = -1
        self._phase = _OPEN
        self._result: HandResult | None = None
        self._undo: list[tuple[Any, ...]] = []

    @classmethod
    def deal(cls, rng: random.Random, dealer: int) -> State:
        """A new hand shuffled with ``rng``."""
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, not {dealer!r}")
        hands, stock = deal_cards(rng)
        return cls(hands, stock, dealer)

    @classmethod
    def from_position(
        cls,
        *,
        hands: Sequence[int],
        stock: Sequence[Card],
        trump: int,
        leader: int,
        lead: Card | None = None,
        points: Sequence[int] = (0, 0),
        tricks: Sequence[int] = (0, 0),
        won: Sequence[int] = (0, 0),
        trick_number: int | None = None,
        closed_by: int | None = None,
        closed_position: tuple[int, int] = (0, 0),
        pending_marriage: int | None = None,
        marriages: Sequence[tuple[int, int, int]] = (),
        last_trick: tuple[int, Card, Card, int] | None = None,
        dealer: int = 0,
    ) -> State:
        """A hand in the middle, for search and tests ("start from here").

        ``hands`` and ``won`` are bitmasks per seat; ``stock`` the cards left in the stock, the
        next to be drawn first and the indicator last (empty once exhausted; after a closing,
        the unused stock). ``points`` include marriages. ``closed_position`` is the
        opponent's (points, tricks) at the closing. Only the cards given need to be
        consistent (no card twice); cards already played elsewhere may be left out. The
        returned state has no history: ``pop`` cannot go back before it.
        """
        placed = 0
        masks = [*hands, *won, *(1 << c for c in stock)]
        if lead is not None:
            masks.append(1 << lead)
        for m in masks:
            if placed & m:
                raise ValueError("a card appears twice in the position")
            placed |= m
        if len(stock) > STOCK_SIZE or (lead is not None and leader not in (0, 1)):
            raise ValueError("impossible position")
        if stock and stock[-1] >> 3 != trump and closed_by is None:
            raise ValueError("the last card of an open stock is the trump indicator")
        # a state of the unshuffled deck, then set up for the position (compiled with mypyc,
        # State has no __new__ that skips __init__ and its checks)
        st = cls((DECK_ORDER[0:6], DECK_ORDER[6:12]), DECK_ORDER[12:], dealer)
        h0 = tuple(bits(hands[0]))
        h1 = tuple(bits(hands[1]))
        full = [-1] * (STOCK_SIZE - len(stock)) + list(stock)
        st._setup(h0, h1, full, dealer)
        st.initial_stock = tuple(stock)
        st.trump = trump
        st.won = [won[0], won[1]]
        st.points = [points[0], points[1]]
        st.tricks = [tricks[0], tricks[1]]
        st.marriages = list(marriages)
        st.last_trick = last_trick
        st._pos = STOCK_SIZE - len(stock)
        st._trick_no = sum(tricks) if trick_number is None else trick_number
        st._leader = leader
        st._lead = -1 if lead is None else lead
        st._turn = leader if lead is None else 1 - leader
        st._pending = -1 if pending_marriage is None else pending_marriage
        if closed_by is not None:
            st._closer = closed_by
            st._closed_opp_points, st._closed_opp_tricks = closed_position
        st._phase = _STRICT if closed_by is not None or not stock else _OPEN
        return st

    # --- public read-only properties ---------------------------------------------------

    @property
    def phase(self) -> Phase:
        return _PHASES[self._phase]

    @property
    def turn(self) -> int | None:
        """The seat to act, or None once the hand is over."""
        return None if self._phase == _DONE else self._turn

    @property
    def leader(self) -> int:
        """The seat that leads (or led) the current trick."""
        return self._leader

    @property
    def lead_card(self) -> Card | None:
        """The card led to the current trick, if one lies on the table."""
        return None if self._lead < 0 else self._lead

    @property
    def done(self) -> bool:
        return self._phase == _DONE

    @property
    def result(self) -> HandResult | None:
        return self._result

    @property
    def stock_count(self) -> int:
        """Cards left in the stock (including the indicator); 0 once exhausted."""
        return STOCK_SIZE - self._pos

    @property
    def indicator(self) -> Card | None:
        """The trump indicator while it lies face up under an open stock, else None."""
        if self._pos >= STOCK_SIZE or self._closer >= 0:
            return None
        return self.stock[STOCK_SIZE - 1]

    @property
    def closed(self) -> bool:
        return self._closer >= 0

    @property
    def closed_by(self) -> int | None:
        return None if self._closer < 0 else self._closer

    @property
    def closed_position(self) -> tuple[int, int] | None:
        """The opponent's (points, tricks) recorded when the stock was closed."""
        if self._closer < 0:
            return None
        return self._closed_opp_points, self._closed_opp_tricks

    @property
    def pending_marriage(self) -> int | None:
        """The suit of a marriage declared by the leader whose K or Q is not yet led."""
        return None if self._pending < 0 else self._pending

    @property
    def trick_number(self) -> int:
        """Completed tricks in this hand."""
        return self._trick_no

    # --- legal actions -------------------------------------------------------------------

    def _follow_mask(self) -> int:
        """The cards the follower may play to the card on the table."""
        hand = self.hands[self._turn]
        if self._phase == _OPEN:
            return hand
        lead = self._lead
        same = hand & SUIT_MASKS[lead >> 3]
        if same:
            return (same & ABOVE[lead]) or same
        return (hand & SUIT_MASKS[self.trump]) or hand

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, ordered by id; empty once the hand is over."""
        phase = self._phase
        if phase == _DONE:
            return []
        if self._lead >= 0:
            return _plays(self._follow_mask())
        s = self._turn
        hand = self.hands[s]
        if self._pending >= 0:
            acts = _plays(hand & _KQ[self._pending])
            acts.append(CLAIM)
            return acts
        if not hand:  # after the last trick of a closed hand
            return [CLAIM, DECLINE]
        acts = _plays(hand)
        if phase == _OPEN:
            if self.tricks[s]:
                if hand & _SEVENS[self.trump]:
                    acts.append(EXCHANGE)
                pairs = hand & (hand >> 1) & _QUEENS  # queens whose king is held too
                while pairs:
                    low = pairs & -pairs
                    acts.append(MARRIAGES[low.bit_length() >> 3])
                    pairs ^= low
            if self._trick_no and self._pos <= STOCK_SIZE - 2:
                acts.append(CLOSE)
        if self._trick_no:
            acts.append(CLAIM)
        return acts

    def can_apply(self, action: object) -> bool:
        """Whether ``action`` is legal for the seat to act."""
        return self._why_illegal(action) is None

    def why_illegal(self, action: object) -> str | None:
        """None when ``action`` is legal now, else the sentence :meth:`apply` would raise."""
        why = self._why_illegal(action)
        if why is None:
            return None
        if self._phase == _DONE:
            return f"nobody can {_describe(action)}: the hand is over"
        return f"seat {self._turn} cannot {_describe(action)}: {why}"

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` (with the reason) if ``action`` is illegal."""
        if self._why_illegal(action) is not None:
            self._illegal(action)

    def _why_illegal(self, action: object) -> str | None:
        """None if legal, else the reason (the part of the message after the colon)."""
        if self._phase == _DONE:
            return "the hand is over"
        s = self._turn
        hand = self.hands[s]
        leading = self._lead < 0
        if isinstance(action, Play):
            c = action.card
            if not isinstance(c, int) or not 0 <= c < 32:
                return "no such card"
            if not hand >> c & 1:
                return "not in hand"
            if not leading:
                allowed = self._follow_mask()
                if allowed >> c & 1:
                    return None
                lead = self._lead
                ls = lead >> 3
                same = hand & SUIT_MASKS[ls]
                if same:
                    higher = same & ABOVE[lead]
                    if higher:
                        return (
                            f"must follow {_SUIT_NAMES[ls]} and beat {CARD_NAMES[lead]} "
                            f"(holds {_names(higher)})"
                        )
                    return f"must follow {_SUIT_NAMES[ls]} (holds {_names(same)})"
                return (
                    f"has no {_SUIT_NAMES[ls]} and must trump with {_SUIT_NAMES[self.trump]} "
                    f"(holds {_names(hand & SUIT_MASKS[self.trump])})"
                )
            if self._pending >= 0 and not _KQ[self._pending] >> c & 1:
                return (
                    f"after declaring the {_SUIT_NAMES[self._pending]} marriage the lead must "
                    f"be its king or queen (or a claim)"
                )
            return None
        if not leading:
            return f"must play a card to {CARD_NAMES[self._lead]}"
        if isinstance(action, Claim):
            if not self._trick_no:
                return "no claim before the first trick has been played"
            return None
        if isinstance(action, Decline):
            if hand or self._closer < 0:
                return "declining is only possible after the last trick of a closed hand"
            return None
        if self._pending >= 0:
            return (
                f"after declaring the {_SUIT_NAMES[self._pending]} marriage only a claim or the "
                f"lead of its king or queen may follow"
            )
        if isinstance(action, Exchange | Marriage | Close):
            if self._closer >= 0:
                return "the stock is closed"
            if self._pos >= STOCK_SIZE:
                return "the stock is exhausted"
        if isinstance(action, Exchange):
            if not self.tricks[s]:
                return "only a player who has won a trick may exchange"
            seven = self.trump * 8 + SEVEN
            if not hand >> seven & 1:
                return f"does not hold the trump 7 ({CARD_NAMES[seven]})"
            return None
        if isinstance(action, Marriage):
            su = action.suit
            if not isinstance(su, int) or not 0 <= su < 4:
                return "no such suit"
            if not self.tricks[s]:
                return "only a player who has won a trick may declare a marriage"
            if hand & _KQ[su] != _KQ[su]:
                king, queen = CARD_NAMES[su * 8 + KING], CARD_NAMES[su * 8 + QUEEN]
                return f"does not hold both {king} and {queen}"
            return None
        if isinstance(action, Close):
            if not self._trick_no:
                return "the stock may be closed only from the second trick on"
            if self._pos > STOCK_SIZE - 2:
                return "the stock must hold at least 2 cards to be closed"
            return None
        return "not a Mariage action"

    # --- applying and undoing --------------------------------------------------------------

    def _snapshot(self) -> tuple[Any, ...]:
        h, w, p, t = self.hands, self.won, self.points, self.tricks
        return (
            h[0], h[1], w[0], w[1], p[0], p[1], t[0], t[1],
            self._pos, self._trick_no, self._leader, self._turn, self._lead, self._closer,
            self._closed_opp_points, self._closed_opp_tricks, self._pending, self._phase,
            self.stock[STOCK_SIZE - 1], self._result, self.last_trick, len(self.marriages),
        )  # fmt: skip

    def pop(self) -> Action:
        """Undo the last applied action and return it."""
        if not self._undo:
            raise IndexError("pop from a hand with no applied action")
        entry = self._undo.pop()
        n = len(entry)
        if n == 3:  # a lead: (seat, hand before, pending marriage before)
            s, self.hands[entry[0]], self._pending = entry
            self._lead = -1
            self._turn = s
            return self.history.pop()[1]
        if n == 13:  # a follow (see apply)
            (
                self.hands[0], self.hands[1], self._lead, self._leader, w, self.won[w],
                self.points[w], self.tricks[w], self._pos, self._phase, self.last_trick,
                self._result, self._turn,
            ) = entry  # fmt: skip
            self._trick_no -= 1
            return self.history.pop()[1]
        (
            h0, h1, w0, w1, p0, p1, t0, t1,
            self._pos, self._trick_no, self._leader, self._turn, self._lead, self._closer,
            self._closed_opp_points, self._closed_opp_tricks, self._pending, self._phase,
            self.stock[STOCK_SIZE - 1], self._result, self.last_trick, n_marriages,
        ) = entry  # fmt: skip
        self.hands[0], self.hands[1] = h0, h1
        self.won[0], self.won[1] = w0, w1
        self.points[0], self.points[1] = p0, p1
        self.tricks[0], self.tricks[1] = t0, t1
        del self.marriages[n_marriages:]
        return self.history.pop()[1]

    def push(self, action: Action) -> None:
        """Apply ``action`` and remember how to undo it with :meth:`pop` (the same as
        :meth:`apply`, which always records its undo entry)."""
        self.apply(action)

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the seat to act; raise :class:`IllegalActionError` if illegal."""
        cls = type(action)
        if cls is Play and self._phase != _DONE:
            # The hot path: a card to the trick.
            c: int = action.card  # type: ignore[union-attr]
            s = self._turn
            hand = self.hands[s]
            if self._lead < 0:
                pending = self._pending
                if hand >> c & 1 and (pending < 0 or _KQ[pending] >> c & 1):
                    self._undo.append((s, hand, pending))
                    self.history.append((s, action))
                    self.hands[s] = hand ^ (1 << c)
                    self._lead = c
                    self._pending = -1
                    self._turn = 1 - s
                    return
            else:
                lead = self._lead
                phase = self._phase
                if self._follow_mask() >> c & 1:
                    hands = self.hands
                    leader = self._leader
                    w = 1 - leader if beats(c, lead, self.trump) else leader  # the trick's winner
                    won, points, tricks = self.won, self.points, self.tricks
                    pos = self._pos
                    self._undo.append(
                        (
                            hands[0], hands[1], lead, leader, w, won[w], points[w], tricks[w],
                            pos, phase, self.last_trick, self._result, s,
                        )
                    )  # fmt: skip
                    self.history.append((s, action))
                    hands[s] = hand ^ (1 << c)
                    won[w] |= (1 << lead) | (1 << c)
                    points[w] += CARD_POINTS[lead] + CARD_POINTS[c]
                    tricks[w] += 1
                    self._trick_no += 1
                    self.last_trick = (leader, lead, c, w)
                    self._lead = -1
                    self._leader = w
                    self._turn = w
                    if phase == _OPEN:
                        stock = self.stock
                        hands[w] |= 1 << stock[pos]
                        hands[1 - w] |= 1 << stock[pos + 1]
                        pos += 2
                        self._pos = pos
                        if pos >= STOCK_SIZE:
                            self._phase = _STRICT
                    elif not hands[w] and self._closer < 0:
                        self._end_of_cards()
                    # After the last trick of a closed hand its winner may still claim (or
                    # decline): see legal_actions.
                    return
            self._illegal(action)
        s = self._turn
        if self._why_illegal(action) is not None:
            self._illegal(action)
        self._undo.append(self._snapshot())
        self.history.append((s, action))
        if cls is Claim:
            self._claim(s)
        elif cls is Marriage:
            su: int = action.suit  # type: ignore[union-attr]
            value = marriage_value(su, self.trump)
            self.points[s] += value
            self._pending = su
            self.marriages.append((s, su, value))
        elif cls is Decline:
            self._end_of_cards()
        elif cls is Exchange:
            seven = self.trump * 8 + SEVEN
            indicator = self.stock[STOCK_SIZE - 1]
            self.hands[s] ^= (1 << seven) | (1 << indicator)
            self.stock[STOCK_SIZE - 1] = seven
        else:  # Close
            o = 1 - s
            self._closer = s
            self._closed_opp_points = self.points[o]
            self._closed_opp_tricks = self.tricks[o]
            self._phase = _STRICT

    def _illegal(self, action: object) -> None:
        why = self.why_illegal(action)
        if why is None:  # not reached: called only for an illegal action
            why = f"seat {self._turn} cannot {_describe(action)}: not legal here"
        raise IllegalActionError(why)

    def _end_of_cards(self) -> None:
        """The last trick has been played and nobody has claimed."""
        t = (self.tricks[0], self.tricks[1])
        if self._closer >= 0:
            closer = self._closer
            o = 1 - closer
            gp = 3 if not self._closed_opp_tricks else 2
            self._end(o, gp, Reason.CLOSER_FAILED, (self.points[0], self.points[1]), t)
            return
        pts = [self.points[0], self.points[1]]
        pts[self._leader] += LAST_TRICK_BONUS  # the winner of the last trick
        if pts[0] == pts[1]:
            self._end(None, 0, Reason.TIE, (pts[0], pts[1]), t)
            return
        w = 0 if pts[0] > pts[1] else 1
        o = 1 - w
        self._end(w, game_points_rate(pts[o], t[o]), Reason.EXHAUSTED, (pts[0], pts[1]), t)

    def _claim(self, s: int) -> None:
        o = 1 - s
        pts = (self.points[0], self.points[1])
        t = (self.tricks[0], self.tricks[1])
        correct = pts[s] >= WIN_POINTS
        closer = self._closer
        if closer < 0:
            if correct:
                self._end(s, game_points_rate(pts[o], t[o]), Reason.CLAIM, pts, t)
            else:
                self._end(o, 2, Reason.FALSE_CLAIM, pts, t)
        elif closer == s:
            if correct:
                rate = game_points_rate(self._closed_opp_points, self._closed_opp_tricks)
                self._end(s, rate, Reason.CLAIM, pts, t)
            else:
                gp = 3 if not self._closed_opp_tricks else 2
                self._end(o, gp, Reason.CLOSER_FAILED, pts, t)
        elif correct:
            gp = 3 if not self._closed_opp_tricks else 2
            self._end(s, gp, Reason.OPPONENT_CLAIMED_AFTER_CLOSE, pts, t)
        else:
            self._end(closer, 2, Reason.FALSE_CLAIM, pts, t)

    def _end(
        self,
        winner: int | None,
        game_points: int,
        reason: Reason,
        points: tuple[int, int],
        tricks: tuple[int, int],
    ) -> None:
        self._result = HandResult(winner, game_points, reason, points, tricks)
        self._phase = _DONE

    # --- information ---------------------------------------------------------------------

    def hand_cards(self, seat: int) -> list[Card]:
        """The cards in ``seat``'s hand, in card order."""
        return list(bits(self.hands[seat]))

    def card_points(self, seat: int) -> int:
        """Points of the cards ``seat`` has captured (without marriages)."""
        return mask_points(self.won[seat])

    def public_view(self) -> JSON:
        """The part of :meth:`view` that both seats and the spectators see alike, to build once
        for the views of several seats (``MariageGame.views``)."""
        trick: list[JSON] = []
        if self._lead >= 0:
            trick.append({"seat": self._leader, "card": CARD_NAMES[self._lead]})
        last: JSON | None = None
        if self.last_trick is not None:
            ld, lc, fc, w = self.last_trick
            last = {
                "leader": ld,
                "cards": [
                    {"seat": ld, "card": CARD_NAMES[lc]},
                    {"seat": 1 - ld, "card": CARD_NAMES[fc]},
                ],
                "winner": w,
            }
        return {
            "hand_counts": [self.hands[0].bit_count(), self.hands[1].bit_count()],
            "trick": trick,
            "last_trick": last,
            "points": [self.points[0], self.points[1]],
            "tricks_won": [self.tricks[0], self.tricks[1]],
            "marriages": [
                {"seat": ms, "suit": SUIT_LETTERS[su], "value": v} for ms, su, v in self.marriages
            ],
        }

    def view(self, seat: int | None, public: JSON | None = None) -> JSON:
        """What ``seat`` may know of this hand (None: a spectator). JSON-safe. ``public``:
        this hand's :meth:`public_view` (now), whose values the view then shares (the same
        objects) instead of building its own."""
        pub = self.public_view() if public is None else public
        turn = self.turn
        indicator = self.indicator
        own = self.hands[seat] if seat is not None else 0
        return {
            "phase": self.phase.value,
            "turn": turn,
            "dealer": self.dealer,
            "legal": [a.to_json() for a in self.legal_actions()]
            if seat is not None and seat == turn
            else [],
            "hand": [CARD_NAMES[c] for c in bits(self.hands[seat])] if seat is not None else [],
            "hand_counts": pub["hand_counts"],
            "trump": SUIT_LETTERS[self.trump],
            "indicator": None if indicator is None else CARD_NAMES[indicator],
            "stock_count": self.stock_count,
            "closed": self._closer >= 0,
            "closed_by": self.closed_by,
            "trick": pub["trick"],
            "leader": self._leader,
            "last_trick": pub["last_trick"],
            "points": pub["points"],
            "tricks_won": pub["tricks_won"],
            "marriages": pub["marriages"],
            "pending_marriage": None if self._pending < 0 else SUIT_LETTERS[self._pending],
            # the king and queen of every suit whose pair this seat holds (hand order)
            "pair_cards": [
                CARD_NAMES[c] for c in bits(own) if any(own & m == m and m >> c & 1 for m in _KQ)
            ],
        }

    def __repr__(self) -> str:
        return (
            f"<State {self.phase.value} turn={self.turn} trump={SUIT_LETTERS[self.trump]} "
            f"hands=[{_names(self.hands[0])}] [{_names(self.hands[1])}] "
            f"stock={self.stock_count} points={self.points}>"
        )


def _describe(action: object) -> str:
    if isinstance(action, Play) and isinstance(action.card, int) and 0 <= action.card < 32:
        return f"play {CARD_NAMES[action.card]}"
    if isinstance(action, Marriage) and isinstance(action.suit, int) and 0 <= action.suit < 4:
        return f"declare the {_SUIT_NAMES[action.suit]} marriage"
    if isinstance(action, Exchange):
        return "exchange the trump 7"
    if isinstance(action, Close):
        return "close the stock"
    if isinstance(action, Claim):
        return "claim 66"
    if isinstance(action, Decline):
        return "decline to claim"
    return f"apply {action!r}"
