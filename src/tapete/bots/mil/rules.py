"""The ``rules`` Mil player (level 1): the advice of the seeds as explicit rules.

Bidding counts ready marriages plus the aces and tens the hand can expect to take (seed 001),
never above what it justifies nor the bid limit. With the talon it keeps marriages and points,
gives pointless cards from short suits, concedes (rospis, club only) when the 10-card hand
clearly cannot make the bid, and raises the contract only with what is in hand. In play it
announces the highest marriage as early as it may, cashes aces and tens, counts trumps, aces
and tens still out; defenders feed points to their partner's winning tricks and take the lead
from the declarer.

Every decision reads the seat's view only and returns one of ``view["legal"]``.
"""

from __future__ import annotations

import random
from typing import Any, Final

from tapete.bots.mil.sampling import MilInfo, mil_info
from tapete.bots.reasons import Reason
from tapete.cards import (
    ACE,
    KING,
    MIL_DECK,
    PAIR_MASKS,
    QUEEN,
    SUIT_MASKS,
    TEN,
    Suit,
    bits,
    card_name,
    card_points,
    mask_points,
    trick_winner,
)
from tapete.game import JSON
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
    action_from_json,
)
from tapete.mil.state import MARRIAGE_VALUES, held_marriages, marriages_value

__all__ = [
    "MilRulesBot",
    "estimate_hand",
    "rules_decision",
]

#: what a hand is expected to gain from the talon (three cards, 15 points on average)
TALON_HOPE: Final = 10


def estimate_hand(hand: int, out: int | None = None) -> int:
    """Points a hand can count on as declarer: its ready marriages plus the aces and tens it
    can expect to take with them (seed 001), plus a little loot from the other seats."""
    total = marriages_value(hand)
    for s in range(4):
        m = hand & SUIT_MASKS[s]
        n = m.bit_count()
        ace = m >> (s * 8 + ACE) & 1
        ten = m >> (s * 8 + TEN) & 1
        king = m >> (s * 8 + KING) & 1
        pair = m & PAIR_MASKS[s] == PAIR_MASKS[s]
        if ace:
            total += 11 + 5
            if ten:
                total += 10 + 4
                if king:
                    total += 3
        elif ten and n >= 3:
            total += 6
        if pair:
            total += 7 if ace or n >= 3 else 4
        if n >= 4 and ace:
            total += 4 * (n - 3)
    return total


def _round_down(v: int, step: int) -> int:
    return v - v % step


def _legal(view: JSON) -> list[MilAction]:
    return [action_from_json(a) for a in view["legal"]]


def rules_decision(view: JSON, rng: random.Random) -> tuple[MilAction, Reason]:
    """The rules player's action for this view and a one-line reason."""
    legal = _legal(view)
    if not legal:
        raise ValueError("no legal action in this view")
    if len(legal) == 1:
        return legal[0], Reason("only_legal")
    info = mil_info(view)
    phase = info.phase
    if phase in ("redeal_offer", "nines_offer"):
        return _redeal_choice(info, legal)
    if phase == "bidding":
        return _bid_choice(info, legal, view)
    if phase in ("talon", "give"):
        return _talon_choice(info, legal)
    if phase == "contract":
        return _contract_choice(info, legal)
    if phase == "play":
        return play_choice(info, legal)
    return legal[0], Reason("first_legal")


# ---------------------------------------------------------------------------- bidding


def bid_ceiling(info: MilInfo, hand: int | None = None) -> int:
    """The highest bid the hand justifies (before the bid limit)."""
    h = info.hand if hand is None else hand
    # calibrated against the open-hand solver: a hand estimated at E makes E with the talon
    # about 80% of the time (double dummy), so the talon's hope is not bid
    return estimate_hand(h)


def _bid_choice(info: MilInfo, legal: list[MilAction], view: JSON) -> tuple[MilAction, Reason]:
    step = info.profile.step
    ceiling = _round_down(bid_ceiling(info), step)
    lowest = 0  # the lowest contract this seat could play for now
    if info.profile.barrel == "club" and view["in_barrel"][info.seat]:
        # in the club barrel the contract is at least 120: bid only for that
        ceiling = ceiling if ceiling >= info.profile.barrel_min_contract else 0
        lowest = info.profile.barrel_min_contract
    bids = sorted((a for a in legal if isinstance(a, Bid)), key=lambda a: a.value)
    ok = [b for b in bids if b.value <= ceiling]
    if ok:
        return ok[0], Reason("bid_justifies", {"value": ok[0].value, "ceiling": ceiling})
    p = next((a for a in legal if isinstance(a, Pass)), None)
    if p is None:  # the opener's forced 100
        return bids[0], Reason("bid_opener", {"value": bids[0].value})
    if not bids:
        return p, Reason("pass_no_higher")
    if ceiling < 100:  # not even the opening 100: name the real lowest bid (105 or more)
        return p, Reason("pass_weak", {"value": max(bids[0].value, lowest)})
    return p, Reason("pass_justifies", {"ceiling": ceiling})


