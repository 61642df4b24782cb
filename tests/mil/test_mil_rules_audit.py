"""Rules audit: the sentences of ../shared/rules/mil.md that no other test pinned.

Each test is named after the rule it checks; every expected number is worked out by hand from
the rules text (written next to it), never read back from the engine. The deals are the
shared ones of ``mil_helpers``: CLUB_164 (raw 164 / 23 / 13 with the diamonds marriage,
declarer seat 0), CLUB_BOLT (raw 107 / 13 / 0, declarer seat 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from mil_helpers import CLUB_164, CLUB_BOLT, Deal, cards, make_state, points, run

from tapete.errors import IllegalActionError
from tapete.mil import CASA, CASA_500, CLUB, Play, Profile, Standing, settle

ROSPIS_164 = CLUB_164.with_script("bid 100 pass pass rospis")  # declarer seat 0, bid 100


def club(
    deal: Deal,
    contract: int | None = None,
    barrel: tuple[bool, bool, bool] = (False, False, False),
    scores: tuple[float, float, float] = (0, 0, 0),
    **counts: tuple[int, int, int],
):
    """Settle ``deal`` (optionally with another contract) from a standing in whole points."""
    if contract is not None:
        old = deal.script.split("contract ")[1].split()[0]
        deal = deal.replace(f"contract {old}", f"contract {contract}")
    st = deal.played(CLUB, barrel)
    base = Standing(
        scores=(int(2 * scores[0]), int(2 * scores[1]), int(2 * scores[2])),
        in_barrel=barrel,
        **counts,  # type: ignore[arg-type]
    )
    return settle(CLUB, base, st)


# ---------------------------------------------------------------- rospis and the barrel
def test_rospis_halves_can_carry_both_defenders_into_the_barrel() -> None:
    # -bid for the declarer, +bid/2 for each opponent, then the cap at 880:
    # 200 - 100 = 100; 830 + 50 = 880 (reaches it); 837.5 + 50 = 887.5 -> 880
    res = club(ROSPIS_164, scores=(200, 830, 837.5))
    assert res.rospis and res.raw is None and res.contract == 100
    assert points(res.standing) == [100, 880, 880]
    assert res.standing.in_barrel == (False, True, True)
    assert res.standing.barrel_attempts == (0, 0, 0)  # the deal of entry is not an attempt


def test_rospis_with_one_defender_in_the_barrel_and_the_other_arriving() -> None:
    # seat 1 (in the barrel) gets nothing and uses its second attempt; seat 2 arrives:
    # two occupants, nobody is pushed out
    res = club(
        ROSPIS_164,
        barrel=(False, True, False),
        scores=(0, 880, 830),
        barrel_attempts=(0, 1, 0),
    )
    assert points(res.standing) == [-100, 880, 880]
    assert res.standing.in_barrel == (False, True, True)
    assert res.standing.barrel_attempts == (0, 2, 0)
    assert res.standing.failed_visits == (0, 0, 0)


def test_no_bolt_marks_in_a_rospis_deal() -> None:
    res = club(ROSPIS_164, bolts=(2, 2, 2))
    assert res.standing.bolts == (2, 2, 2)  # nobody took a card, nobody gets a mark
    assert points(res.standing) == [-100, 50, 50]


def test_rospis_from_the_barrel_is_refused_even_when_otherwise_legal() -> None:
    st = ROSPIS_164.state(CLUB, (True, False, False))
    run(st, "bid 100 pass pass")
    with pytest.raises(IllegalActionError, match="in the barrel may not concede"):
        run(st, "rospis")


# ---------------------------------------------------------------- bolts with the barrel
@pytest.mark.parametrize(("failed_before", "seat0"), [(0, 760), (2, 0)])
def test_third_bolt_in_the_same_deal_as_a_barrel_declarer_fails(failed_before, seat0) -> None:
    # seat 0 in the barrel must play at least 120; CLUB_BOLT gives it 107 < 120: 880 - 120 =
    # 760 and out (a failed visit; the third one puts it back to 0). Seat 1: 100 + 15 (13
    # rounds to 15). Seat 2 takes nothing outside the barrel: its third bolt, 50 - 120 = -70.
    res = club(
        CLUB_BOLT,
        120,
        barrel=(True, False, False),
        scores=(880, 100, 50),
        bolts=(0, 0, 2),
        failed_visits=(failed_before, 0, 0),
    )
    assert res.raw == (107, 13, 0) and res.winner is None
    assert points(res.standing) == [seat0, 115, -70]
    assert res.standing.bolts == (0, 0, 0)
    assert res.standing.in_barrel == (False, False, False)
    assert res.standing.failed_visits == ((1 if failed_before == 0 else 0), 0, 0)


def test_bolt_mark_of_a_defender_outside_while_the_other_defender_uses_an_attempt() -> None:
    # seat 1 in the barrel: nothing, attempt 1; seat 2 outside with 0 raw: first mark
    res = club(CLUB_BOLT, barrel=(False, True, False), scores=(0, 880, 0))
    assert points(res.standing) == [100, 880, 0]
    assert res.standing.bolts == (0, 0, 1)
    assert res.standing.barrel_attempts == (0, 1, 0)


# ---------------------------------------------------------------- entering, winning
def test_reaching_exactly_880_enters_the_barrel() -> None:
    # declarer 720 + 160 = 880; defender 855 + 25 = 880: both reach it, both enter
    res = club(CLUB_164, 160, scores=(720, 855, 0))
    assert points(res.standing) == [880, 880, 15]
    assert res.standing.in_barrel == (True, True, False)


def test_winning_deal_another_occupant_uses_its_third_attempt_and_leaves_760() -> None:
    # seat 0 makes 160 from the barrel: 1040 and the win; seat 1 (second occupant) uses its
    # third attempt in the same deal: 760 and a failed visit; seat 2: 100 + 15
    res = club(
        CLUB_164,
        160,
        barrel=(True, True, False),
        scores=(880, 880, 100),
        barrel_attempts=(0, 2, 0),
    )
    assert res.winner == 0
    assert points(res.standing) == [1040, 760, 115]
    assert res.standing.in_barrel == (False, False, False)
    assert res.standing.barrel_attempts == (0, 0, 0)
    assert res.standing.failed_visits == (0, 1, 0)


def test_winning_deal_a_defender_still_arrives_at_the_barrel() -> None:
    # [decision] the others are settled as in any completed deal: seat 1 860 + 25 -> 880
    res = club(CLUB_164, 160, barrel=(True, False, False), scores=(880, 860, 0))
    assert res.winner == 0
    assert points(res.standing) == [1040, 880, 15]
    js = res.to_json(CLUB)
    assert js["in_barrel"] == [False, True, False] and js["barrel_attempts"] == [0, 0, 0]


def test_a_second_failed_visit_keeps_the_score_and_counts() -> None:
    # only the third failed visit resets: the second leaves 880 - 160 = 720
    res = club(
        CLUB_164.replace("play QD*", "play QD"),
        160,
        barrel=(True, False, False),
        scores=(880, 0, 0),
        failed_visits=(1, 0, 0),
    )
    assert points(res.standing) == [720, 25, 15]
    assert res.standing.failed_visits == (2, 0, 0)


# ---------------------------------------------------------------- three arrivals
def test_three_arrivals_the_third_on_its_third_failed_visit_goes_to_zero() -> None:
    # 870 + 100 = 970, 870 + 25 = 895, 870 + 15 = 885: seats 0 and 1 stay; seat 2 is third
    # (760, a failed visit) and it is its third: back to 0, the counter restarts
    res = club(CLUB_164, 100, scores=(870, 870, 870), failed_visits=(0, 0, 2))
    assert points(res.standing) == [880, 880, 0]
    assert res.standing.in_barrel == (True, True, False)
    assert res.standing.failed_visits == (0, 0, 0)


def test_three_arrivals_a_half_point_decides() -> None:
    # uncapped 970, 855.5 + 25 = 880.5, 865 + 15 = 880: seat 2 is third by half a point
    res = club(CLUB_164, 100, scores=(870, 855.5, 865))
    assert points(res.standing) == [880, 880, 760]
    assert res.standing.failed_visits == (0, 0, 1)


# ---------------------------------------------------------------- marriages
def test_no_marriage_once_one_of_the_two_cards_was_played() -> None:
    # CLUB_164 after the giving: seat 0 leads KD on trick 1 (no announcement on trick 1),
    # wins it (JD, 9D follow), then leads QD: the pair is broken, no announcement
    st = CLUB_164.state(CLUB)
    run(st, "bid 100 pass pass give AD 1 give AH 2 contract 100 play KD play JD play 9D")
    assert st.turn == 0 and st.tricks_done == 1
    qd = cards("QD")[0]
    assert Play(qd, True) not in st.legal_actions() and Play(qd, False) in st.legal_actions()
    with pytest.raises(IllegalActionError, match="not the K or Q of a pair"):
        st.apply(Play(qd, True))


def test_defenders_may_announce_marriages_too() -> None:
    # dealer 2: seat 0 opens 100 and keeps it; seat 2 (a defender) holds KH QH, takes
    # trick 1 with AC and announces hearts (100) by leading QH on trick 2
    st = make_state(
        CLUB,
        2,
        ["9C JC AD TD AS TS 9S", "9D JD QD KD JS QS KS", "AC TC KH QH KC QC JH"],
        "AH TH 9H",
    )
    run(st, "bid 100 pass pass give 9H 1 give TH 2 contract 100 play 9C play 9D play AC")
    assert st.turn == 2 and st.declarer == 0
    qh = cards("QH")[0]
    assert Play(qh, True) in st.legal_actions() and Play(qh, False) in st.legal_actions()
    run(st, "play QH* play AH play 9H")  # hearts are trump at once; AH takes it
    assert st.marriages == [(2, 3)] and st.trump == 3
    assert st.mpoints == [0, 0, 100] and st.tricks[-1][2] == 0


# ---------------------------------------------------------------- casa numbers
@dataclass
class _Finished:
    """A finished deal as :func:`settle` reads it (the rule under test is the scoring)."""

    dealer: int
    declarer: int
    contract: int
    totals: tuple[int, int, int]
    done: bool = True
    annulled: bool = False
    rospis: bool = False

    @property
    def bid(self) -> int:
        return self.contract

    def raw(self) -> tuple[int, int, int]:
        return self.totals


def settle_casa(profile: Profile, scores: tuple[int, int, int], deal: _Finished):
    start = Standing(scores=(2 * scores[0], 2 * scores[1], 2 * scores[2]))
    return settle(profile, start, deal)  # type: ignore[arg-type]


def test_casa_a_non_declarer_never_goes_above_990() -> None:
    # seat 1 (799, below the barrel) defends with 205 raw (two marriages and cards):
    # 205 rounds to 200 (remainder 5 rounds down): 799 + 200 = 999 -> capped at 990
    res = settle_casa(CASA, (0, 799, 700), _Finished(2, 0, 120, (15, 205, 0)))
    assert points(res.standing) == [-120, 990, 700]
    assert res.winner is None
    assert res.to_json(CASA)["in_barrel"] == [False, True, False]


def test_casa_only_a_declarer_reaches_1000_from_the_990_cap() -> None:
    res = settle_casa(CASA, (0, 990, 0), _Finished(0, 1, 100, (10, 100, 10)))
    assert points(res.standing) == [10, 1090, 10] and res.winner == 1
    # the defenders at 990 and 800 get nothing (in the barrel from 800)
    res = settle_casa(CASA, (990, 0, 800), _Finished(0, 1, 100, (40, 100, 40)))
    assert points(res.standing) == [990, 100, 800] and res.winner is None


def test_casa_declarer_failing_in_the_barrel_drops_below_800() -> None:
    res = settle_casa(CASA, (850, 0, 0), _Finished(2, 0, 130, (120, 0, 0)))
    assert points(res.standing) == [720, 0, 0]
    assert res.to_json(CASA)["in_barrel"] == [False, False, False]


def test_casa_500_numbers_barrel_400_cap_490_target_500() -> None:
    # seat 0 at 400 defends: nothing; seat 1 at 399 defends with 96 -> 100: 499 -> 490;
    # the declarer at 380 makes 110: 490, not a win (target 500)
    res = settle_casa(CASA_500, (400, 399, 380), _Finished(1, 2, 110, (24, 96, 120)))
    assert points(res.standing) == [400, 490, 490] and res.winner is None
    assert res.to_json(CASA_500)["in_barrel"] == [True, True, True]
    # from 490 a made 100 wins: 590 >= 500
    res = settle_casa(CASA_500, (400, 490, 490), _Finished(0, 2, 100, (0, 0, 120)))
    assert points(res.standing) == [400, 490, 590] and res.winner == 2
    assert res.to_json(CASA_500)["in_barrel"] == [True, True, False]


def test_casa_defender_below_the_barrel_with_a_remainder_of_5_rounds_down() -> None:
    res = settle_casa(CASA, (0, 0, 0), _Finished(2, 0, 100, (50, 35, 35)))
    assert points(res.standing) == [-100, 30, 30]


# ---------------------------------------------------------------- refusals say why
@pytest.mark.parametrize("script", ["rospis", "bid 120", "contract 120", "keep"])
def test_a_non_play_action_during_the_tricks_is_refused_with_the_phase(script) -> None:
    st = CLUB_164.state(CLUB)
    run(st, "bid 100 pass pass give AD 1 give AH 2 contract 160")
    with pytest.raises(IllegalActionError, match=r"seat 0 cannot .*: cards are being played"):
        run(st, script)


# ---------------------------------------------------------------- the first dealer
def test_the_first_dealer_is_drawn_by_lot() -> None:
    from collections import Counter

    from tapete.mil import MilGame

    firsts = Counter(MilGame("club", seed=seed).dealer for seed in range(300))
    assert set(firsts) == {0, 1, 2} and min(firsts.values()) > 60  # about 100 each
    # the same seed, the same lot
    assert MilGame("casa", seed=5).dealer == MilGame("casa", seed=5).dealer


def test_the_deal_is_seven_cards_each_and_a_talon_of_three_uniformly() -> None:
    # [decision] any uniformly random deal of the 24 cards
    import random
    from collections import Counter

    from tapete.cards import MIL_DECK, bits
    from tapete.mil.game import deal_cards

    rng = random.Random(11)
    talon_count: Counter[int] = Counter()
    seat0_count: Counter[int] = Counter()
    for _ in range(3000):
        hands, talon = deal_cards(rng)
        assert [len(h) for h in hands] == [7, 7, 7] and len(talon) == 3
        assert sorted([*hands[0], *hands[1], *hands[2], *talon]) == sorted(bits(MIL_DECK))
        talon_count.update(talon)
        seat0_count.update(hands[0])
    # each card: 3000 * 3/24 = 375 times in the talon, 3000 * 7/24 = 875 in seat 0's hand
    assert all(300 < talon_count[c] < 450 for c in bits(MIL_DECK))
    assert all(780 < seat0_count[c] < 970 for c in bits(MIL_DECK))
