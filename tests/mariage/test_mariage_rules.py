"""The rules of docs/rules-mariage.md (../shared/rules/mariage.md), one named test each.

Seat 1 deals every hand here, so seat 0 leads the first trick.
"""

from __future__ import annotations

import pytest
from mariage_helpers import action, from_deal, make_state, run

from tapete.errors import IllegalActionError
from tapete.mariage import Claim, Close, Decline, Exchange, Marriage, Phase, Reason, State
from tapete.mariage.state import game_points_rate

# --- the worked example of the seed, section 07 --------------------------------------------


def seed07_position() -> State:
    """Hearts are trump, the stock is open, seat 0 has won a trick and captured 28; seat 1 has
    25 (a 5-point trick and the diamond marriage) and one trick; seat 0 leads with KH and QH."""
    s = make_state("JC AD TS KH QH 8S", "QC KD QD QS 7S 8C", indicator="9H")
    run(s, "JC QC marriage:D KD AD TS QS")
    assert (s.phase, s.turn, s.trump) == (Phase.OPEN, 0, 3)
    assert s.points == [28, 25] and s.tricks == [2, 1]
    return s


def test_seed07_declaring_40_in_trumps_brings_28_to_68() -> None:
    s = seed07_position()
    assert Marriage(3) in s.legal_actions()
    s.apply(Marriage(3))
    assert s.points[0] == 28 + 40 == 68
    assert s.pending_marriage == 3


def test_seed07_claim_before_playing_the_lead_ends_the_hand_with_2_game_points() -> None:
    s = run(seed07_position(), "marriage:H")
    assert set(s.legal_actions()) == {action("KH"), action("QH"), Claim()}
    s.apply(Claim())
    assert s.done and s.tricks == [2, 1]  # no new trick
    assert s.result is not None
    assert (s.result.winner, s.result.reason, s.result.game_points) == (0, Reason.CLAIM, 2)
    assert s.result.points == (68, 25)


def test_seed07_playing_instead_of_claiming_lets_play_go_on() -> None:
    s = run(seed07_position(), "marriage:H KH")
    assert not s.done and s.points[0] == 68 and s.turn == 1
    run(s, "7S")  # seat 0 wins the trick: its next chance to claim
    assert s.turn == 0 and Claim() in s.legal_actions()
    s.apply(Claim())
    assert s.result is not None and s.result.reason == Reason.CLAIM


def test_going_past_66_does_not_end_the_hand_by_itself() -> None:
    s = run(seed07_position(), "marriage:H KH 7S")
    assert s.points[0] >= 66 and not s.done


def test_after_a_marriage_only_its_king_or_queen_or_a_claim() -> None:
    s = run(seed07_position(), "marriage:H")
    with pytest.raises(IllegalActionError, match=r"seat 0 cannot play 8S: .*king or queen"):
        s.apply(action("8S"))
    for a in (Exchange(), Close(), Marriage(0)):
        assert not s.can_apply(a)


# --- game points: the 1 / 2 / 3 table ------------------------------------------------------


@pytest.mark.parametrize(
    ("loser_points", "loser_tricks", "game_points"),
    [(33, 1, 1), (60, 5, 1), (32, 1, 2), (0, 1, 2), (0, 0, 3)],
)
def test_game_points_table(loser_points: int, loser_tricks: int, game_points: int) -> None:
    assert game_points_rate(loser_points, loser_tricks) == game_points


def test_claim_against_33_or_more_scores_1() -> None:
    s = make_state("TS AC KH QH TD 8S", "AS KC QC 7S 7D 8D", indicator="9H")
    run(s, "TS AS marriage:C KC AC marriage:H KH 7S TD 7D")
    assert s.points == [15 + 40 + 4 + 10, 21 + 20]
    s.apply(Claim())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.points) == (0, 1, (69, 41))


