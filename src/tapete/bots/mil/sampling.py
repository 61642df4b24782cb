"""What a Mil player may know from its view, and hidden deals sampled consistently with it.

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

from tapete.bots.base import cards_mask
from tapete.cards import KING, MIL_DECK, PAIR_MASKS, QUEEN, SUIT_LETTERS, bits, parse_card
from tapete.game import JSON
from tapete.mil.profiles import Profile, get_profile
from tapete.mil.state import MARRIAGE_VALUES, play_mask_of

__all__ = ["MilInfo", "mil_info", "sample_mil_hands"]


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
