"""Random open-hand positions for tests and benchmarks (randomness injected, never global)."""

from __future__ import annotations

import random

from tapete.cards import bits, mask_of
from tapete.mil.game import deal_cards
from tapete.mil.profiles import Profile
from tapete.solver.position import PROFILES, MilPosition, legal_moves, play

__all__ = ["random_deal_position", "random_play_position"]


def random_deal_position(rng: random.Random, profile: Profile | str = "club") -> MilPosition:
    """A position before the first lead, dealt as in a real deal: 7 cards each and a talon
    of 3 that a random declarer takes, giving two random cards of their 10 away, one to each
    opponent."""
    dealt, talon = deal_cards(rng)
    hands = [mask_of(h) for h in dealt]
    declarer = rng.randrange(3)
    hands[declarer] |= mask_of(talon)
    for k in (1, 2):
        give = rng.choice(list(bits(hands[declarer])))
        hands[declarer] &= ~(1 << give)
        hands[(declarer + k) % 3] |= 1 << give
    return MilPosition((hands[0], hands[1], hands[2]), declarer, declarer, profile=profile)


def random_play_position(
    rng: random.Random,
    cards_left: int,
    profile: Profile | str | None = None,
    *,
    mid_trick: bool | None = None,
    announce: float = 0.7,
) -> MilPosition:
    """A position reached by random legal play from a random deal until the leader of the
    current trick has ``cards_left`` cards (counting a card already led); ``mid_trick``
    chooses whether 0 or some cards of that trick are on the table (``None``: random).
    A possible marriage announcement is made with probability ``announce``."""
    if profile is None:
        profile = rng.choice(PROFILES)
    pos = random_deal_position(rng, profile)
    table = 0
    if mid_trick or (mid_trick is None and rng.random() < 0.5):
        table = rng.randint(1, 2)
    while True:
        left = pos.hands[pos.leader].bit_count() + (1 if pos.trick else 0)
        if left <= cards_left and len(pos.trick) == table:
            return pos
        moves = legal_moves(pos)
        if not moves:
            return pos
        marriages = [m for m in moves if m[1]]
        move = rng.choice(marriages if marriages and rng.random() < announce else moves)
        pos = play(pos, *move)