def _redeal_choice(info: MilInfo, legal: list[MilAction]) -> tuple[MilAction, Reason]:
    redeals = [a for a in legal if isinstance(a, Redeal)]
    keep = next((a for a in legal if isinstance(a, KeepDeal)), legal[-1])
    if not redeals:
        return keep, Reason("keep")
    if info.phase == "nines_offer":
        if info.declarer == info.seat:
            if info.contract is not None and estimate_hand(info.hand) + 5 < info.contract:
                return redeals[0], Reason("redeal_out_of_reach")
            return keep, Reason("keep_can_make")
        return redeals[0], Reason("redeal_takes_contract")
    if estimate_hand(info.hand) + TALON_HOPE < 100:
        return redeals[0], Reason("redeal_weak")
    return keep, Reason("keep_good_hand")


# ---------------------------------------------------------------------------- talon


def keep_value(c: int, hand: int) -> int:
    """How much the declarer wants to keep card ``c`` of ``hand`` (lower: give it away)."""
    s = c >> 3
    r = c & 7
    m = hand & SUIT_MASKS[s]
    n = m.bit_count()
    v = card_points(c) * 3
    if m & PAIR_MASKS[s] == PAIR_MASKS[s] and r in (KING, QUEEN):
        v += 200 + MARRIAGE_VALUES[s]
    if r == ACE:
        v += 60
    if r == TEN and m >> (s * 8 + ACE) & 1:
        v += 40
    # long suits are worth keeping whole; singletons are worth giving away (a void)
    v += 4 * n
    higher = m & ~((1 << (c + 1)) - 1)
    if higher and r < TEN:
        v += 2
    return v


def best_gives(hand: int) -> list[int]:
    """The two cards to give, weakest first."""
    cards = sorted(bits(hand), key=lambda c: (keep_value(c, hand), c))
    return cards[:2]


def _talon_choice(info: MilInfo, legal: list[MilAction]) -> tuple[MilAction, Reason]:
    hand = info.hand
    bid = info.bid or 100
    redeal = next((a for a in legal if isinstance(a, Redeal)), None)
    rospis = next((a for a in legal if isinstance(a, Rospis)), None)
    gives = best_gives(hand)
    kept = hand & ~(1 << gives[0]) & ~(1 << gives[1])
    est = estimate_hand(kept)
    if redeal is not None and est < bid:
        return redeal, Reason("redeal_poor_talon")
    if rospis is not None and est + 20 < bid:
        return rospis, Reason("rospis_worth", {"est": est, "value": bid})
    give_actions = [a for a in legal if isinstance(a, Give)]
    for c in gives:
        for a in give_actions:
            if a.card == c:
                return a, Reason("give_spare", {"card": card_name(c)})
    return give_actions[0], Reason("give_any")


def _contract_choice(info: MilInfo, legal: list[MilAction]) -> tuple[MilAction, Reason]:
    contracts = sorted((a for a in legal if isinstance(a, Contract)), key=lambda a: a.value)
    sure = _round_down(estimate_hand(info.hand) - 10, info.profile.step)
    pick = contracts[0]
    for a in contracts:
        if a.value <= sure:
            pick = a
    if pick.value > contracts[0].value:
        return pick, Reason("contract_worth", {"value": pick.value})
    return pick, Reason("contract_bid", {"value": pick.value})


# ---------------------------------------------------------------------------- play


def _outside(info: MilInfo) -> int:
    """Cards still held by the other seats (or, if unknown, possibly)."""
    return MIL_DECK & ~info.played & ~info.hand & ~(info.talon if info.declarer == info.seat else 0)


def is_master(c: int, info: MilInfo, out: int) -> bool:
    """No card still out beats ``c`` in its suit, and no trump can take it (or it is trump)."""
    s = c >> 3
    if out & SUIT_MASKS[s] & ~((1 << (c + 1)) - 1):
        return False
    if info.trump < 0 or s == info.trump:
        return True
    if not out & SUIT_MASKS[info.trump]:
        return True
    # someone void in the suit may trump it: known voids only
    for o in range(3):
        if o == info.seat:
            continue
        if info.excluded[o] & SUIT_MASKS[s] & out == out & SUIT_MASKS[s] and out & SUIT_MASKS[s]:
            return False
    return bool(out & SUIT_MASKS[s])


def _pair_card(c: int, hand: int) -> bool:
    s = c >> 3
    return c & 7 in (KING, QUEEN) and hand & PAIR_MASKS[s] == PAIR_MASKS[s]


def _team(seat: int, declarer: int | None) -> int:
    return 0 if seat == declarer else 1


def play_choice(info: MilInfo, legal: list[MilAction]) -> tuple[MilAction, Reason]:
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0], Reason("first_legal")
    out = _outside(info)
    if not info.trick:
        return _lead(info, plays, out)
    return _follow(info, plays, out)


