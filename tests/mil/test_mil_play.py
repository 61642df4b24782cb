"""Card play: following, trumping, casa's must-head, marriages and the trick winner."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from mil_helpers import CASA_138, make_state, run

from tapete.cards import SUIT_MASKS, bits, card_name, parse_card
from tapete.errors import IllegalActionError
from tapete.mil import (
    CASA,
    CASA_500,
    CLUB,
    Phase,
    Play,
    Profile,
    State,
    deal_cards,
    trick_winner,
)


def c(name: str) -> int:
    return parse_card(name)


def names(mask: int) -> set[str]:
    return {card_name(x) for x in bits(mask)}


# ---------------------------------------------------------------- a slow, obvious reference
def reference_playable(profile: Profile, hand: list[int], trick: list[int], trump: int) -> set[int]:
    """The cards a player may play, written straight from rules/mil.md."""
    if not trick:
        return set(hand)
    led = trick[0] // 8
    same = [x for x in hand if x // 8 == led]
    trumps = [x for x in hand if trump >= 0 and x // 8 == trump]
    if not profile.must_head:
        if same:
            return set(same)
        if trumps:
            return set(trumps)
        return set(hand)
    if same:
        trumped = trump >= 0 and led != trump and any(x // 8 == trump for x in trick)
        if trumped:
            return set(same)
        best = max(x for x in trick if x // 8 == led)
        higher = [x for x in same if x > best]
        return set(higher or same)
    if trumps:
        on_table = [x for x in trick if x // 8 == trump]
        higher = [x for x in trumps if on_table and x > max(on_table)]
        return set(higher or trumps)
    return set(hand)


def random_states(profile: Profile, seed: int, deals: int):
    """Every position of ``deals`` seeded random deals (the state is yielded live)."""
    rng = random.Random(seed)
    for _ in range(deals):
        hands, talon = deal_cards(rng)
        st = State(profile, rng.randrange(3), hands, talon)
        while not st.done:
            yield st
            legal = [
                a for a in st.legal_actions() if a.to_json()["type"] not in ("redeal", "rospis")
            ]
            st.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("profile", [CLUB, CASA, CASA_500])
def test_play_mask_and_legal_plays_match_the_reference(profile) -> None:
    checked = 0
    for st in random_states(profile, 7, 150):
        if st.phase is not Phase.PLAY:
            continue
        hand = list(bits(st.hands[st.turn]))
        want = reference_playable(profile, hand, st.trick, st.trump)
        assert set(bits(st.play_mask())) == want
        legal = st.legal_actions()
        assert {a.card for a in legal} == want
        for a in legal:
            assert st.can_apply(a)
        for x in set(hand) - want:
            assert not st.can_apply(Play(x))
        checked += 1
    assert checked > 3000


def find(profile: Profile, pred: Callable[[State], bool], seed: int = 1) -> State:
    """The first position of seeded random deals where ``pred`` holds."""
    for st in random_states(profile, seed, 3000):
        if st.phase is Phase.PLAY and pred(st):
            return st
    raise AssertionError("no such position in 3000 random deals")


def suit_cards(st: State, suit: int) -> int:
    return st.hands[st.turn] & SUIT_MASKS[suit]


def led(st: State) -> int:
    return st.trick[0] >> 3


def test_club_follow_suit_without_heading() -> None:
    st = find(
        CLUB,
        lambda s: (
            bool(s.trick)
            and any(x < s.trick[0] for x in bits(suit_cards(s, led(s))))
            and any(x > s.trick[0] for x in bits(suit_cards(s, led(s))))
        ),
    )
    same = suit_cards(st, led(st))
    assert st.play_mask() == same  # lower and higher cards of the led suit alike
    other = st.hands[st.turn] & ~same
    if other:
        x = next(iter(bits(other)))
        with pytest.raises(
            IllegalActionError, match=rf"seat {st.turn} cannot play {card_name(x)}: must follow"
        ):
            st.apply(Play(x))


def test_club_void_must_trump_but_need_not_overtrump() -> None:
    def pred(s: State) -> bool:
        if s.trump < 0 or not s.trick or suit_cards(s, led(s)) or led(s) == s.trump:
            return False
        on_table = [x for x in s.trick if x >> 3 == s.trump]
        mine = list(bits(suit_cards(s, s.trump)))
        others = s.hands[s.turn] & ~SUIT_MASKS[s.trump]
        return bool(on_table) and any(x < max(on_table) for x in mine) and bool(others)

    st = find(CLUB, pred)
    trumps = suit_cards(st, st.trump)
    assert st.play_mask() == trumps  # any trump, also one lower than the trump on the table
    x = next(iter(bits(st.hands[st.turn] & ~trumps)))
    with pytest.raises(IllegalActionError, match="must play a trump"):
        st.apply(Play(x))


def test_club_void_without_trump_plays_anything() -> None:
    st = find(
        CLUB,
        lambda s: (
            bool(s.trick)
            and not suit_cards(s, led(s))
            and (s.trump < 0 or not suit_cards(s, s.trump))
        ),
    )
    assert st.play_mask() == st.hands[st.turn]


@pytest.mark.parametrize("profile", [CASA, CASA_500])
def test_casa_must_head_the_led_suit(profile) -> None:
    def pred(s: State) -> bool:
        if not s.trick:
            return False
        trumped = s.trump >= 0 and led(s) != s.trump and any(x >> 3 == s.trump for x in s.trick)
        best = max(x for x in s.trick if x >> 3 == led(s))
        mine = list(bits(suit_cards(s, led(s))))
        return not trumped and any(x > best for x in mine) and any(x < best for x in mine)

    st = find(profile, pred)
    best = max(x for x in st.trick if x >> 3 == led(st))
    higher = {x for x in bits(suit_cards(st, led(st))) if x > best}
    assert set(bits(st.play_mask())) == higher
    lower = next(x for x in bits(suit_cards(st, led(st))) if x < best)
    with pytest.raises(
        IllegalActionError,
        match=rf"seat {st.turn} cannot play {card_name(lower)}: must head the trick",
    ):
        st.apply(Play(lower))


def test_casa_only_lower_cards_of_the_led_suit_any_of_them() -> None:
    def pred(s: State) -> bool:
        if not s.trick:
            return False
        best = max(x for x in s.trick if x >> 3 == led(s))
        mine = list(bits(suit_cards(s, led(s))))
        return len(mine) >= 2 and all(x < best for x in mine)

    st = find(CASA, pred)
    assert st.play_mask() == suit_cards(st, led(st))


def test_casa_trick_already_trumped_any_card_of_the_led_suit() -> None:
    def pred(s: State) -> bool:
        if len(s.trick) != 2 or s.trump < 0 or led(s) == s.trump:
            return False
        mine = list(bits(suit_cards(s, led(s))))
        return s.trick[1] >> 3 == s.trump and len(mine) >= 2 and any(x < s.trick[0] for x in mine)

    st = find(CASA, pred)
    assert st.play_mask() == suit_cards(st, led(st))


def test_casa_void_must_overtrump_when_able() -> None:
    def pred(s: State) -> bool:
        if len(s.trick) != 2 or s.trump < 0 or suit_cards(s, led(s)) or led(s) == s.trump:
            return False
        if s.trick[1] >> 3 != s.trump:
            return False
        mine = list(bits(suit_cards(s, s.trump)))
        return any(x > s.trick[1] for x in mine) and any(x < s.trick[1] for x in mine)

    st = find(CASA, pred)
    assert set(bits(st.play_mask())) == {
        x for x in bits(suit_cards(st, st.trump)) if x > st.trick[1]
    }


def test_casa_void_with_only_lower_trumps_plays_any_trump() -> None:
    def pred(s: State) -> bool:
        if len(s.trick) != 2 or s.trump < 0 or suit_cards(s, led(s)) or led(s) == s.trump:
            return False
        mine = list(bits(suit_cards(s, s.trump)))
        return s.trick[1] >> 3 == s.trump and bool(mine) and all(x < s.trick[1] for x in mine)

    st = find(CASA, pred)
    assert st.play_mask() == suit_cards(st, st.trump)


# ---------------------------------------------------------------- the trick winner
@pytest.mark.parametrize(
    ("trick", "leader", "trump", "winner"),
    [
        ("KS AS 9S", 0, -1, 1),  # highest of the led suit
        ("KS AH 9S", 0, -1, 0),  # another suit never wins without trump
        ("KS AH 9S", 1, -1, 1),
        ("TS QS AS", 2, -1, 1),
        ("AS 9H KS", 0, 3, 1),  # a trump beats the led suit
        ("AS 9H KH", 0, 3, 2),  # the highest trump
        ("9H AS TH", 1, 3, 0),  # trump led: highest trump
        ("JD AS 9C", 0, 3, 0),  # trump on nobody's card
        ("TS AS KS", 0, 0, 1),
    ],
)
def test_trick_winner(trick, leader, trump, winner) -> None:
    # tapete.cards.trick_winner (both games) gives the index of the winning card in the trick
    assert (leader + trick_winner([c(x) for x in trick.split()], trump)) % 3 == winner


# ---------------------------------------------------------------- marriages
# club, dealer 2, declarer 0. After the gives (JD to 1, 9D to 2) the hands are
#   seat 0: AH KH QH AS 9S AC KD QD   (hearts and diamonds marriages)
#   seat 1: TH 9H TS KS QS TC KC JD
#   seat 2: JH JS QC JC 9C AD TD 9D
MARRIAGES = (
    ["AH KH QH AS QD JD 9D", "TH 9H TS KS QS TC KC", "JH JS QC JC 9C AD TD"],
    "AC 9S KD",
)


def marriages_deal(profile: Profile = CLUB) -> State:
    hands, talon = MARRIAGES
    st = make_state(profile, 2, hands, talon)
    return run(st, "bid 100 pass pass give JD 1 give 9D 2 contract 100")


def test_no_marriage_on_the_first_trick() -> None:
    st = marriages_deal()
    assert st.phase is Phase.PLAY and st.turn == 0 and not st.tricks
    assert all(not a.marriage for a in st.legal_actions())
    with pytest.raises(
        IllegalActionError,
        match="seat 0 cannot play KH marriage: no marriage may be announced on the first trick",
    ):
        st.apply(Play(c("KH"), True))


def test_club_marriage_is_a_choice_when_leading_from_trick_2() -> None:
    st = run(marriages_deal(), "play AS play KS play JS")
    assert st.turn == 0 and st.tricks_won == [1, 0, 0]
    legal = st.legal_actions()
    for x in ("KH", "QH", "KD", "QD"):
        assert Play(c(x)) in legal and Play(c(x), True) in legal
    for x in ("AH", "9S", "AC"):
        assert Play(c(x)) in legal and Play(c(x), True) not in legal
    with pytest.raises(IllegalActionError, match="AC is not the K or Q of a pair held in hand"):
        st.apply(Play(c("AC"), True))


def test_marriage_trump_changes_at_once_later_marriages_replace_it_bonuses_stay() -> None:
    st = run(marriages_deal(), "play AS play KS play JS")
    run(st, "play KH*")
    assert st.trump == 3 and st.marriages == [(0, 3)] and st.mpoints == [100, 0, 0]
    # following never announces
    assert all(not a.marriage for a in st.legal_actions())
    with pytest.raises(
        IllegalActionError,
        match="seat 1 cannot play 9H marriage: a marriage is announced only when leading",
    ):
        st.apply(Play(c("9H"), True))
    run(st, "play 9H play JH")
    assert st.tricks[-1][2] == 0
    # QH alone no longer announces: one card of the pair has been played
    assert Play(c("QH"), True) not in st.legal_actions()
    run(st, "play AC play TC play 9C")
    run(st, "play QD*")
    assert st.trump == 2 and st.marriages == [(0, 3), (0, 2)] and st.mpoints == [180, 0, 0]
    run(st, "play JD play AD")  # seat 2 wins with the ace of the new trump
    assert st.tricks[-1][2] == 2 and st.turn == 2
    run(st, "play QC")
    # seat 0 has no clubs: it must trump with diamonds (the new trump), not hearts
    assert names(st.play_mask()) == {"KD"}
    run(st, "play KD play KC")
    assert st.tricks[-1][2] == 0


def test_a_pair_never_announced_scores_nothing() -> None:
    st = run(marriages_deal(), "play AS play KS play JS play KH play 9H play JH")
    assert st.marriages == [] and st.mpoints == [0, 0, 0] and st.trump == -1


def test_casa_announces_automatically() -> None:
    st = run(marriages_deal(CASA), "play AS play KS play JS")
    legal = st.legal_actions()
    assert Play(c("KH"), True) in legal and Play(c("KH")) not in legal
    with pytest.raises(
        IllegalActionError, match=r"in casa leading KH of a held pair always announces"
    ):
        st.apply(Play(c("KH")))
    st = CASA_138.played(CASA)
    assert st.marriages == [(0, 1)]


def test_play_errors_name_the_seat_the_action_and_the_reason() -> None:
    st = marriages_deal()
    with pytest.raises(
        IllegalActionError, match=r"^seat 0 cannot play TH: TH is not in its hand \(holds "
    ):
        st.apply(Play(c("TH")))
    st = make_state(CLUB, 2, *MARRIAGES)
    with pytest.raises(
        IllegalActionError,
        match=r"^seat 0 cannot play AH: cards are played only after the contract \(now: bidding\)",
    ):
        st.apply(Play(c("AH")))
    st = run(marriages_deal(), "play AS")
    with pytest.raises(
        IllegalActionError, match=r"^seat 1 cannot play TH: must follow spades: may play "
    ):
        st.apply(Play(c("TH")))
