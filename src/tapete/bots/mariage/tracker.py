"""What a Mariage player may know: its view plus the public cards it saw go by.

The view shows only the last trick, so :class:`MariageTracker` remembers, within a hand, every
completed trick, the indicator and the opponent's marriages; :class:`MariageInfo` is what it
knows at one decision. :func:`sample_mariage` deals the unseen cards (the opponent's hand and
the face-down stock) at random consistently with it, and :func:`build_state` makes the engine
state of the sampled position for search code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tapete.bots.base import cards_mask
from tapete.cards import MARIAGE_DECK, PAIR_MASKS, SUIT_LETTERS, SUIT_MASKS, bits, parse_card
from tapete.game import JSON
from tapete.mariage.state import STOCK_SIZE, State

__all__ = ["MariageInfo", "MariageTracker", "build_state", "sample_mariage"]


@dataclass
class MariageInfo:
    """The public facts of a Mariage hand as seen by ``seat`` (with the tracker's memory)."""

    seat: int
    phase: str
    hand: int
    opp_count: int
    trump: int
    indicator: int | None
    stock_count: int
    closed: bool
    lead: int | None
    leader: int
    points: list[int]
    tricks_won: list[int]
    played: int
    #: cards known to be in the opponent's hand
    opp_known: int
    #: cards the opponent cannot hold (void shown in strict play)
    opp_excluded: int
    pending: int | None
    legal: list[JSON]
    closed_by: int | None = None
    #: the opponent-of-the-closer's (points, tricks) when the stock was closed
    closed_opp: tuple[int, int] | None = None

    @property
    def unseen(self) -> int:
        """Cards whose place is unknown: the opponent's hand or the face-down stock."""
        known = self.hand | self.played | self.opp_known
        if self.lead is not None:
            known |= 1 << self.lead
        if self.indicator is not None:
            known |= 1 << self.indicator
        return MARIAGE_DECK & ~known


class MariageTracker:
    """Remembers, within a hand, the public cards a seat has seen go by (the view shows only
    the last trick): every completed trick, the indicator, the opponent's marriages."""

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.played = 0
        self.indicator_seen: int | None = None
        self.opp_known = 0
        self.opp_excluded = 0
        self.seen_tricks: set[tuple[int, int, int]] = set()
        self.closed_opp: tuple[int, int] | None = None

    def update(self, view: JSON) -> MariageInfo:
        seat = int(view["seat"])
        key = (view.get("deal_number"), view.get("dealer"), tuple(view.get("match") or ()))
        fresh_hand = (
            sum(view["tricks_won"]) == 0 and not view["trick"] and view["stock_count"] == STOCK_SIZE
        )
        hand = cards_mask(view["hand"])
        # a card in hand that the memory saw played: this view is from another hand or game
        if key != self.key or fresh_hand or hand & self.played:
            self.key = key
            self.played = 0
            self.indicator_seen = None
            self.opp_known = 0
            self.opp_excluded = 0
            self.seen_tricks = set()
            self.closed_opp = None
        trump = SUIT_LETTERS.index(view["trump"])
        opp = 1 - seat
        last = view.get("last_trick")
        strict = view["phase"] == "strict"
        if last is not None:
            cards = [parse_card(e["card"]) for e in last["cards"]]
            seats = [int(e["seat"]) for e in last["cards"]]
            tkey = (cards[0], cards[1], int(last["winner"]))
            if tkey not in self.seen_tricks:
                self.seen_tricks.add(tkey)
                for c in cards:
                    self.played |= 1 << c
        ind = view.get("indicator")
        indicator = None if ind is None else parse_card(ind)
        if indicator is not None:
            if (
                self.indicator_seen is not None
                and self.indicator_seen != indicator
                and not hand >> self.indicator_seen & 1
            ):
                # the indicator was exchanged by the opponent, who holds the old one
                self.opp_known |= 1 << self.indicator_seen
            self.indicator_seen = indicator
        elif (
            self.indicator_seen is not None
            and view["stock_count"] == 0
            and not hand >> self.indicator_seen & 1
        ):
            # the indicator was drawn by the loser of the last open trick
            self.opp_known |= 1 << self.indicator_seen
        for m in view.get("marriages") or ():
            if int(m["seat"]) == opp:
                self.opp_known |= PAIR_MASKS[SUIT_LETTERS.index(m["suit"])]
        lead = None
        if view["trick"]:
            lead = parse_card(view["trick"][0]["card"])
        self.opp_known &= ~self.played & ~hand
        if lead is not None:
            self.opp_known &= ~(1 << lead)
        # voids shown in strict play: the follower had to follow suit, else trump
        if last is not None and strict:
            cards = [parse_card(e["card"]) for e in last["cards"]]
            seats = [int(e["seat"]) for e in last["cards"]]
            if seats[1] == opp and cards[1] >> 3 != cards[0] >> 3:
                self.opp_excluded |= SUIT_MASKS[cards[0] >> 3]
                if cards[1] >> 3 != trump:
                    self.opp_excluded |= SUIT_MASKS[trump]
        if (
            view["closed"]
            and self.indicator_seen is not None
            and not (hand | self.played | self.opp_known) >> self.indicator_seen & 1
        ):
            # the closed stock (indicator included) is out of play
            self.opp_excluded |= 1 << self.indicator_seen
        closed_by = view.get("closed_by")
        if view["closed"] and closed_by is not None and self.closed_opp is None:
            o = 1 - int(closed_by)
            self.closed_opp = (int(view["points"][o]), int(view["tricks_won"][o]))
        pend = view.get("pending_marriage")
        return MariageInfo(
            seat=seat,
            phase=str(view["phase"]),
            hand=hand,
            opp_count=int(view["hand_counts"][opp]),
            trump=trump,
            indicator=indicator,
            stock_count=int(view["stock_count"]),
            closed=bool(view["closed"]),
            lead=lead,
            leader=int(view["leader"]),
            points=[int(p) for p in view["points"]],
            tricks_won=[int(t) for t in view["tricks_won"]],
            played=self.played,
            opp_known=self.opp_known & ~hand,
            opp_excluded=self.opp_excluded & ~self.opp_known,
            pending=None if pend is None else SUIT_LETTERS.index(pend),
            legal=list(view["legal"]),
            closed_by=None if closed_by is None else int(closed_by),
            closed_opp=self.closed_opp,
        )


def sample_mariage(info: MariageInfo, rng: random.Random) -> tuple[int, list[int]]:
    """The opponent's hand and the face-down stock in drawing order (the indicator, if still
    face up, is appended last), drawn at random among the unseen cards."""
    pool = info.unseen
    cards = list(bits(pool))
    rng.shuffle(cards)
    need = info.opp_count - (info.opp_known & ~info.played).bit_count()
    stock_face_down = info.stock_count - (1 if info.indicator is not None else 0)
    if info.closed:
        stock_face_down = info.stock_count
    # opponent's cards: prefer cards not excluded
    ok = [c for c in cards if not info.opp_excluded >> c & 1]
    bad = [c for c in cards if info.opp_excluded >> c & 1]
    ordered = ok + bad
    opp = info.opp_known & ~info.played
    need = max(0, need)
    for c in ordered[:need]:
        opp |= 1 << c
    rest = ordered[need:]
    rng.shuffle(rest)
    stock = rest[:stock_face_down] if stock_face_down > 0 else []
    if info.indicator is not None and not info.closed:
        stock = [*stock, info.indicator]
    return opp, stock


def build_state(info: MariageInfo, opp_hand: int, stock: list[int]) -> State:
    """An engine state for the position of ``info`` with the sampled hidden cards
    (``stock``: the cards left in the stock, next to be drawn first)."""
    me = info.seat
    closed_by: int | None = None
    closed_position = (0, 0)
    if info.closed:
        closed_by = info.closed_by if info.closed_by is not None else me
        o = 1 - closed_by
        closed_position = info.closed_opp or (info.points[o], info.tricks_won[o])
    return State.from_position(
        hands=(info.hand, opp_hand) if me == 0 else (opp_hand, info.hand),
        stock=stock,
        trump=info.trump,
        leader=info.leader,
        lead=info.lead,
        points=info.points,
        tricks=info.tricks_won,
        closed_by=closed_by,
        closed_position=closed_position,
        pending_marriage=info.pending,
    )
