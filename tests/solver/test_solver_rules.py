"""Named positions for the solver's card-play rules, position checks and small solves."""

from __future__ import annotations

import doctest

import pytest

import tapete.solver
from tapete.cards import CardSet, parse_card, trick_winner
from tapete.solver import (
    MilPosition,
    best_moves,
    can_reach,
    legal_moves,
    play,
    reference_best_moves,
    reference_solve,
    solve,
    to_move,
)

BACKENDS = ["c", "python"] if tapete.solver.BACKEND == "c" else ["python"]


def m(text: str) -> int:
    return CardSet.parse(text).mask


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


def names(moves: list[tuple[int, bool]]) -> list[str]:
    return [str(CardSet([c])) + ("+" if a else "") for c, a in moves]


def pos(h0: str, h1: str, h2: str, **kw: object) -> MilPosition:
    defaults: dict[str, object] = {"declarer": 0, "leader": 0, "tricks_played": 1}
    defaults.update(kw)
    return MilPosition((m(h0), m(h1), m(h2)), **defaults)  # type: ignore[arg-type]


def test_doctests() -> None:
    assert doctest.testmod(tapete.solver).failed == 0


# ---------------------------------------------------------------- following: club
def test_club_follow_suit_without_duty_to_beat() -> None:
    # seat 2 led TS, seat 0 (void) discarded AH; seat 1 holds 9S, KS: both legal
    p = MilPosition(
        (m("9C QH"), m("9S KS TD"), m("JS QD")), 0, 2, cards("TS AH"), None, (0, 0, 0), 5
    )
    assert to_move(p) == 1
    assert names(legal_moves(p)) == ["9S", "KS"]


def test_club_void_must_trump_but_need_not_overtrump() -> None:
    p = MilPosition((m("9C JC"), m("AS TH"), m("QH KC 9D")), 0, 0, cards("AC 9H"), 3, (0, 0, 0), 5)
    # seat 2: no clubs... holds KC, so must follow clubs
    assert to_move(p) == 2
    assert names(legal_moves(p)) == ["KC"]
    p = MilPosition((m("9C JC"), m("AS TH"), m("QH KD 9D")), 0, 0, cards("AC AH"), 3, (0, 0, 0), 5)
    # void in clubs with a trump (QH) that cannot beat AH: must still play it
    assert names(legal_moves(p)) == ["QH"]


def test_club_void_without_trump_plays_anything() -> None:
    p = MilPosition((m("9C JC"), m("AS TH"), m("9S QD KD")), 0, 0, cards("AC 9H"), 3, (0, 0, 0), 5)
    assert names(legal_moves(p)) == ["9S", "QD", "KD"]
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("QH KD 9D")), 0, 0, cards("AC 9S"), None, (0, 0, 0), 5
    )
    assert names(legal_moves(p)) == ["9D", "KD", "QH"]


# ---------------------------------------------------------------- following: casa
def test_casa_must_head_the_led_suit() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("9D KD AD")), 0, 0, cards("QD JD"), None, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["KD", "AD"]
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("9D KD AD")), 0, 0, cards("QD JD"), None, (0, 0, 0), 5, "club"
    )
    assert names(legal_moves(p)) == ["9D", "KD", "AD"]


def test_casa_unable_to_head_plays_any_card_of_the_suit() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("9D JD 9S")), 0, 0, cards("AD QD"), None, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["9D", "JD"]


def test_casa_trick_already_trumped_any_card_of_the_led_suit() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("9D AD 9S")), 0, 0, cards("KD 9H"), 3, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["9D", "AD"]


def test_casa_led_suit_is_trump_must_beat_the_highest_trump() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TS"), m("9H AH 9S")), 0, 0, cards("JH QH"), 3, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["AH"]


