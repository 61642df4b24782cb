"""The report "a seed-36 Mil deal gave an all-zero curve for a 120 contract", pinned.

Mil club, game number (seed) 36, deal 0: the person (seat 0) holds J♥ Q♥ 9♥ 9♦ Q♦ K♠ K♥, the
hearts marriage, which allows a bid of 120 (120 + the marriages held). With 9♣ K♣ J♠ from
the talon the hand is 9♠ J♠ K♠ K♣ 9♥ J♥ Q♥ K♥ after the gifts: not one trick is the
declarer's once the defenders, who see every card in an open-hand solve, keep the lead.
A marriage may be announced only by the leader of trick 2 or later (mil.md), and the
declarer never leads again after trick 1, so its 100 points never count: with best defence
the declarer takes no point at all, before the first lead and after every trick, whatever
two cards it gives away. The flat zero curve is right (the contract was lost from the
start, with every card open); this is not a bug of the curve.

The check here does not trust the solver: an AND-OR search over the solver's move rules
(:mod:`tapete.solver.position`, not its search) shows that the defence can keep the declarer
from winning any trick; a player who wins no trick has no card point and announces no
marriage, so 0 is the exact value (a value is never below 0).
"""

from __future__ import annotations

import random
from itertools import permutations
from typing import Any

from tapete.analysis import analyse_deal
from tapete.analysis.mil import headline
from tapete.bots import make_bot
from tapete.cards import bits, parse_card
from tapete.mil.actions import Bid, Contract, Give, Pass, Play
from tapete.mil.game import MilGame
from tapete.mil.state import Phase, State
from tapete.solver.command import position_from_state
from tapete.solver.position import MilPosition, legal_moves, play, to_move

HAND = {"JH", "QH", "9H", "9D", "QD", "KS", "KH"}


def _seed_36_deal() -> tuple[MilGame, dict[str, Any]]:
    """Seat 0 declares 120 (seat 2 opens 100), gives 9♦ and Q♦ and plays 120; the rest is
    played by the rules players."""
    game = MilGame("club", seed=36, max_deals=1)
    script = [Bid(100), Bid(120), Pass(), Pass()]
    script += [Give(parse_card("9D"), 1), Give(parse_card("QD"), 2), Contract(120)]
    for action in script:
        game.apply(action)
    bot, rng = make_bot("mil", "rules"), random.Random(0)
    while not game.over:
        game.apply(bot.act(game.view(game.turn), rng))
    return game, game.to_record()


def declarer_can_win_a_trick(pos: MilPosition, memo: dict[Any, bool]) -> bool:
    """Whether the declarer can force winning at least one trick from ``pos``."""
    seat = to_move(pos)
    if seat is None:
        return False
    key = (pos.hands, pos.leader, pos.trick, pos.trump, pos.tricks_played)
    if key not in memo:
        wins = (_wins(pos, play(pos, c, a), memo) for c, a in legal_moves(pos))
        memo[key] = any(wins) if seat == pos.declarer else all(wins)  # (short-circuits)
    return memo[key]


def _wins(pos: MilPosition, child: MilPosition, memo: dict[Any, bool]) -> bool:
    """Whether the move from ``pos`` to ``child`` wins the declarer a trick (at once, or
    by force later)."""
    if len(pos.trick) == 2 and child.leader == pos.declarer:
        return True
    return declarer_can_win_a_trick(child, memo)


def test_the_seed_36_deal_has_a_flat_zero_curve_and_that_is_right() -> None:
    game, record = _seed_36_deal()
    assert set(record["deals"][0]["hands"][0]) == HAND  # the deal the report was about
    report = analyse_deal(record, 0, quick=True)
    assert report["contract"] == 120 and report["declarer"] == 0
    assert report["open_values"] == [0] * 9
    assert report["raw"][0] == 0
    # no pair of gifts would have helped: nothing was makeable, with every card open
    assert report["open_best_value"] == 0
    assert report["best_contract"] is None and report["bid_makeable"] is False
    # and the review says so, rather than leaving a bare flat line to explain itself
    assert (
        "with all cards open no contract could be made: against the best defence the "
        "declarer takes at most 0 points (the bid was not makeable)"
    ) in "\n".join(headline(report))
    # independently of the solver: the defence can always keep every trick
    done, _ = game.deals[0]
    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    for _, action in done.history:
        if st.phase is Phase.TALON:
            break
        st.apply(action)
    declarer = st.declarer
    ten = st.hands[declarer]
    assert ten.bit_count() == 10
    left, right = (declarer + 1) % 3, (declarer + 2) % 3
    for a, b in permutations(bits(ten), 2):
        hands = list(st.hands)
        hands[declarer] = ten & ~(1 << a) & ~(1 << b)
        hands[left] |= 1 << a
        hands[right] |= 1 << b
        pos = MilPosition((hands[0], hands[1], hands[2]), declarer, declarer, profile="club")
        assert not declarer_can_win_a_trick(pos, {}), (a, b)
    # the declarer kept the hearts marriage (100) and could not announce it at trick 1
    first = next(s for s, (_, act) in enumerate(done.history) if isinstance(act, Play))
    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    for _, action in done.history[:first]:
        st.apply(action)
    hand = st.hands[declarer]
    assert hand >> parse_card("KH") & 1 and hand >> parse_card("QH") & 1
    assert not any(announce for _, announce in legal_moves(position_from_state(st)))
