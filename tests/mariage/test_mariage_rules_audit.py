"""Rules audit: the sentences of ../shared/rules/mariage.md that no other test pinned.

Each test is named after the rule it checks, and the expected game points are worked out by
hand from the rules text (written next to them). Positions are set up with
``State.from_position``: hearts are trump throughout.
"""

from __future__ import annotations

import pytest
from mariage_helpers import action, cards, run

from tapete.errors import IllegalActionError
from tapete.mariage import Claim, Close, Exchange, MariageGame, Marriage, Phase, Reason, State

H = 3  # hearts


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def position(
    hand0: str,
    hand1: str,
    stock: str,
    *,
    points: tuple[int, int],
    tricks: tuple[int, int],
    leader: int = 0,
    lead: str | None = None,
    closed_by: int | None = None,
    closed_position: tuple[int, int] = (0, 0),
) -> State:
    return State.from_position(
        hands=[mask(hand0), mask(hand1)],
        stock=cards(stock),
        trump=H,
        leader=leader,
        lead=None if lead is None else cards(lead)[0],
        points=points,
        tricks=tricks,
        trick_number=sum(tricks),
        closed_by=closed_by,
        closed_position=closed_position,
    )


def outcome(s: State) -> tuple[int | None, int, Reason]:
    assert s.done and s.result is not None
    return s.result.winner, s.result.game_points, s.result.reason


# ---------------------------------------------------------------- claims after a marriage
@pytest.mark.parametrize(
    ("before", "suit", "want"),
    [
        (46, "S", (0, 2, Reason.CLAIM)),  # 46 + 20 = 66: correct; opponent 30 with a trick
        (45, "S", (1, 2, Reason.FALSE_CLAIM)),  # 45 + 20 = 65: false, the opponent gets 2
        (26, "H", (0, 2, Reason.CLAIM)),  # 26 + 40 (trumps) = 66
        (25, "H", (1, 2, Reason.FALSE_CLAIM)),  # 25 + 40 = 65
    ],
)
def test_claim_exactly_66_after_a_marriage(before, suit, want) -> None:
    s = position(
        "KS QS KH QH 7C 8C",
        "7D 8D 9D JD QD KD",
        "AS TS AC TC AD TD AH TH",
        points=(before, 30),
        tricks=(1, 1),
    )
    run(s, f"marriage:{suit} claim")
    assert outcome(s) == want
    assert s.result is not None and s.result.points == (before + (40 if suit == "H" else 20), 30)


def test_only_the_leader_claims_even_with_66() -> None:
    s = position(
        "AS TS 7C 8C 9C JC",
        "KS QS 7D 8D 9D",
        "AC TC AD TD AH TH",
        points=(70, 10),
        tricks=(3, 1),
        leader=1,
        lead="JD",
    )
    assert Claim() not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="must play a card to JD"):
        s.apply(Claim())


# ---------------------------------------------------------------- closing
def test_closing_at_exactly_two_cards_in_the_stock() -> None:
    # 9 tricks played, 2 cards left (the last is the indicator): closing is still allowed
    s = position(
        "AS TS 7C 8C 9C JC",
        "KS QS 7D 8D 9D JD",
        "AC 9H",
        points=(40, 30),
        tricks=(5, 4),
    )
    assert s.stock_count == 2 and Close() in s.legal_actions()
    s.apply(Close())
    assert s.closed_by == 0 and s.closed_position == (30, 4) and s.phase == Phase.STRICT
    assert s.stock_count == 2 and s.indicator is None  # the 2 cards stay out of play


def test_no_closing_once_the_stock_is_exhausted() -> None:
    s = position("AS TS 7C", "KS QS 7D", "", points=(60, 40), tricks=(9, 4))
    assert s.phase == Phase.STRICT and Close() not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="the stock is exhausted"):
        s.apply(Close())


@pytest.mark.parametrize("token", ["close", "exchange", "marriage:S"])
def test_the_follower_may_not_close_exchange_or_declare(token) -> None:
    # seat 1 holds the trump 7 and K+Q of spades, has won tricks, and 8 cards are left:
    # all three would be legal when leading, none when following
    s = position(
        "AS TS 7C 8C 9C",
        "KS QS 7H 8D 9D JD",
        "AC TC AD TD AH TH JH 9H",
        points=(30, 30),
        tricks=(2, 2),
        lead="JC",
    )
    with pytest.raises(IllegalActionError, match="must play a card to JC"):
        s.apply(action(token))


def test_closer_false_claim_against_no_trick_at_closing_gives_3() -> None:
    # the opponent had no trick when seat 0 closed: the failed closer gives away 3
    s = position(
        "AS TS 7C",
        "KS QS 7D",
        "AC TC",
        points=(60, 8),
        tricks=(6, 1),
        closed_by=0,
        closed_position=(0, 0),
    )
    s.apply(Claim())  # 60 < 66
    assert outcome(s) == (1, 3, Reason.CLOSER_FAILED)