def test_casa_void_must_overtrump_if_possible() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TS"), m("9H AH KS")), 0, 0, cards("AC QH"), 3, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["AH"]
    p = MilPosition(
        (m("9C JC"), m("AS TS"), m("9H JH KS")), 0, 0, cards("AC QH"), 3, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["9H", "JH"]
    p = MilPosition(
        (m("9C JC"), m("AS TS"), m("9H JH KS")), 0, 0, cards("AC KC"), 3, (0, 0, 0), 5, "casa"
    )
    assert names(legal_moves(p)) == ["9H", "JH"]


def test_casa_500_plays_like_casa() -> None:
    p = MilPosition(
        (m("9C JC"), m("AS TH"), m("9D KD AD")),
        0,
        0,
        cards("QD JD"),
        None,
        (0, 0, 0),
        5,
        "casa-500",
    )
    assert names(legal_moves(p)) == ["KD", "AD"]


# ---------------------------------------------------------------- marriages
def test_no_marriage_on_the_first_trick() -> None:
    p = pos("KH QH 9S", "AS TS JS", "AC TC JC", tricks_played=0)
    assert all(not a for _, a in legal_moves(p))


def test_club_marriage_is_a_choice_casa_automatic() -> None:
    p = pos("KH QH 9S", "AS TS JS", "AC TC JC")
    assert names(legal_moves(p)) == ["9S", "QH", "QH+", "KH", "KH+"]
    p = pos("KH QH 9S", "AS TS JS", "AC TC JC", profile="casa")
    assert names(legal_moves(p)) == ["9S", "QH+", "KH+"]


def test_never_when_following() -> None:
    p = MilPosition(
        (m("9S KH QH"), m("AS TS JS"), m("AC TC")), 0, 2, cards("9C"), None, (0, 0, 0), 3
    )
    # seat 0 follows with the pair in hand: no announcement
    assert all(not a for _, a in legal_moves(p))


def test_announcement_sets_trump_at_once_and_scores() -> None:
    p = pos("KH QH 9S", "AS TS JS", "AC TC JC", trump=0)
    after = play(p, parse_card("QH"), True)
    assert after.trump == 3 and after.points == (100, 0, 0)
    # a later announcement replaces the trump and keeps earlier bonuses
    q = MilPosition((m("KS QS 9D"), m("AD TD JD"), m("AC TC JC")), 1, 0, (), 3, (100, 5, 0), 5)
    after = play(q, parse_card("KS"), True)
    assert after.trump == 0 and after.points == (140, 5, 0)


def test_marriage_trumps_the_same_trick() -> None:
    # seat 0 leads QS announcing spades; seat 1 void in spades must trump... spades is trump:
    p = pos("KS QS 9D", "AD TD JD", "AS TS JC", declarer=0)
    after = play(p, parse_card("QS"), True)
    # seat 1 has no spades and no trumps: plays anything; seat 2 must head with AS, TS? club:
    assert names(legal_moves(after)) == ["JD", "TD", "AD"]


# ---------------------------------------------------------------- trick winner
def test_trick_winner() -> None:
    assert trick_winner(cards("TS AS 9S"), -1) == 1
    assert trick_winner(cards("TS AH 9S"), -1) == 0
    assert trick_winner(cards("TS 9H AS"), 3) == 1
    assert trick_winner(cards("TS 9H JH"), 3) == 2
    assert trick_winner(cards("QH 9S AS"), 3) == 0


def test_completing_a_trick_scores_it_and_passes_the_lead() -> None:
    p = MilPosition((m("AS JC"), m("TS JD"), m("9S QD")), 2, 0, (), None, (0, 0, 30), 6)
    p = play(play(play(p, parse_card("AS")), parse_card("TS")), parse_card("9S"))
    assert p.leader == 0 and p.points == (21, 0, 30) and p.tricks_played == 7 and not p.trick


# ---------------------------------------------------------------- invalid positions
@pytest.mark.parametrize(
    "kw",
    [
        {"hands": (m("AS"), m("AS"), m("9S"))},
        {"hands": (m("AS"), m("TS"), m("9S JS"))},
        {"hands": (m("AS") | 1, m("TS"), m("9S"))},
        {"profile": "poker"},
        {"declarer": 3},
        {"trump": 4},
        {"trick": cards("AS")},
        {"tricks_played": 8},
    ],
)
def test_invalid_positions_are_rejected(kw: dict[str, object]) -> None:
    base: dict[str, object] = {
        "hands": (m("AS"), m("TS"), m("9S")),
        "declarer": 0,
        "leader": 0,
        "tricks_played": 7,
    }
    base.update(kw)
    with pytest.raises(ValueError, match="invalid Mil position"):
        MilPosition(**base)  # type: ignore[arg-type]


# ---------------------------------------------------------------- small solves
@pytest.mark.parametrize("backend", BACKENDS)
def test_last_trick(backend: str) -> None:
    p = pos("AH", "TH", "9S", tricks_played=7)
    assert solve(p, backend=backend) == 21
    p = MilPosition((m("AH"), m("TH"), m("9S")), 1, 0, (), None, (0, 33, 0), 7)
    assert solve(p, backend=backend) == 33


@pytest.mark.parametrize("backend", BACKENDS)
def test_declarer_announces_to_win(backend: str) -> None:
    # seat 0 (declarer) on lead with KH QH and AS: announcing hearts makes the pair trumps
    p = MilPosition(
        (m("KH QH AS"), m("TS 9S JS"), m("AC TC JC")), 0, 0, (), None, (0, 0, 0), 5, "club"
    )
    ref = reference_solve(p)
    assert solve(p, backend=backend) == ref
    assert ref >= 100
    moves = best_moves(p, backend=backend)
    assert moves == reference_best_moves(p)
    assert any(a and v == ref for _, a, v in moves)


@pytest.mark.parametrize("backend", BACKENDS)
def test_defenders_minimise(backend: str) -> None:
    # seat 1 (defender) to play: the values are the declarer's, the best is the smallest
    p = MilPosition((m("AS 9C"), m("TS 9S"), m("KS 9D")), 2, 0, (), None, (0, 0, 0), 6)
    moves = best_moves(p, backend=backend)
    assert moves == reference_best_moves(p)
    assert solve(p, backend=backend) == max(v for _, _, v in moves)


@pytest.mark.parametrize("backend", BACKENDS)
def test_can_reach_is_solve_threshold(backend: str) -> None:
    p = MilPosition(
        (m("AS KH QH 9C"), m("TS 9S JD QD"), m("KS 9D AC TC")), 0, 0, (), None, (10, 0, 0), 4
    )
    v = solve(p, backend=backend)
    assert v == reference_solve(p)
    assert can_reach(p, v, backend=backend)
    assert not can_reach(p, v + 1, backend=backend)
    assert can_reach(p, 10, backend=backend) and can_reach(p, -5, backend=backend)


def test_finished_position() -> None:
    p = MilPosition((0, 0, 0), 1, 2, (), 3, (50, 70, 0), 8)
    assert to_move(p) is None and legal_moves(p) == [] and best_moves(p) == []
    assert solve(p) == 70 and reference_solve(p) == 70 and can_reach(p, 70)


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="backend"):
        solve(pos("AH", "TH", "9S", tricks_played=7), backend="gpu")
