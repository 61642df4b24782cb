"""Scoring a deal and the game around it: defenders, bolts, the club barrel (880), casa's
barrel (800 / 400), the end of the game and the dealer's rotation."""

from __future__ import annotations

import pytest
from mil_helpers import (
    CASA_138,
    CLUB_164,
    CLUB_BOLT,
    Deal,
    game_of,
    play_deal,
    points,
)

from tapete.errors import IllegalActionError
from tapete.mil import CASA, CASA_500, CLUB, Pass, Standing, settle

NO_MARRIAGE = CLUB_164.replace("play QD*", "play QD")  # raw 84 / 23 / 13


def club(deal: Deal, contract: int | None = None, barrel=(False, False, False), **standing):
    """Settle ``deal`` (optionally with another contract) from a standing in whole points."""
    if contract is not None:
        old = deal.script.split("contract ")[1].split()[0]
        deal = deal.replace(f"contract {old}", f"contract {contract}")
    scores = standing.pop("scores", (0, 0, 0))
    st = deal.played(CLUB, barrel)
    base = Standing(scores=tuple(int(2 * s) for s in scores), in_barrel=barrel, **standing)
    return settle(CLUB, base, st)


# ---------------------------------------------------------------- the contract, defenders
def test_surplus_is_lost_and_a_failed_contract_costs_the_contract() -> None:
    assert points(club(CLUB_164, 100).standing) == [100, 25, 15]
    assert points(club(CLUB_164, 165).standing) == [-165, 25, 15]
    assert points(club(NO_MARRIAGE, 100).standing) == [-100, 25, 15]  # 84 < 100
    assert points(club(NO_MARRIAGE, 100, scores=(50, -30, 7.5)).standing) == [-50, -5, 22.5]


def test_scores_may_go_negative() -> None:
    assert points(club(NO_MARRIAGE, 160, scores=(40, 0, 0)).standing) == [-120, 25, 15]


# ---------------------------------------------------------------- bolts
def test_a_defender_with_zero_raw_gets_a_bolt_mark() -> None:
    res = club(CLUB_BOLT)
    assert res.raw == (107, 13, 0)
    assert points(res.standing) == [100, 15, 0]
    assert res.standing.bolts == (0, 0, 1)


def test_every_third_bolt_costs_120_and_the_counter_restarts() -> None:
    res = club(CLUB_BOLT, scores=(0, 0, 300), bolts=(0, 0, 2))
    assert points(res.standing) == [100, 15, 180]
    assert res.standing.bolts == (0, 0, 0)


def test_bolt_marks_need_not_be_consecutive() -> None:
    game = game_of("club", CLUB_BOLT, bolts=(0, 0, 0))
    play_deal(game, CLUB_BOLT)  # seat 2: 0 raw -> mark 1
    assert game.standing.bolts == (0, 0, 1)
    # the next deal rotates: seat 0 takes nothing now (rotated CLUB_BOLT: raw 0/107/13)
    play_deal(game, CLUB_BOLT)
    assert game.standing.bolts == (1, 0, 1)
    play_deal(game, CLUB_BOLT)  # raw 13/0/107: seat 1 takes nothing
    assert game.standing.bolts == (1, 1, 1)
    assert game.scores == [115, 115, 115]


def test_no_bolt_for_a_defender_in_the_barrel() -> None:
    res = club(CLUB_BOLT, barrel=(False, False, True), scores=(0, 0, 880), bolts=(0, 0, 2))
    assert points(res.standing) == [100, 15, 880]
    assert res.standing.bolts == (0, 0, 2)
    assert res.standing.barrel_attempts == (0, 0, 1)


#: club, dealer 2: declarer 0 (contract 100) takes no card at all; seat 1 takes all 120
CLUB_ZERO = Deal(
    ["KC JS 9H QS AD JH JD", "TC QC QH AC TH AH KH", "KD TD 9S 9D AS JC QD"],
    "KS TS 9C",
    2,
    "bid 100 pass pass give TS 1 give KS 2 contract 100 "
    "play JH play AH play TD play TH play KD play 9H play QH play KS play KC "
    "play TC play JC play 9C play AC play 9D play JS play TS play 9S play QS "
    "play KH play QD play JD play QC play AS play AD",
)


