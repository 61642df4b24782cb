"""What a bot may know from its view, and hidden deals sampled consistently with it.

Everything here reads only the view dict of one seat. :class:`MilInfo` collects the public
facts of a Mil deal (own hand, revealed talon, given cards, played cards, announced marriages)
and the inferences they allow (a seat that did not follow suit is void in it; a seat that
announced a marriage still holds the other card of the pair). Which plays were legal is asked
of the engine (:func:`tapete.mil.state.play_mask_of`, a pure function), never restated here.

:func:`sample_mil_hands` deals the unseen cards to the other seats at random, respecting
those facts, so that search code can build an open-hand position from them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from tapete.cards import (
    KING,
    MARIAGE_DECK,
    MIL_DECK,
    QUEEN,
    SUIT_LETTERS,
    SUIT_MASKS,
    bits,
    parse_card,
)
from tapete.game import JSON
from tapete.mil.profiles import Profile, get_profile
from tapete.mil.state import MARRIAGE_VALUES, play_mask_of

__all__ = [
    "MariageInfo",
    "MariageTracker",
    "MilInfo",
    "cards_mask",
    "mil_info",
    "sample_mariage",
    "sample_mil_hands",
]

PAIR_MASKS: Final = tuple((1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN)) for s in range(4))


def cards_mask(names: Any) -> int:
    """Bitmask of a list of card strings (``None`` entries are skipped)."""
    m = 0
    for n in names or ():
        if n is not None:
            m |= 1 << parse_card(n)
    return m


def _forbidding(profile: Profile, card: int, table: list[int], trump: int, unknown: int) -> int:
    """The cards among ``unknown`` whose presence in a hand would have made ``card`` illegal
    after ``table`` (the earlier cards of the trick) with ``trump`` (-1: none): asked of the
    engine's pure play rule, so any number of threads may ask at once."""
    must_head = profile.must_head
    mine = 1 << card
    out = 0
    for x in bits(unknown):
        if not play_mask_of(mine | (1 << x), table, trump, must_head) & mine:
            out |= 1 << x
    return out


@dataclass
class MilInfo:
    """The public facts of a Mil deal as seen by ``seat``."""

    profile: Profile
    seat: int
    phase: str
    hand: int
    hand_counts: tuple[int, int, int]
    declarer: int | None
    bid: int | None
    contract: int | None
    talon: int
    #: cards this seat gave (as declarer) or received, per receiving seat
    given: dict[int, int]
    #: number of given cards whose identity this seat does not know, per receiving seat
    hidden_given: dict[int, int]
    played: int
    trick: list[int]
    trick_seats: list[int]
    leader: int | None
    trump: int
    tricks_played: int
    #: raw points so far (captured cards + announced marriages)
    points: list[int]
    #: cards known to be in each seat's hand now
    located: list[int] = field(default_factory=lambda: [0, 0, 0])
    #: cards each seat cannot hold (shown by play)
    excluded: list[int] = field(default_factory=lambda: [0, 0, 0])
    marriages: list[tuple[int, int]] = field(default_factory=list)
    bids: list[JSON] = field(default_factory=list)

    @property
    def unseen(self) -> int:
        """Cards whose place this seat does not know (in other hands or the talon)."""
        known = self.hand | self.played
        for m in self.located:
            known |= m
        return MIL_DECK & ~known

    @property
    def remaining(self) -> int:
        """Cards not played yet (in any hand or the closed talon)."""
        return MIL_DECK & ~self.played