def test_claim_against_no_trick_scores_3() -> None:
    s = make_state("AS KH QH TS AC AD", "7C 8C 9C 7D 8D 9D", indicator="9H")
    run(s, "AS 7C marriage:H KH 8C TS 9C AC 7D")
    assert s.tricks == [4, 0] and s.points[0] == 11 + 40 + 4 + 10 + 11
    s.apply(Claim())
    assert s.result is not None and (s.result.winner, s.result.game_points) == (0, 3)


# --- false claims --------------------------------------------------------------------------


def test_false_claim_in_an_open_hand_gives_the_opponent_2() -> None:
    s = run(make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H"), "AS TS")
    assert s.points == [21, 0]
    s.apply(Claim())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, Reason.FALSE_CLAIM)
    assert s.result.points == (21, 0)


def test_no_claim_before_the_first_trick() -> None:
    s = make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    assert Claim() not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="seat 0 cannot claim 66: no claim before"):
        s.apply(Claim())


def test_false_claim_by_the_closers_opponent_gives_the_closer_2() -> None:
    """[decision] A false claim by the closer's opponent: the closer gets 2 game points."""
    s = from_deal(
        "8C JH TS 9D 7H AS",
        "KS 8S AH TD KH TC",
        "QC 7C QD JC KC 8D QH AC 8H 9C QS JD 9S 7D TH 7S 9H AD JS KD",
    )
    run(s, "9D 8S AS KH 8C TD 7C TS close QH 7H JC QC AC KC")
    assert s.closed_by == 1 and s.turn == 0 and s.points == [35, 23]
    s.apply(Claim())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, Reason.FALSE_CLAIM)


# --- closing -------------------------------------------------------------------------------


def test_closing_only_from_the_second_trick() -> None:
    """[decision] The stock may be closed only after the hands have been replenished once."""
    s = make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    assert Close() not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="only from the second trick"):
        s.apply(Close())
    run(s, "AS TS")
    assert Close() in s.legal_actions()


def test_closing_needs_two_cards_in_the_stock_and_turns_the_indicator_down() -> None:
    s = make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    run(s, "AS TS")
    assert s.indicator is not None
    s.apply(Close())
    assert s.closed and s.closed_by == 0 and s.indicator is None and s.phase == Phase.STRICT
    assert s.closed_position == (0, 0)
    assert s.stock_count == 18  # the unused stock stays out of play
    for a in (Exchange(), Marriage(1), Close()):
        assert not s.can_apply(a)


def test_closer_claims_with_the_opponents_position_at_closing() -> None:
    """The opponent had 26 and a trick at closing and ends with 36: the closer scores 2."""
    s = from_deal(
        "8H AD 7S QD 8C KS",
        "9S KH 9C JS JC 8S",
        "TC JD 7C QC KC TD AC AH 9D AS 7D KD TS JH QH 7H 9H TH QS 8D",
    )
    run(s, "KS JS 7S KH QD 9S 7C TD QC 8C JC AH JD AD KC 9D close")
    assert s.closed_by == 1 and s.closed_position == (26, 4)
    run(s, "8S TS AS 7D JH 7H QH 8H AC TC claim")
    assert s.result is not None
    assert s.result.points == (36, 67)
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, Reason.CLAIM)


def test_no_trick_at_closing_scores_3_for_the_closer() -> None:
    s = from_deal(
        "TS QC QS AD 7H TD",
        "KD JC 8D AH 8C 9H",
        "JH 8H 9S 7D TC KH 9C TH JD KS KC 7S 9D 8S AC 7C QD QH AS JS",
    )
    run(s, "QC JC AD 8D 7H KD JH 8C TS AH close")
    assert s.closed_position == (0, 0)
    run(s, "JD 7D 9S KS TH QS TC KH TD 8H 9C 9H")
    assert s.tricks[1] == 1  # the opponent won a trick after the closing ...
    s.apply(Claim())
    assert s.result is not None  # ... but had none at the closing
    assert (s.result.winner, s.result.game_points, s.result.reason) == (0, 3, Reason.CLAIM)