def test_the_declarer_never_gets_a_bolt_mark() -> None:
    res = club(CLUB_ZERO, bolts=(2, 0, 0))
    assert res.raw == (0, 120, 0)
    # the defender with nothing gets its mark; the declarer with nothing does not
    assert res.standing.bolts == (2, 0, 1)
    assert points(res.standing) == [-100, 120, 0]


def test_casa_has_no_bolts() -> None:
    st = CASA_138.played(CASA)
    assert settle(CASA, Standing(), st).standing.bolts == (0, 0, 0)


# ---------------------------------------------------------------- club barrel
def test_reaching_880_caps_and_enters_the_barrel_no_jumping_over_it() -> None:
    res = club(CLUB_164, 160, scores=(800, 855, 0))
    assert points(res.standing) == [880, 880, 15]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.barrel_attempts == (0, 0, 0)
    assert res.winner is None


def test_barrel_declarer_makes_its_contract_and_wins_others_settled_as_usual() -> None:
    res = club(CLUB_164, 160, barrel=(True, True, False), scores=(880, 880, 100))
    assert res.winner == 0
    assert points(res.standing) == [1040, 880, 115]  # 880 + 160, not capped
    assert res.standing.in_barrel == (False, True, False)
    assert res.standing.barrel_attempts == (0, 1, 0)  # the other occupant used an attempt


def test_barrel_declarer_failing_loses_the_contract_and_leaves() -> None:
    res = club(NO_MARRIAGE, 160, barrel=(True, False, False), scores=(880, 0, 0))
    assert points(res.standing) == [720, 25, 15]
    assert res.standing.in_barrel == (False, False, False)
    assert res.standing.failed_visits == (1, 0, 0)
    assert res.winner is None


def test_attempts_count_whoever_declares_and_annulled_deals_do_not() -> None:
    res = club(
        CLUB_164, 160, barrel=(False, True, False), scores=(0, 880, 0), barrel_attempts=(0, 1, 0)
    )
    assert res.standing.barrel_attempts == (0, 2, 0) and points(res.standing)[1] == 880


def test_the_deal_of_entry_is_not_an_attempt() -> None:
    game = game_of("club", CLUB_164, scores=(0, 870, 0))
    play_deal(game, CLUB_164)  # seat 1: 870 + 25 -> 880, enters
    assert game.standing.in_barrel == (False, True, False)
    assert game.standing.barrel_attempts == (0, 0, 0)


def test_two_occupants_and_a_third_arrival_push_both_out() -> None:
    res = club(CLUB_164, 160, barrel=(False, True, True), scores=(800, 880, 880))
    assert points(res.standing) == [880, 760, 760]
    assert res.standing.in_barrel == (True, False, False)
    assert res.standing.failed_visits == (0, 1, 1)
    assert res.standing.barrel_attempts == (0, 0, 0)


def test_one_occupant_and_one_arrival_both_stay() -> None:
    res = club(CLUB_164, 160, barrel=(False, True, False), scores=(800, 880, 0))
    assert points(res.standing) == [880, 880, 15]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.barrel_attempts == (0, 1, 0)


def test_two_arrivals_push_out_the_one_previous_occupant() -> None:
    res = club(CLUB_164, 160, barrel=(False, False, True), scores=(800, 870, 880))
    assert points(res.standing) == [880, 880, 760]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.failed_visits == (0, 0, 1)


def test_three_arrivals_the_two_highest_uncapped_stay() -> None:
    res = club(CLUB_164, 100, scores=(870, 870, 870))  # 970, 895, 885
    assert points(res.standing) == [880, 880, 760]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.failed_visits == (0, 0, 1)