def test_closer_claim_against_33_or_more_at_closing_gives_1() -> None:
    s = position(
        "AS TS 7C",
        "KS QS 7D",
        "AC TC",
        points=(66, 50),
        tricks=(5, 3),
        closed_by=0,
        closed_position=(40, 3),
    )
    s.apply(Claim())
    assert outcome(s) == (0, 1, Reason.CLAIM)


# ---------------------------------------------------------------- exchange
def test_exchange_with_two_cards_left_and_the_seven_is_drawn_last() -> None:
    # [decision] the exchange is allowed with 2 cards left; the trump 7 becomes the last
    # card, drawn by the loser of the 10th trick
    s = position(
        "AS 7H 7C 8C 9C JC",
        "KS QS 7D 8D 9D JD",
        "AC 9H",
        points=(40, 30),
        tricks=(5, 4),
    )
    assert Exchange() in s.legal_actions()
    s.apply(Exchange())
    assert s.indicator == cards("7H")[0] and s.hands[0] >> cards("9H")[0] & 1
    run(s, "AS 7D")  # seat 0 wins: draws AC; seat 1 draws the 7 of trumps
    assert s.hands[0] >> cards("AC")[0] & 1 and s.hands[1] >> cards("7H")[0] & 1
    assert s.stock_count == 0 and s.phase == Phase.STRICT
    assert Exchange() not in s.legal_actions() and Marriage(0) not in s.legal_actions()


# ---------------------------------------------------------------- exhaustion
@pytest.mark.parametrize(("loser_before", "gp"), [(23, 1), (22, 2)])
def test_exhaustion_the_losers_last_trick_bonus_counts_for_33(loser_before, gp) -> None:
    # seat 1 takes the last trick (8S, seat 0 has no spade and no trump: any card) and adds
    # 10: 23 + 10 = 33 -> the winner scores 1; 22 + 10 = 32 -> 2
    s = position(
        "7C",
        "8S",
        "",
        points=(120 - loser_before, loser_before),
        tricks=(10, 5),
        leader=1,
    )
    run(s, "8S 7C")
    assert outcome(s) == (0, gp, Reason.EXHAUSTED)
    assert s.result is not None and s.result.points == (120 - loser_before, loser_before + 10)


def test_exhaustion_against_a_loser_without_a_trick_scores_3() -> None:
    # "the higher total wins at the normal rate (1, 2 or 3 by the loser's points and tricks)":
    # seat 0 never claimed and takes all 16 tricks (AS on 7C: no spade, no trump, any card);
    # seat 1 has no trick -> 3, whatever the winner's own tricks
    s = position("AS", "7C", "", points=(109, 0), tricks=(15, 0), leader=0)
    run(s, "AS 7C")
    assert outcome(s) == (0, 3, Reason.EXHAUSTED)
    assert s.result is not None and s.result.points == (130, 0)


def test_exhaustion_the_higher_total_wins_below_66() -> None:
    # seat 1 leads 7C, seat 0 must beat it (JC): 50 + 2 + 10 = 62 against 58
    s = position("JC", "7C", "", points=(50, 58), tricks=(8, 7), leader=1)
    run(s, "7C JC")
    assert outcome(s) == (0, 1, Reason.EXHAUSTED)
    assert s.result is not None and s.result.points == (62, 58)


# ---------------------------------------------------------------- the match
def play_out_one_hand(game: MariageGame) -> State:
    st = game.state
    while game.state is st and not game.over:  # the first legal action each time
        game.apply(game.legal_actions()[0])
    return st


def test_the_first_to_7_game_points_wins_the_match() -> None:
    # seed 3: seat 0 wins the hand by exhaustion, 1 game point: 6 + 1 = 7, the match is over
    game = MariageGame(seed=3, start={"dealer": 1, "game_points": [6, 4]})
    st = play_out_one_hand(game)
    assert st.result is not None and (st.result.winner, st.result.game_points) == (0, 1)
    assert game.match == [7, 4] and game.over and game.winner == 0
    assert game.legal_actions() == [] and game.turn is None
    # seed 2: seat 1 wins it: 4 + 1 = 5, play goes on and seat 0 deals the next hand
    game = MariageGame(seed=2, start={"dealer": 1, "game_points": [6, 4]})
    st = play_out_one_hand(game)
    assert st.result is not None and st.result.winner == 1
    assert game.match == [6, 5] and not game.over and game.winner is None
    assert game.state is not st and game.state.dealer == 0 and game.turn == 1


def test_the_first_dealer_is_drawn_by_lot_and_the_non_dealer_leads() -> None:
    from collections import Counter

    firsts = Counter(MariageGame(seed=seed).state.dealer for seed in range(200))
    assert set(firsts) == {0, 1} and min(firsts.values()) > 60  # about 100 each
    for seed in range(20):
        st = MariageGame(seed=seed).state
        assert st.turn == 1 - st.dealer