def mil_info(view: JSON) -> MilInfo:
    """Read a Mil view (``seat`` must be a player)."""
    profile = get_profile(view["profile"])
    seat = int(view["seat"])
    hand = cards_mask(view["hand"])
    talon = cards_mask(view.get("talon"))
    declarer = view.get("declarer")
    given: dict[int, int] = {}
    hidden: dict[int, int] = {}
    for g in view.get("given") or ():
        to = int(g["to"])
        if g.get("card") is None:
            hidden[to] = hidden.get(to, 0) + 1
        else:
            given[to] = given.get(to, 0) | (1 << parse_card(g["card"]))
    played = 0
    points = [0, 0, 0]
    for s, p in enumerate(view.get("captured_points") or (0, 0, 0)):
        points[s] += int(p)
    marriages = [
        (int(m["seat"]), SUIT_LETTERS.index(m["suit"])) for m in view.get("marriages") or ()
    ]
    for s, su in marriages:
        points[s] += MARRIAGE_VALUES[su]
    trick_entries = view.get("trick") or []
    trick = [parse_card(t["card"]) for t in trick_entries]
    trick_seats = [int(t["seat"]) for t in trick_entries]
    info = MilInfo(
        profile=profile,
        seat=seat,
        phase=str(view["phase"]),
        hand=hand,
        hand_counts=tuple(int(x) for x in view["hand_counts"]),  # type: ignore[arg-type]
        declarer=None if declarer is None else int(declarer),
        bid=view.get("bid"),
        contract=view.get("contract"),
        talon=talon,
        given=given,
        hidden_given=hidden,
        played=0,
        trick=trick,
        trick_seats=trick_seats,
        leader=view.get("leader"),
        trump=-1,
        tricks_played=len(view.get("tricks") or ()),
        points=points,
        marriages=marriages,
        bids=list(view.get("bids") or ()),
    )
    # Walk the tricks in order, following the trump through the announced marriages.
    all_tricks: list[tuple[list[int], list[int]]] = []
    for t in view.get("tricks") or ():
        cards = [parse_card(e["card"]) for e in t["cards"]]
        seats = [int(e["seat"]) for e in t["cards"]]
        all_tricks.append((cards, seats))
    if trick:
        all_tricks.append((trick, trick_seats))
    for cards, _ in all_tricks:
        for c in cards:
            played |= 1 << c
    info.played = played
    unknown_base = MIL_DECK & ~hand
    trump = -1
    mi = 0
    pair_holder: list[tuple[int, int]] = []
    for cards, seats in all_tricks:
        lead = cards[0]
        if (
            mi < len(marriages)
            and marriages[mi][0] == seats[0]
            and marriages[mi][1] == lead >> 3
            and lead & 7 in (KING, QUEEN)
        ):
            trump = lead >> 3
            pair_holder.append((seats[0], trump))
            mi += 1
        for i in (1, 2):
            if i >= len(cards):
                break
            s = seats[i]
            if s == seat:
                continue
            info.excluded[s] |= _forbidding(profile, cards[i], cards[:i], trump, unknown_base)
    info.trump = trump
    if view.get("trump") is not None:
        info.trump = SUIT_LETTERS.index(view["trump"])
    # Located cards: the other card of an announced pair, given cards, the talon.
    for s, su in pair_holder:
        if s != seat:
            info.located[s] |= PAIR_MASKS[su] & ~played
    if declarer is not None:
        d = int(declarer)
        if d == seat:
            for to, m in given.items():
                info.located[to] |= m & ~played
        else:
            # the talon went to the declarer; one of its cards may be the partner's gift
            partner = 3 - seat - d
            rest = talon & ~played & ~hand
            if not hidden.get(partner):
                info.located[d] |= rest
    for s in range(3):
        info.located[s] &= ~played & ~hand
        if s != seat:
            info.excluded[s] &= ~info.located[s]
    return info


def sample_mil_hands(info: MilInfo, rng: random.Random) -> list[int] | None:
    """Current hands of the three seats (and, before the talon is taken, the talon as a 4th
    entry) dealt at random among the unseen cards, consistent with what the view shows.

    Returns ``None`` only if no consistent deal was found (then the caller relaxes)."""
    seat = info.seat
    counts = list(info.hand_counts)
    hands = [0, 0, 0]
    hands[seat] = info.hand
    others = [s for s in range(3) if s != seat]
    pool = info.unseen
    need = {s: counts[s] for s in others}
    talon_need = 0
    if info.declarer is None:
        talon_need = 3
    # Defender: the partner may hold one talon card (the declarer's gift).
    d = info.declarer
    located = list(info.located)
    if d is not None and d != seat and info.hidden_given.get(3 - seat - d):
        partner = 3 - seat - d
        rest = [c for c in bits(info.talon & ~info.played & ~info.hand)]
        pool |= info.talon & ~info.played & ~info.hand
        located[d] = located[d] & ~info.talon
        if rest and rng.random() < 0.3 * len(rest) / 3:
            c = rest[rng.randrange(len(rest))]
            located[partner] |= 1 << c
            pool &= ~(1 << c)
        located[d] |= pool & info.talon
        pool &= ~info.talon
    for s in others:
        hands[s] |= located[s]
        need[s] -= located[s].bit_count()
        pool &= ~located[s]
    if any(n < 0 for n in need.values()):
        return None
    cards = list(bits(pool))
    if len(cards) != sum(need.values()) + talon_need:
        return None
    a, b = others
    for attempt in range(12):
        rng.shuffle(cards)
        ex_a = info.excluded[a] if attempt < 10 else 0
        ex_b = info.excluded[b] if attempt < 10 else 0
        # forced cards first
        to_a = [c for c in cards if ex_b >> c & 1 and not ex_a >> c & 1]
        to_b = [c for c in cards if ex_a >> c & 1 and not ex_b >> c & 1]
        to_t = [c for c in cards if ex_a >> c & 1 and ex_b >> c & 1]
        free = [c for c in cards if not (ex_a | ex_b) >> c & 1]
        if len(to_t) > talon_need:
            continue
        if len(to_a) > need[a] or len(to_b) > need[b]:
            continue
        t_left = talon_need - len(to_t)
        a_left = need[a] - len(to_a)
        talon_cards = to_t + free[:t_left]
        a_cards = to_a + free[t_left : t_left + a_left]
        b_cards = to_b + free[t_left + a_left :]
        if len(b_cards) != need[b]:
            continue
        ha = hands[a]
        hb = hands[b]
        for c in a_cards:
            ha |= 1 << c
        for c in b_cards:
            hb |= 1 << c
        out = [0, 0, 0]
        out[seat] = hands[seat]
        out[a] = ha
        out[b] = hb
        if talon_need:
            t = 0
            for c in talon_cards:
                t |= 1 << c
            out.append(t)
        return out
    return None


# ----------------------------------------------------------------------------- Mariage


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
            sum(view["tricks_won"]) == 0 and not view["trick"] and view["stock_count"] == 20
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