# CLUB_164 with dealer 0 and seat 0 winning the auction from the dealer's seat:
# seat 1 opens 100, seat 2 passes, seat 0 bids 105, seat 1 passes.
DEALER0 = Deal(
    CLUB_164.hands,
    CLUB_164.talon,
    0,
    CLUB_164.script.replace("bid 100 pass pass", "bid 100 pass bid 105 pass"),
).replace("contract 160", "contract 105")
# dealer 1: seat 2 opens 100, seat 0 bids 105, seats 1 and 2 pass.
DEALER1 = Deal(
    CLUB_164.hands,
    CLUB_164.talon,
    1,
    CLUB_164.script.replace("bid 100 pass pass", "bid 100 bid 105 pass pass"),
).replace("contract 160", "contract 105")


def test_three_arrivals_tie_the_declarer_stays_first() -> None:
    # all three at 900 uncapped; the declarer (seat 0) first, then clockwise from the
    # dealer's left (seat 1, then seat 2): seat 2 is third
    res = club(DEALER0, scores=(795, 875, 885))
    assert res.declarer == 0
    assert points(res.standing) == [880, 880, 760]
    assert res.standing.failed_visits == (0, 0, 1)


@pytest.mark.parametrize(("deal", "third"), [(DEALER0, 2), (DEALER1, 1)])
def test_three_arrivals_tied_defenders_go_clockwise_from_the_dealers_left(deal, third) -> None:
    # the declarer is ahead (975); both defenders at 880 uncapped
    res = club(deal, scores=(870, 855, 865))
    assert res.declarer == 0
    want = [880, 880, 880]
    want[third] = 760
    assert points(res.standing) == want
    assert res.standing.in_barrel == tuple(s != third for s in range(3))


def test_three_attempts_without_a_win_leave_760() -> None:
    res = club(
        CLUB_164, 160, barrel=(False, False, True), scores=(0, 0, 880), barrel_attempts=(0, 0, 2)
    )
    assert points(res.standing) == [160, 25, 760]
    assert res.standing.in_barrel == (False, False, False)
    assert res.standing.failed_visits == (0, 0, 1)


@pytest.mark.parametrize(
    ("how", "kwargs"),
    [
        (
            "attempts",
            dict(barrel=(False, False, True), scores=(0, 0, 880), barrel_attempts=(0, 0, 2)),
        ),
        ("pushed", dict(barrel=(False, True, True), scores=(800, 880, 880))),
    ],
)
def test_third_failed_visit_resets_to_zero_and_the_counter_restarts(how, kwargs) -> None:
    res = club(CLUB_164, 160, failed_visits=(0, 0, 2), **kwargs)
    assert points(res.standing)[2] == 0
    assert res.standing.failed_visits[2] == 0
    assert not res.standing.in_barrel[2]


def test_third_failed_visit_by_a_failed_contract() -> None:
    res = club(
        NO_MARRIAGE, 160, barrel=(True, False, False), scores=(880, 0, 0), failed_visits=(2, 0, 0)
    )
    assert points(res.standing) == [0, 25, 15]
    assert res.standing.failed_visits == (0, 0, 0)


def test_order_of_steps_exhausted_occupant_leaves_before_the_arrivals() -> None:
    # (3) seat 2 uses its third attempt and leaves at 760; (4) seats 0 and 1 arrive: with
    # seat 2 already out there is room for both, and seat 2 is not pushed out a second time
    res = club(
        CLUB_BOLT, barrel=(False, False, True), scores=(800, 870, 880), barrel_attempts=(0, 0, 2)
    )
    assert points(res.standing) == [880, 880, 760]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.failed_visits == (0, 0, 1)
    assert res.standing.bolts == (0, 0, 0)  # no bolt in the barrel


def test_order_of_steps_bolt_penalty_before_the_cap() -> None:
    # (2) before (4): seat 2 at 870 with two marks takes nothing: 870 - 120 = 750
    res = club(CLUB_BOLT, scores=(0, 0, 870), bolts=(0, 0, 2))
    assert points(res.standing) == [100, 15, 750]
    assert res.standing.in_barrel == (False, False, False)