def test_closer_false_claim_is_a_failed_closing() -> None:
    s = from_deal(
        "8H 7C TD KC AD TC",
        "9S 8S 8D 9H 8C QS",
        "KH QH QC 9D JH TH AH 7D 7S AC JC 9C JD AS KD 7H QD TS JS KS",
    )
    run(s, "TD 8D KC 8C AD 9S 9D QC close QS KH")
    assert s.closed_position == (14, 2) and s.points[1] < 66
    s.apply(Claim())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (
        0,
        2,
        Reason.CLOSER_FAILED,
    )


def test_opponent_claims_first_after_closing_scores_2() -> None:
    s = from_deal(
        "TD 8C 9C KH 7C 8D",
        "JH 9D 9S 8S AC AD",
        "TS QH QS JC AS QC JD 7S KC KS TC JS 7H AH 8H KD 9H QD 7D TH",
    )
    run(s, "KH AC 8D 9S TD QH 8S TS QS 9D marriage:C KC KS 9C JH close 7H AH claim")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (
        0,
        2,
        Reason.OPPONENT_CLAIMED_AFTER_CLOSE,
    )


def test_opponent_claims_first_without_a_trick_at_closing_scores_3() -> None:
    s = from_deal(
        "TH AH JC 7D 9S QC",
        "AS 7S TC 8C JH 7C",
        "7H AC JS TS KC KD QD 9D KS TD QH 8H QS 9C 8D KH JD 8S 9H AD",
    )
    run(s, "7D JH 7H 7S QC 8C TH 7C close")
    assert s.closed_by == 0 and s.closed_position == (0, 0)
    run(s, "QD KD TC JC 9D KC AC JS AS 9S TS AH claim")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (
        1,
        3,
        Reason.OPPONENT_CLAIMED_AFTER_CLOSE,
    )


def test_exchange_then_close_in_the_same_turn() -> None:
    s = from_deal(
        "8D JC JS AD KD 9D",
        "8C 7H 7C QD AC TD",
        "AS KH TH QS 7D 8S AH QC 9H 7S QH 9C KS TS JD TC 9S KC 8H JH",
    )
    run(s, "JS 8C 9D QD TD AD JC TH 8S 7D KH QS 9H AS AH KD")
    assert s.turn == 1 and s.indicator == action("JH").card  # type: ignore[attr-defined]
    run(s, "exchange")
    assert s.indicator == action("7H").card  # type: ignore[attr-defined]
    run(s, "close KS TS 9C AC JD 8D 7C QC 7S QH JH TC claim")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, Reason.CLAIM)


# --- the end of the cards ------------------------------------------------------------------


def test_last_trick_of_a_closed_hand_may_still_be_claimed() -> None:
    """[decision] After the last trick of a closed hand its winner may still claim."""
    s = from_deal(
        "8S 7H KS KD JH AD",
        "JC 7C 7D 8D KH TC",
        "QC TS 9H TD AH 9S AS 8C 8H 9D QS QD 9C KC JD QH AC TH 7S JS",
    )
    run(s, "KS JC 8S 7D 9H KH TC KD TD QC 8H 9D close AS 9S AH 7H TS JH 8D AD 8C 7C QD QS")
    assert s.hands == [0, 0] and s.turn == 1 and s.legal_actions() == [Claim(), Decline()]
    s.apply(Claim())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, Reason.CLAIM)
    assert s.result.points == (17, 71)  # no last-trick bonus in a closed hand