def _lead(info: MilInfo, plays: list[Play], out: int) -> tuple[Play, Reason]:
    hand = info.hand
    announce = [a for a in plays if a.marriage]
    if announce:
        best_suit = max({a.card >> 3 for a in announce}, key=lambda s: MARRIAGE_VALUES[s])
        queen = next(a for a in announce if a.card >> 3 == best_suit and a.card & 7 == QUEEN)
        v = MARRIAGE_VALUES[best_suit]
        letter = Suit(best_suit).letter
        return queen, Reason(
            "announce_marriage",
            {"suit": letter, "value": v, "card": card_name(queen.card), "suit_name": letter},
        )
    cards = [a for a in plays if not a.marriage]
    trump = info.trump
    # draw trumps with a master trump while the others still hold some
    if trump >= 0 and info.declarer == info.seat and out & SUIT_MASKS[trump]:
        for a in sorted(cards, key=lambda a: -a.card):
            if a.card >> 3 == trump and is_master(a.card, info, out):
                return a, Reason("lead_draw_trumps", {"card": card_name(a.card)})
    masters = [
        a
        for a in cards
        if is_master(a.card, info, out) and not _pair_card(a.card, hand) and card_points(a.card)
    ]
    if masters:
        a = max(masters, key=lambda a: (card_points(a.card), a.card))
        return a, Reason("lead_master", {"card": card_name(a.card)})
    safe = [a for a in cards if not _pair_card(a.card, hand)] or cards

    def cost(a: Play) -> tuple[int, int, int]:
        s = a.card >> 3
        n = (hand & SUIT_MASKS[s]).bit_count()
        is_trump = 1 if s == trump else 0
        return (is_trump, card_points(a.card) * 2 + n, a.card)

    a = min(safe, key=cost)
    return a, Reason("lead_spare", {"card": card_name(a.card)})


def _follow(info: MilInfo, plays: list[Play], out: int) -> tuple[Play, Reason]:
    hand = info.hand
    trick = info.trick
    seats = info.trick_seats
    trump = info.trump
    me = _team(info.seat, info.declarer)
    win_idx = trick_winner(trick, trump)
    winning_seat = seats[win_idx]
    partner_winning = _team(winning_seat, info.declarer) == me
    trick_pts = mask_points(sum(1 << c for c in trick))

    def wins(c: int) -> bool:
        return trick_winner([*trick, c], trump) == len(trick)

    winners = [a for a in plays if wins(a.card)]
    losers = [a for a in plays if not wins(a.card)]

    def dump_key(a: Play) -> tuple[int, int, int]:
        return (1 if _pair_card(a.card, hand) else 0, card_points(a.card), a.card)

    if len(trick) == 2:
        if partner_winning:
            feed = [a for a in plays if not wins(a.card)] or plays
            feed = [a for a in feed if not _pair_card(a.card, hand)] or feed
            a = max(feed, key=lambda a: (card_points(a.card), -a.card))
            if card_points(a.card) >= 10:
                return a, Reason("follow_partner_wins", {"card": card_name(a.card)})
            return a, Reason("follow_side_wins", {"card": card_name(a.card)})
        if winners:
            a = min(
                winners,
                key=lambda a: (
                    1 if a.card >> 3 == info.trump else 0,
                    card_points(a.card) if trick_pts < 10 else 0,
                    a.card,
                ),
            )
            return a, Reason("take_points", {"card": card_name(a.card), "points": trick_pts})
        a = min(plays, key=dump_key)
        return a, Reason("follow_cannot_win", {"card": card_name(a.card)})
    # second to play
    third = (seats[-1] + 1) % 3
    third_is_partner = _team(third, info.declarer) == me
    if third_is_partner:
        if winners:
            a = max(winners, key=lambda a: (card_points(a.card), -a.card))
            return a, Reason("take_partner_last", {"card": card_name(a.card)})
        a = min(plays, key=dump_key)
        return a, Reason("follow_partner_may_win", {"card": card_name(a.card)})
    # the opponent plays after me: win only with a card they cannot beat
    safe = [a for a in winners if is_master(a.card, info, out)]
    if safe:
        a = max(safe, key=lambda a: (card_points(a.card), -a.card))
        return a, Reason("take_unbeatable", {"card": card_name(a.card)})
    if partner_winning and is_master(trick[win_idx], info, out):
        feed = [a for a in losers if not _pair_card(a.card, hand)] or losers or plays
        a = max(feed, key=lambda a: (card_points(a.card), -a.card))
        return a, Reason("follow_partner_card_wins", {"card": card_name(a.card)})
    a = min(losers or plays, key=dump_key)
    return a, Reason("follow_keep_high", {"card": card_name(a.card)})


class MilRulesBot:
    """Level 1: rules of thumb from the seeds (see the module docstring)."""

    name = "rules"

    def __init__(self, profile: str | None = None, **options: Any) -> None:
        self.profile = profile

    def act(self, view: JSON, rng: random.Random) -> MilAction:
        return rules_decision(view, rng)[0]

    def explain(self, view: JSON, rng: random.Random) -> tuple[MilAction, Reason]:
        return rules_decision(view, rng)


_ = (held_marriages, card_name)