def test_winning_ends_the_game() -> None:
    game = game_of("club", CLUB_164, scores=(880, 0, 0), in_barrel=(True, False, False))
    play_deal(game, CLUB_164)
    assert game.over and game.winner == 0 and game.turn is None and game.phase == "over"
    assert game.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(Pass())
    view = game.view(1)
    assert view["over"] is True and view["winner"] == 0 and view["legal"] == []
    assert game.to_record()["winner"] == 0


def test_the_views_of_a_won_game_show_its_last_deal_as_it_ended() -> None:
    # the table of a finished game: the last deal's tricks, talon, contract and marriages
    # (public), each seat's own gives only; nobody to act and no hand's points
    game = game_of("club", CLUB_164, scores=(880, 0, 0), in_barrel=(True, False, False))
    play_deal(game, CLUB_164)
    assert game.over and game.state is None
    for seat in (0, 1, 2, None):
        view = game.view(seat)
        assert view["phase"] == "over" and view["turn"] is None and view["legal"] == []
        assert view["deal_number"] == 1 and view["dealer"] == 2 and view["declarer"] == 0
        assert view["contract"] == 160 and view["talon"] == ["AH", "9S", "JS"]
        assert len(view["tricks"]) == 8 and view["tricks_won"] == [5, 2, 1]
        assert view["tricks"][-1] == {
            "leader": 1,
            "cards": [
                {"seat": 1, "card": "JH"},
                {"seat": 2, "card": "AH"},
                {"seat": 0, "card": "9S"},
            ],
            "winner": 2,
        }
        assert view["marriages"] == [{"seat": 0, "suit": "D", "value": 80}]
        assert view["hand"] == [] and view["hand_counts"] == [0, 0, 0]
        assert view["hand_points"] is None and view["redeal_cards"] == {}
        # (a give's card for the declarer and the receiver only, as during the deal)
        assert [g["card"] for g in view["given"]] == {
            0: ["AD", "AH"],
            1: ["AD", None],
            2: [None, "AH"],
            None: [None, None],
        }[seat]


def test_dealer_passes_clockwise_after_each_completed_deal() -> None:
    game = game_of("club", CLUB_164, dealer=1)
    dealers = []
    for _ in range(4):
        dealers.append(game.dealer)
        play_deal(game, CLUB_164)
    assert dealers == [1, 2, 0, 1]
    assert [d["dealer"] for d in game.to_record()["deals"]] == [1, 2, 0, 1]


# ---------------------------------------------------------------- casa
def casa(profile, deal, scores):
    st = deal.played(profile)
    return settle(profile, Standing(scores=tuple(2 * s for s in scores)), st)


#: casa, dealer 2, declarer 0 fails 120 (raw 12); the defenders take 113 (with the clubs
#: marriage) and 55.
CASA_FAIL = Deal(
    ["9C TD KH QD JS AS JH", "TC KC JD AH 9D KS QC", "QH TH 9S QS KD AC TS"],
    "AD 9H JC",
    2,
    "bid 100 pass pass give JH 1 give AD 2 contract 120 "
    "play JS play KS play TS play TH play 9H play AH play QC* play AC play JC "
    "play QH play KH play JH play TD play JD play AD play QS play AS play KC "
    "play TC play KD play 9C play 9D play 9S play QD",
)


def test_casa_fail_deal() -> None:
    st = CASA_FAIL.played(CASA)
    assert st.raw() == (12, 113, 55)
    assert points(casa(CASA, CASA_FAIL, (0, 0, 0)).standing) == [-120, 110, 50]


def test_casa_from_800_no_defender_points() -> None:
    res = casa(CASA, CASA_138, (0, 800, 799))
    assert points(res.standing) == [120, 800, 819]