def test_closer_who_declines_after_the_last_trick_has_failed() -> None:
    """[decision] If nobody has claimed correctly by the end, the closer has failed, even with
    66 or more points."""
    s = from_deal(
        "8H JS TS TD JD AH",
        "TH QS 9C 7C QD KH",
        "9S 9H 8S 8D KD QH 7S JH AD KC QC AS KS 7D 9D TC 7H AC JC 8C",
    )
    run(s, "TS 9C KH AH TD 7C 8D 8S marriage:D QD JS close 7S KC JH TH QS JD 9S 8H KD QH AD 9H")
    assert s.turn == 1 and s.closed_by == 1 and s.points[1] >= 66
    s.apply(Decline())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (
        0,
        2,
        Reason.CLOSER_FAILED,
    )


def test_unclosed_last_trick_ends_by_exhaustion_without_a_claim() -> None:
    """[decision] After the last trick of an unclosed hand nobody claims; +10 decides here."""
    s = from_deal(
        "TC 8H 7D 7H KH 9D",
        "TH AD 9C AS 8C KC",
        "8D 9H QD KS KD TD JD QS JH TS AH 7S AC 9S QC JC QH 7C 8S JS",
    )
    run(s, "7D 9C TC 8C 8H TH AD KH KS TD KC 8D JH QD JD 9S TS AH 7H AC QH 9H 9D KD AS 8S JS QS")
    run(s, "QC JC 7S")
    assert not s.done and s.points == [57, 63]
    s.apply(action("7C"))  # seat 0 takes the last trick: 57 + 10 = 67 > 63
    assert s.done and s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (0, 1, Reason.EXHAUSTED)
    assert s.result.points == (67, 63) and s.result.tricks == (9, 7)


def test_exhaustion_tie_scores_nothing() -> None:
    s = from_deal(
        "7S TD QD JH QC 8D",
        "AD TS 7C KS 9D JC",
        "KH JS 8C TC AH 9H QS QH 7D TH JD KD 9C 9S AS 8H 8S KC AC 7H",
    )
    run(s, "QC 9D 7S KS JC QD TS TD AD 9H 8D TH AH TC 7C 7D JD KD QH KC JH 7H 9S QS 9C AC KH AS")
    run(s, "8S JS 8C 8H")
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (None, 0, Reason.TIE)
    assert s.result.points == (65, 65)


def test_closer_fails_when_the_opponent_takes_the_last_trick_and_declines() -> None:
    s = from_deal(
        "JH QS 9D 7H AH KD",
        "9C QD 8C KS 8S 7C",
        "7D 8D AD 8H TH JD JC 9H KC TD QC 7S JS AS KH QH TC 9S TS AC",
    )
    run(s, "QS QD close 7H 9C 8S AH 8D 9D KD 7C KS JH 8C 7D")
    assert s.turn == 1 and s.legal_actions() == [Claim(), Decline()]
    s.apply(Decline())
    assert s.result is not None
    assert (s.result.winner, s.result.game_points, s.result.reason) == (
        1,
        3,
        Reason.CLOSER_FAILED,
    )


# --- the strict phase and the open phase ----------------------------------------------------


