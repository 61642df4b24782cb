"""Before the first lead: the forced opening, bid steps and limits, redeal windows, rospis,
giving and the contract (docs/rules-mil.md; every [decision] of rules/mil.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mil_helpers import cards, make_state, run

from tapete.cards import MIL_DECK, bits, parse_card
from tapete.errors import IllegalActionError
from tapete.mil import (
    CASA,
    CASA_500,
    CLUB,
    Bid,
    Contract,
    Give,
    KeepDeal,
    MilGame,
    Pass,
    Phase,
    Redeal,
    Rospis,
    Standing,
    State,
    settle,
)

MIL = list(bits(MIL_DECK))


def points(standing):
    return [s / 2 for s in standing.scores]


# Three ordinary hands: nobody may ask for a redeal (no four 9s, >= 14 points each).
# Seat 0 holds the hearts marriage (limit 220), seat 1 spades (160), seat 2 clubs (180).
PLAIN = ["AH TH KH QH JS 9C 9D", "AS TS KS QS JH 9H 9S", "AC TC KC QC JC AD TD"]
PLAIN_TALON = "KD QD JD"  # 7 points


def plain(profile=CLUB, dealer=2, talon=PLAIN_TALON, in_barrel=(False, False, False)):
    return make_state(profile, dealer, PLAIN, talon, in_barrel)


def values(actions):
    return [a.value for a in actions if isinstance(a, Bid | Contract)]


# ---------------------------------------------------------------- the auction
@pytest.mark.parametrize("profile", [CLUB, CASA, CASA_500])
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_left_of_dealer_opens_with_a_forced_100(profile, dealer) -> None:
    st = plain(profile, dealer)
    assert st.phase is Phase.BIDDING
    assert st.turn == (dealer + 1) % 3
    assert st.legal_actions() == [Bid(100)]
    with pytest.raises(IllegalActionError, match=rf"seat {st.turn} cannot pass: the opener"):
        st.apply(Pass())
    with pytest.raises(IllegalActionError, match="exactly 100"):
        st.apply(Bid(105))


def test_club_bids_are_multiples_of_5_and_stop_at_120() -> None:
    st = run(plain(CLUB), "bid 100")  # seat 0 opened; seat 1 (spades, limit 160) to bid
    assert st.turn == 1
    assert st.legal_actions() == [Pass(), *map(Bid, (105, 110, 115, 120))]
    with pytest.raises(IllegalActionError, match="multiples of 5"):
        st.apply(Bid(107))
    with pytest.raises(IllegalActionError, match="nobody may bid above 120 before"):
        st.apply(Bid(125))
    run(st, "bid 110")  # a jump of 10 is a positive multiple of 5
    assert st.turn == 2 and values(st.legal_actions()) == [115, 120]
    run(st, "bid 120")
    # now above 120: seat 0 holds hearts (220), seat 1 spades (160), seat 2 clubs (180)
    assert st.turn == 0 and values(st.legal_actions()) == list(range(125, 225, 5))
    run(st, "bid 200")
    assert st.turn == 1 and st.legal_actions() == [Pass()]
    with pytest.raises(IllegalActionError, match=r"limit is 160 \(120 \+ marriages in hand: 40"):
        st.apply(Bid(205))
    run(st, "pass")
    assert st.turn == 2 and st.legal_actions() == [Pass()]
    run(st, "pass")
    assert st.phase is Phase.TALON and st.declarer == 0 and st.bid == 200


def test_a_pass_is_for_the_rest_of_the_deal() -> None:
    st = run(plain(CLUB), "bid 100 pass bid 105")
    assert st.turn == 0  # seat 1 passed: skipped
    run(st, "bid 110")
    assert st.turn == 2
    run(st, "pass")
    assert st.phase is Phase.TALON and st.declarer == 0 and st.bid == 110


def test_two_passes_after_the_opening_leave_the_opener_at_100() -> None:
    st = run(plain(CLUB), "bid 100 pass pass")
    assert (st.declarer, st.bid, st.phase) == (0, 100, Phase.TALON)


def test_casa_bids_are_multiples_of_10_with_jumps_and_no_stop() -> None:
    st = run(plain(CASA), "bid 100")
    assert st.turn == 1
    assert values(st.legal_actions()) == [110, 120, 130, 140, 150, 160]  # spades: 160
    with pytest.raises(IllegalActionError, match="multiples of 10"):
        st.apply(Bid(115))
    run(st, "bid 150")  # a jump above 120 straight away (no stop-at-120 in casa)
    assert st.turn == 2 and values(st.legal_actions()) == [160, 170, 180]  # clubs: 180
    with pytest.raises(IllegalActionError, match="limit is 180"):
        st.apply(Bid(190))


def test_marriage_limit_counts_the_seven_card_hand_not_the_talon() -> None:
    # seat 2 holds KD but the QD is in the talon: still a limit of 120
    hands = ["AH TH KH QH JS 9C 9D", "AS TS KS QS JH 9H 9S", "AC TC KC QC JC AD KD"]
    st = make_state(CLUB, 2, hands, "TD QD JD")
    assert [st.bid_limit(s) for s in range(3)] == [220, 160, 180]
    hands = ["AH TH KH QH JS 9C 9D", "AS TS KS QS JH 9H 9S", "AC TC KC JC AD TD KD"]
    st = make_state(CLUB, 2, hands, "QC QD JD")
    assert st.bid_limit(2) == 120
    run(st, "bid 100 bid 105 bid 110 bid 115 bid 120")
    assert st.turn == 2 and st.legal_actions() == [Pass()]


def test_the_view_says_why_bids_stop_at_120() -> None:
    hands = ["AH TH KH QH JS 9C 9D", "AS TS KS QS JH 9H 9S", "AC TC KC JC AD TD KD"]
    st = make_state(CLUB, 2, hands, "QC QD JD")  # seat 2 holds no marriage: limit 120
    run(st, "bid 100")
    assert st.view(1)["bid_limit_reason"] == "until_120"  # spades, but nobody has bid 120
    assert st.view(2)["bid_limit_reason"] == "no_marriage"
    assert st.view(None)["bid_limit_reason"] is None
    run(st, "bid 105 bid 110 bid 115 bid 120")
    assert st.view(0)["bid_limit_reason"] is None  # hearts: may go on past 120
    assert st.view(2)["bid_limit_reason"] == "no_marriage"
    casa = make_state(CASA, 2, hands, "QC QD JD")
    run(casa, "bid 100")
    assert [casa.view(s)["bid_limit_reason"] for s in range(3)] == [None, None, "no_marriage"]
    run(st, "pass pass")
    assert st.phase is Phase.TALON and st.view(2)["bid_limit_reason"] is None


def test_the_view_says_whether_the_profile_has_bolts() -> None:
    assert MilGame(CLUB, seed=1).view(0)["has_bolts"] is True
    assert MilGame(CASA, seed=1).view(None)["has_bolts"] is False
    assert MilGame(CASA_500, seed=1).view(2)["has_bolts"] is False


def test_several_marriages_add_up_in_the_limit() -> None:
    hands = ["KH QH KD QD KC QC KS", "AS TS AH TH JH 9H 9S", "AC TC JC 9C AD TD JD"]
    st = make_state(CLUB, 2, hands, "QS 9D JS")
    assert st.bid_limit(0) == 120 + 100 + 80 + 60


def test_auction_order_with_dealer_1() -> None:
    st = run(plain(CLUB, dealer=1), "bid 100")
    assert st.turn == 0
    run(st, "pass bid 105 pass")
    assert (st.declarer, st.bid) == (1, 105)


# ---------------------------------------------------------------- redeal offers
def with_hand(profile, dealer, seat, hand, talon=None, in_barrel=(False, False, False)):
    """A deal where ``seat`` holds ``hand`` and the others the remaining cards, strongest
    first (so that only ``seat`` can be eligible for a pre-auction redeal)."""
    mine = set(cards(hand))
    rest = sorted((c for c in MIL if c not in mine), key=lambda c: (-(c & 7), c >> 3))
    if talon is not None:
        tal = cards(talon)
        rest = [c for c in rest if c not in tal]
    else:
        tal, rest = rest[-3:], rest[:-3]
    hands = [[], [], []]
    hands[seat] = list(mine)
    others = [s for s in range(3) if s != seat]
    for i, c in enumerate(rest):
        hands[others[i % 2]].append(c)
    return State(profile, dealer, hands, tal, in_barrel)


@pytest.mark.parametrize(
    ("profile", "hand", "reasons"),
    [
        (CLUB, "9S 9C 9D 9H AS AC AD", ["four_nines"]),
        (CLUB, "JS JC QS QC QD 9S 9C", ["low_points"]),  # 13 points
        (CLUB, "JS JC JD JH QS QC 9S", []),  # 14 points
        (CLUB, "9S 9C 9D 9H JS JC JD", ["four_nines", "low_points"]),
        (CLUB, "KS QS JC 9S 9C 9D 9H", ["four_nines", "low_points"]),
        (CLUB, "JS JC JD JH 9S 9C QH", ["low_points"]),  # 11: low in club
        (CASA, "JS JC JD JH 9S 9C QH", []),  # 11: not low in casa
        (CASA, "JS JC JD 9S 9C 9D QH", ["low_points"]),  # 9, no marriage
        # casa: "fewer than 10 card points" (rules/mil.md, casa: redeal before the auction)
        (CASA, "JS JC JD 9S 9C 9D KH", []),  # exactly 10: not fewer than 10
        (CASA_500, "JS JC JD 9S 9C 9D KH", []),
        (CASA, "KS QS JC 9S 9C 9D 9H", ["four_nines"]),  # 9 but a marriage
        (CASA, "9S 9C 9D 9H AS AC AD", ["four_nines"]),
        (CASA_500, "JS JC JD 9S 9C 9D QH", ["low_points"]),
    ],
)
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_pre_auction_redeal_reasons(profile, hand, reasons, seat) -> None:
    st = with_hand(profile, 0, seat, hand)
    if not reasons:
        assert st.phase is Phase.BIDDING and st.offers == []
        return
    assert st.phase is Phase.REDEAL_OFFER and st.offers == [seat] and st.turn == seat
    assert st.legal_actions() == [*map(Redeal, reasons), KeepDeal()]
    assert st.declarer == -1  # before the first bid


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_declining_the_offer_starts_the_auction_with_the_dealers_left(dealer) -> None:
    st = with_hand(CLUB, dealer, dealer, "9S 9C 9D 9H AS AC AD")
    assert st.turn == dealer  # the dealer itself is eligible: asked before the first bid
    with pytest.raises(IllegalActionError, match=rf"seat {dealer} cannot bid 100: it must first"):
        st.apply(Bid(100))
    with pytest.raises(IllegalActionError, match="does not allow a redeal for low_points"):
        st.apply(Redeal("low_points"))
    st.apply(KeepDeal())
    assert st.phase is Phase.BIDDING and st.turn == (dealer + 1) % 3
    assert st.legal_actions() == [Bid(100)]


def test_eligible_seats_are_asked_in_turn_from_the_dealers_left() -> None:
    # In a real deal at most one seat can be eligible (four 9s leave >= 17 points to the
    # others; two hands under 14 would need 26 points from the 14 weakest cards, which
    # hold 28). The order is still the engine's: from the dealer's left, the dealer last.
    st = with_hand(CLUB, 1, 0, "9S 9C 9D 9H AS AC AD")
    st.offers = [2, 0, 1]  # as if all three could ask
    st.turn = 2
    seen = []
    while st.phase is Phase.REDEAL_OFFER:
        seen.append(st.turn)
        st.apply(KeepDeal())
    assert seen == [2, 0, 1]
    assert st.turn == 2 and st.phase is Phase.BIDDING


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_the_engine_itself_lists_eligible_seats_from_the_dealers_left(dealer) -> None:
    # rules/mil.md, club redeals [decision]: "Eligible players are asked in turn from the
    # dealer's left before the first bid". No real club or casa deal has two eligible seats,
    # so a profile where every hand is "low" makes the engine build the list itself.
    every_hand_low = replace(CLUB, name="club-all-low", low_points_below=121)
    st = with_hand(every_hand_low, dealer, 0, "9S 9C 9D 9H AS AC AD")
    left, right = (dealer + 1) % 3, (dealer + 2) % 3
    assert st.offers == [left, right, dealer] and st.turn == left


def test_a_pre_auction_redeal_annuls_the_deal() -> None:
    st = with_hand(CLUB, 0, 2, "JS JC QS QC QD 9S 9C")
    st.apply(Redeal("low_points"))
    assert st.done and st.annulled and st.redeal_reason == "low_points"
    res = settle(CLUB, Standing(scores=(10, 20, 30)), st)
    assert res.annulled and res.declarer is None and res.bid is None and res.raw is None
    assert res.standing == Standing(scores=(10, 20, 30))


def test_club_low_talon_redeal_only_for_the_declarer_before_giving() -> None:
    st = with_hand(CLUB, 2, 0, "AS AC AD AH TS TC TD", talon="9S 9C JD")
    run(st, "bid 100 pass pass")
    assert st.phase is Phase.TALON and st.turn == 0
    legal = st.legal_actions()
    assert legal[:2] == [Redeal("low_talon"), Rospis()]
    assert all(isinstance(a, Give) for a in legal[2:])
    with pytest.raises(IllegalActionError, match="no redeal for four_nines after the auction"):
        st.apply(Redeal("four_nines"))
    st.push(Redeal("low_talon"))
    assert st.done and st.annulled and st.declarer == 0 and st.bid == 100
    res = settle(CLUB, Standing(), st)
    assert res.annulled and res.declarer == 0 and res.bid == 100 and res.contract is None
    st.pop()
    # after the first card is given the window is closed
    run(st, "give 9S 1")
    assert st.phase is Phase.GIVE
    assert not any(isinstance(a, Redeal | Rospis) for a in st.legal_actions())
    with pytest.raises(IllegalActionError, match="must give the second card"):
        st.apply(Redeal("low_talon"))


def test_club_talon_of_5_points_allows_no_redeal_and_casa_has_none() -> None:
    st = with_hand(CLUB, 2, 0, "AS AC AD AH TS TC TD", talon="9S QC JD")
    run(st, "bid 100 pass pass")
    assert st.legal_actions()[0] == Rospis()
    with pytest.raises(IllegalActionError, match="the talon has 5 points"):
        st.apply(Redeal("low_talon"))
    st = with_hand(CASA, 2, 0, "AS AC AD AH TS TC TD", talon="9S 9C JD")
    run(st, "bid 100 pass pass")
    assert all(isinstance(a, Give) for a in st.legal_actions())
    with pytest.raises(IllegalActionError, match="no redeal for low_talon"):
        st.apply(Redeal("low_talon"))


def test_club_four_nines_after_the_contract_just_before_the_first_lead() -> None:
    # seat 1 receives the fourth 9 from the declarer
    st = with_hand(CLUB, 2, 1, "9S 9C 9D AS AC AD AH", talon="9H KD QD")
    assert st.phase is Phase.BIDDING  # three 9s and 44 points: no offer before the auction
    declarer_hand = st.hands[0]
    assert declarer_hand & (1 << parse_card("9H")) == 0
    run(st, "bid 100 pass pass give 9H 1")
    assert st.phase is Phase.GIVE
    st.apply(next(a for a in st.legal_actions() if a.to == 2))
    assert st.phase is Phase.CONTRACT
    st.apply(st.legal_actions()[0])
    assert st.phase is Phase.NINES_OFFER and st.turn == 1
    assert st.legal_actions() == [Redeal("four_nines"), KeepDeal()]
    with pytest.raises(IllegalActionError, match="does not allow a redeal for low_points"):
        st.apply(Redeal("low_points"))
    st.push(Redeal("four_nines"))
    assert st.done and st.annulled and st.redeal_reason == "four_nines"
    st.pop()
    st.apply(KeepDeal())
    assert st.phase is Phase.PLAY and st.turn == 0 and st.leader == 0


def test_club_the_declarer_too_may_ask_with_four_nines_after_the_contract() -> None:
    # rules/mil.md, club redeals: "After the exchange and before the first lead: any player
    # holding four 9s in their 8 cards may ask" -- the declarer is one of them: here the
    # fourth 9 comes from the talon and the declarer keeps it.
    st = with_hand(CLUB, 2, 0, "9S 9C 9D AS AC AD AH", talon="9H KD QD")
    assert st.phase is Phase.BIDDING
    run(st, "bid 100 pass pass give KD 1 give QD 2 contract 100")
    assert st.phase is Phase.NINES_OFFER and st.turn == 0 and st.declarer == 0
    assert st.legal_actions() == [Redeal("four_nines"), KeepDeal()]
    st.apply(KeepDeal())
    assert st.phase is Phase.PLAY and st.turn == 0


def test_casa_has_no_four_nines_window_after_the_contract() -> None:
    st = with_hand(CASA, 2, 1, "9S 9C 9D AS AC AD AH", talon="9H KD QD")
    run(st, "bid 100 pass pass give 9H 1")
    st.apply(next(a for a in st.legal_actions() if a.to == 2))
    st.apply(st.legal_actions()[0])
    assert st.phase is Phase.PLAY


def test_annulled_deals_keep_the_dealer_and_use_no_barrel_attempt() -> None:
    hands = with_hand(CLUB, 1, 2, "JS JC QS QC QD 9S 9C")
    game = MilGame(
        "club",
        standing=Standing(
            scores=(1760, 0, 0), in_barrel=(True, False, False), barrel_attempts=(2, 0, 0)
        ),
        dealer=1,
        deal_source=lambda d: ([list(bits(h)) for h in hands.hands], list(bits(hands.talon))),
    )
    assert game.turn == 2
    game.apply(Redeal("low_points"))
    assert len(game.deals) == 1 and game.deals[0][1].annulled
    assert game.dealer == 1  # same dealer
    assert game.standing.barrel_attempts == (2, 0, 0) and game.standing.in_barrel[0]
    assert game.scores == [880, 0, 0]
    rec = game.to_record()
    assert rec["deals"][0]["actions"] == [{"seat": 2, "type": "redeal", "reason": "low_points"}]
    assert rec["deals"][0]["result"]["annulled"] is True


# ---------------------------------------------------------------- rospis
def test_club_rospis_scores_exact_halves() -> None:
    st = run(plain(CLUB), "bid 100 bid 105 pass pass")
    assert st.declarer == 1 and st.bid == 105
    assert Rospis() in st.legal_actions()
    st.apply(Rospis())
    assert st.done and st.rospis and st.contract == 105
    res = settle(CLUB, Standing(scores=(0, 0, 0), bolts=(2, 0, 2)), st)
    assert points(res.standing) == [52.5, -105, 52.5]
    assert res.rospis and res.raw is None and res.contract == 105
    assert res.standing.bolts == (2, 0, 2)  # no bolt marks in a rospis deal
    assert res.to_json(CLUB)["scores"] == [52.5, -105, 52.5]


def test_rospis_is_forbidden_to_a_declarer_in_the_barrel() -> None:
    st = run(plain(CLUB, in_barrel=(True, False, False)), "bid 100 pass pass")
    assert Rospis() not in st.legal_actions()
    with pytest.raises(IllegalActionError, match="seat 0 cannot rospis: a declarer in the barrel"):
        st.apply(Rospis())


def test_a_defender_in_the_barrel_gets_nothing_from_a_rospis_but_uses_an_attempt() -> None:
    st = run(plain(CLUB, in_barrel=(False, True, False)), "bid 100 pass pass rospis")
    standing = Standing(scores=(100, 1760, 50), in_barrel=(False, True, False))
    res = settle(CLUB, standing, st)
    assert points(res.standing) == [-50, 880, 75]
    assert res.standing.barrel_attempts == (0, 1, 0)


def test_casa_has_no_rospis() -> None:
    st = run(plain(CASA), "bid 100 pass pass")
    assert Rospis() not in st.legal_actions()
    with pytest.raises(IllegalActionError, match="no rospis in casa"):
        st.apply(Rospis())


def test_rospis_only_before_giving() -> None:
    st = run(plain(CLUB), "bid 100 pass pass give KD 1")
    with pytest.raises(IllegalActionError, match="must give the second card"):
        st.apply(Rospis())


# ---------------------------------------------------------------- giving
def test_club_gives_one_card_to_each_opponent_in_any_order() -> None:
    st = run(plain(CLUB), "bid 100 pass pass")
    assert st.hands[0].bit_count() == 10 and st.talon == 0
    gives = [a for a in st.legal_actions() if isinstance(a, Give)]
    assert {a.to for a in gives} == {1, 2} and len(gives) == 20
    run(st, "give KD 2")
    assert {a.to for a in st.legal_actions()} == {1}
    with pytest.raises(IllegalActionError, match="seat 2 already got its card"):
        st.apply(Give(parse_card("QD"), 2))
    with pytest.raises(IllegalActionError, match="not to itself"):
        st.apply(Give(parse_card("QD"), 0))
    with pytest.raises(IllegalActionError, match="KD is not in its hand"):
        st.apply(Give(parse_card("KD"), 1))
    run(st, "give QD 1")
    assert [h.bit_count() for h in st.hands] == [8, 8, 8]
    assert st.phase is Phase.CONTRACT


@pytest.mark.parametrize("profile", [CASA, CASA_500])
def test_casa_gives_to_the_left_opponent_first(profile) -> None:
    st = run(plain(profile, dealer=0), "bid 100 pass pass")  # declarer 1: left is 2
    assert st.declarer == 1
    assert {a.to for a in st.legal_actions()} == {2}
    with pytest.raises(IllegalActionError, match="the next card goes to seat 2"):
        st.apply(Give(parse_card("AS"), 0))
    run(st, "give AS 2")
    assert {a.to for a in st.legal_actions()} == {0}


# ---------------------------------------------------------------- the contract
def test_contract_at_least_the_bid_up_to_120_plus_marriages_in_8_cards() -> None:
    st = run(plain(CLUB), "bid 100 pass pass give JS 1 give 9C 2")
    # seat 0 holds hearts and, with the talon, diamonds: 120 + 100 + 80 = 300
    assert values(st.legal_actions()) == list(range(100, 305, 5))
    with pytest.raises(IllegalActionError, match="limit is 300"):
        st.apply(Contract(305))
    with pytest.raises(IllegalActionError, match="multiples of 5"):
        st.apply(Contract(102))
    st = run(plain(CLUB), "bid 100 bid 120 pass bid 125 pass")
    run(st, "give JS 1 give 9C 2")
    with pytest.raises(IllegalActionError, match=r"at least the bid \(125\)"):
        st.apply(Contract(120))


def test_the_bid_stays_a_legal_contract_after_giving_away_a_marriage_card() -> None:
    st = run(plain(CLUB), "bid 100 pass bid 120 bid 200 pass give KH 1 give QD 2")
    assert st.bid == 200
    # hearts given away; KD in hand but QD given: no marriage left -> only the bid itself
    assert values(st.legal_actions()) == [200]


def test_club_barrel_declarer_must_fix_at_least_120() -> None:
    st = run(plain(CLUB, in_barrel=(True, False, False)), "bid 100 pass pass give JS 1 give 9C 2")
    assert values(st.legal_actions())[0] == 120
    with pytest.raises(
        IllegalActionError, match="seat 0 cannot contract 115: a declarer in the barrel"
    ):
        st.apply(Contract(115))


def test_club_barrel_declarer_without_a_marriage_plays_exactly_120() -> None:
    st = with_hand(CLUB, 2, 0, "AS AC AD AH TS TC TD", "9S 9C JD", (True, False, False))
    run(st, "bid 100 pass pass give 9S 1 give 9C 2")
    assert values(st.legal_actions()) == [120]


def test_casa_contracts_are_multiples_of_10() -> None:
    st = run(plain(CASA), "bid 100 pass pass give JS 1 give 9C 2")
    assert values(st.legal_actions()) == list(range(100, 310, 10))
    with pytest.raises(IllegalActionError, match="multiples of 10"):
        st.apply(Contract(105))