def test_casa_declarer_in_the_barrel_still_scores_and_wins_at_1000() -> None:
    res = casa(CASA, CASA_138, (850, 0, 0))
    assert points(res.standing) == [970, 20, 20] and res.winner is None
    res = casa(CASA, CASA_138, (880, 0, 0))
    assert points(res.standing)[0] == 1000 and res.winner == 0
    res = casa(CASA, CASA_FAIL, (900, 0, 0))
    assert points(res.standing) == [780, 110, 50]


def test_casa_defender_cap() -> None:
    assert CASA.defender_cap == 990 and CASA_500.defender_cap == 490
    res = casa(CASA_500, CASA_FAIL, (0, 390, 300))
    assert points(res.standing) == [-120, 490, 350]  # 390 + 110 = 500 -> 490: no win
    assert res.winner is None


def test_casa_500_barrel_from_400_and_target_500() -> None:
    res = casa(CASA_500, CASA_138, (380, 400, 399))
    assert points(res.standing) == [500, 400, 419]
    assert res.winner == 0


def test_casa_record_fields() -> None:
    res = casa(CASA, CASA_138, (0, 800, 500))
    js = res.to_json(CASA)
    assert js["in_barrel"] == [False, True, False]
    assert js["bolts"] == [0, 0, 0] and js["barrel_attempts"] == [0, 0, 0]
    assert js["failed_visits"] == [0, 0, 0]


def test_casa_game_ends_when_the_declarer_reaches_1000() -> None:
    game = game_of("casa", CASA_138, scores=(880, 0, 0))
    play_deal(game, CASA_138)
    assert game.over and game.winner == 0 and game.scores == [1000, 20, 20]


# ---------------------------------------------------------------- why a deal's end took points
@pytest.mark.parametrize(
    ("deal", "contract", "kwargs", "penalties"),
    [
        (CLUB_BOLT, None, dict(scores=(0, 0, 300), bolts=(0, 0, 2)), ((2, "third_bolt"),)),
        (
            CLUB_164,
            160,
            dict(barrel=(False, False, True), scores=(0, 0, 880), barrel_attempts=(0, 0, 2)),
            ((2, "attempts_used"),),
        ),
        (
            CLUB_164,
            160,
            dict(barrel=(False, True, True), scores=(800, 880, 880)),
            ((1, "pushed_out"), (2, "pushed_out")),
        ),
        (CLUB_164, 100, dict(scores=(870, 870, 870)), ((2, "arrives_third"),)),
        (
            CLUB_164,
            160,
            dict(barrel=(False, True, True), scores=(800, 880, 880), failed_visits=(0, 0, 2)),
            ((1, "pushed_out"), (2, "pushed_out"), (2, "back_to_zero")),
        ),
        # (a failed contract, the barrel's won one, a cap and an entry are no penalties)
        (NO_MARRIAGE, 160, dict(barrel=(True, False, False), scores=(880, 0, 0)), ()),
        (CLUB_164, 160, dict(barrel=(True, False, False), scores=(880, 0, 0)), ()),
        (CLUB_164, 160, dict(scores=(0, 870, 0)), ()),
    ],
)
def test_a_penalty_says_whose_and_why(deal, contract, kwargs, penalties) -> None:
    """``DealResult.penalties``: per seat, why the deal's end took its points (a defender who
    took 47 points and lost 120 was shown no reason), in seat order, then the order of the
    steps."""
    assert club(deal, contract, **kwargs).penalties == penalties


def test_the_sheet_row_names_the_penalties_and_only_then() -> None:
    game = game_of("club", CLUB_164, scores=(800, 880, 880), in_barrel=(False, True, True))
    play_deal(game, CLUB_164)
    row = game.view(None)["sheet"][-1]
    assert row["penalties"] == [{"seat": 1, "why": "pushed_out"}, {"seat": 2, "why": "pushed_out"}]
    plain = game_of("club", CLUB_164)
    play_deal(plain, CLUB_164)
    assert "penalties" not in plain.view(None)["sheet"][-1]