def test_open_stock_allows_any_card() -> None:
    s = run(make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H"), "AS")
    assert len(s.legal_actions()) == 6


def test_strict_phase_follow_and_beat_else_trump_else_any() -> None:
    s = make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    run(s, "AS TS close")  # seat 0 has drawn the first stock card, seat 1 the second
    s0 = {c for c in s.hand_cards(0)}
    assert s.phase == Phase.STRICT and s0
    run(s, "7C")
    # seat 1 holds JC QC KC: must follow clubs and beat 7C with any of them
    legal = {a.card for a in s.legal_actions()}  # type: ignore[union-attr]
    assert legal == {c for c in s.hand_cards(1) if c >> 3 == 1 and c > action("7C").card}  # type: ignore[attr-defined]
    with pytest.raises(IllegalActionError, match=r"seat 1 cannot play JD: must follow clubs"):
        s.apply(action("JD"))


def test_illegal_follow_message_names_the_cards_that_beat() -> None:
    s = make_state("AS QH 7C 8C 9C 7D", "TS KH AH 9S 8D 9D", top="JD QD", indicator="7S")
    run(s, "AS TS close QH")
    with pytest.raises(IllegalActionError) as info:
        s.apply(action("9S"))
    assert str(info.value) == "seat 1 cannot play 9S: must follow hearts and beat QH (holds KH, AH)"
    s.apply(action("KH"))
    assert s.last_trick is not None and s.last_trick[3] == 1


def test_must_trump_without_the_suit() -> None:
    s = make_state("AS QH 7C 8C 9C 7D", "TS KS 7H 9S 8D 9D", top="JD QD", indicator="AH")
    run(s, "AS TS close 7C")
    with pytest.raises(IllegalActionError) as info:
        s.apply(action("8D"))
    assert str(info.value) == (
        "seat 1 cannot play 8D: has no clubs and must trump with hearts (holds 7H)"
    )
    assert s.legal_actions() == [action("7H")]


def test_strict_phase_messages_name_the_cards() -> None:
    s = from_deal(
        "8H JS TS TD JD AH",
        "TH QS 9C 7C QD KH",
        "9S 9H 8S 8D KD QH 7S JH AD KC QC AS KS 7D 9D TC 7H AC JC 8C",
    )
    run(s, "TS 9C KH AH TD 7C 8D 8S marriage:D QD JS close 7S KC JH")
    # seat 0 leads... the follower must beat when it can
    assert s.phase == Phase.STRICT
    lead = s.lead_card
    assert lead is not None
    illegal = [c for c in s.hand_cards(s.turn or 0) if not s.can_apply(action(_name(c)))]
    assert illegal
    for c in illegal:
        with pytest.raises(IllegalActionError, match=rf"seat {s.turn} cannot play {_name(c)}: "):
            s.apply(action(_name(c)))


def _name(c: int) -> str:
    from tapete.cards import card_name

    return card_name(c)


def test_exchange_needs_a_won_trick_and_the_trump_seven() -> None:
    s = make_state("7H AS 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    assert not s.can_apply(Exchange())  # no trick yet
    run(s, "AS TS")
    assert s.can_apply(Exchange())
    s.apply(Exchange())
    assert s.indicator == action("7H").card  # type: ignore[attr-defined]
    assert action("9H").card in s.hand_cards(0)  # type: ignore[attr-defined]
    with pytest.raises(IllegalActionError, match="does not hold the trump 7"):
        s.apply(Exchange())


def test_marriage_needs_a_won_trick() -> None:
    s = make_state("KS QS 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H")
    assert not s.can_apply(Marriage(0))
    with pytest.raises(IllegalActionError, match="only a player who has won a trick"):
        s.apply(Marriage(0))


def test_drawing_winner_first_indicator_last() -> None:
    s = make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", top="AH TH", indicator="9H")
    run(s, "7C JC")  # seat 1 wins and draws AH, seat 0 draws TH
    assert action("AH").card in s.hand_cards(1)  # type: ignore[attr-defined]
    assert action("TH").card in s.hand_cards(0)  # type: ignore[attr-defined]
    assert s.stock_count == 18


def test_trick_winner_rules() -> None:
    s = make_state("AS 7H 8C 9C 7D 8D", "TS JC QC KC JD 8H", indicator="9H")
    run(s, "8C JD")  # a card of another non-trump suit never wins
    assert s.last_trick is not None and s.last_trick[3] == 0
    run(s, "7D 8H")  # trump wins
    assert s.last_trick is not None and s.last_trick[3] == 1


def test_the_hand_is_over_for_every_action() -> None:
    s = run(make_state("AS 7C 8C 9C 7D 8D", "TS JC QC KC JD QD", indicator="9H"), "AS TS claim")
    assert s.legal_actions() == [] and s.turn is None
    with pytest.raises(IllegalActionError, match="nobody can play 7C: the hand is over"):
        s.apply(action("7C"))
