"""Random playouts checking invariants (OpenSpiel's random_sim_test), push/pop, views that
hide other seats' cards, and record round trips of simulated games."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as hst

from tapete import records
from tapete._compiled import slot_names
from tapete.bots import RandomBot
from tapete.cards import CARD_NAMES, MIL_DECK, bits, mask_points
from tapete.mil import MARRIAGE_VALUES, PROFILES, MilGame, Phase, State, deal_cards, replay_mil
from tapete.mil.record import standing_from_start
from tapete.mil.state import BY_HAND_ORDER, hand_order
from tapete.replay import replay

SETTINGS = settings(max_examples=40, deadline=None)
seeds = hst.integers(min_value=0, max_value=2**32)
profiles = hst.sampled_from(sorted(PROFILES))
barrels = hst.tuples(hst.booleans(), hst.booleans(), hst.booleans())


def snapshot(st: State) -> dict[str, Any]:
    """Every slot of the state, deep-copied."""
    return {name: copy.deepcopy(getattr(st, name)) for name in slot_names(State)}


def where_cards(st: State) -> list[int]:
    """Every card's place, as a list of masks: three hands, the talon, the tricks, the trick."""
    played = 0
    for _, cards, _ in st.tricks:
        for x in cards:
            played |= 1 << x
    current = 0
    for x in st.trick:
        current |= 1 << x
    return [st.hands[0], st.hands[1], st.hands[2], st.talon, played, current]


def check_cards(st: State) -> None:
    places = where_cards(st)
    assert sum(m.bit_count() for m in places) == 24
    union = 0
    for m in places:
        union |= m
    assert union == MIL_DECK
    if st.phase is Phase.PLAY:
        counts = [h.bit_count() for h in st.hands]
        assert counts[st.turn] == 8 - len(st.tricks)
        assert st.talon == 0


def random_deal(profile: str, seed: int, in_barrel=(False, False, False), sink=None) -> State:
    rng = random.Random(seed)
    hands, talon = deal_cards(rng)
    st = State(PROFILES[profile], rng.randrange(3), hands, talon, in_barrel)
    check_cards(st)
    while not st.done:
        legal = st.legal_actions()
        assert legal, f"no legal action in {st!r}"
        if sink is not None:
            sink(st, legal, rng)
        st.apply(legal[rng.randrange(len(legal))])
        check_cards(st)
    assert st.legal_actions() == []
    return st


@SETTINGS
@given(profiles, seeds, barrels)
def test_random_deals_keep_the_invariants(profile, seed, in_barrel) -> None:
    st = random_deal(profile, seed, in_barrel)
    if st.annulled or st.rospis:
        return
    assert len(st.tricks) == 8
    assert sum(st.captured) == 120
    assert sum(mask_points(1 << x) for _, cards, _ in st.tricks for x in cards) == 120
    bonus = sum(MARRIAGE_VALUES[s] for _, s in st.marriages)
    assert sum(st.raw()) == 120 + bonus
    assert sum(st.tricks_won) == 8
    assert st.contract >= st.bid >= 100
    if PROFILES[profile].barrel == "club" and in_barrel[st.declarer]:
        assert st.contract >= 120


@settings(max_examples=25, deadline=None)
@given(profiles, seeds)
def test_push_pop_restores_every_slot(profile, seed) -> None:
    def each(st: State, legal, rng) -> None:
        before = snapshot(st)
        for a in legal if len(legal) <= 12 else rng.sample(legal, 12):
            st.push(a)
            st.pop()
            assert snapshot(st) == before, a
        # a few levels deep
        depth = 0
        while depth < 4 and not st.done:
            moves = st.legal_actions()
            st.push(moves[rng.randrange(len(moves))])
            depth += 1
        for _ in range(depth):
            st.pop()
        assert snapshot(st) == before

    random_deal(profile, seed, sink=each)


def hidden_from(st: State, seat: int | None) -> set[str]:
    """Cards in other seats' hands that ``seat`` has no way to know."""
    known = 0
    if st.declarer >= 0:
        for x in st.dealt_talon:
            known |= 1 << x
    if seat is not None:
        for x, to in st.gives:
            if seat in (to, st.declarer):
                known |= 1 << x
    out = set()
    for s in range(3):
        if s != seat:
            out |= {CARD_NAMES[x] for x in bits(st.hands[s] & ~known)}
    return out


def strings(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


def simulate(
    profile: str, seed: int, max_deals: int | None, start: dict | None = None, check_views=False
) -> MilGame:
    kwargs: dict[str, Any] = {}
    if start is not None:
        kwargs = dict(start=start, standing=standing_from_start(start), dealer=start["dealer"])
    game = MilGame(profile, seed=seed, max_deals=max_deals, **kwargs)
    bot = RandomBot()
    rngs = [random.Random(seed * 7 + s) for s in range(3)]
    while not game.over:
        seat = game.turn
        assert seat is not None and game.legal_actions()
        if check_views:
            st = game.state
            assert st is not None
            for s in (0, 1, 2, None):
                view = game.view(s)
                assert not strings(view) & hidden_from(st, s), (s, view)
                assert (view["legal"] != []) == (s == seat)
        game.apply(bot.act(game.view(seat), rngs[seat]))
    return game


@settings(max_examples=15, deadline=None)
@given(profiles, seeds)
def test_views_never_show_another_seats_hidden_cards(profile, seed) -> None:
    simulate(profile, seed, max_deals=2, check_views=True)


@settings(max_examples=20, deadline=None)
@given(profiles, seeds)
def test_simulated_records_round_trip(profile, seed) -> None:
    rec = simulate(profile, seed, max_deals=5).to_record()
    assert records.loads(records.dumps(rec)) == [rec]
    assert replay_mil(rec).to_record() == rec
    assert replay(records.loads(records.dumps(rec))[0]).to_record() == rec


@settings(max_examples=20, deadline=None)
@given(profiles, seeds, hst.integers(min_value=0, max_value=2))
def test_games_from_near_the_end_finish_and_round_trip(profile, seed, dealer) -> None:
    p = PROFILES[profile]
    if p.barrel == "club":
        start = {
            "dealer": dealer,
            "scores": [880, 860, 842.5],
            "bolts": [0, 2, 1],
            "in_barrel": [True, False, False],
            "barrel_attempts": [1, 0, 0],
            "failed_visits": [2, 0, 1],
        }
    else:
        start = {"dealer": dealer, "scores": [p.target - 100, p.barrel_from, p.barrel_from - 5]}
    game = simulate(profile, seed, max_deals=60, start=start)
    rec = game.to_record()
    assert rec["start"] == start
    assert records.loads(records.dumps(rec)) == [rec]
    assert replay_mil(rec).to_record() == rec
    if game.winner is not None:
        assert game.scores[game.winner] >= p.target
        _, last = game.deals[-1]
        assert last.declarer == game.winner and not last.annulled


def test_an_illegal_push_leaves_nothing_to_pop() -> None:
    from tapete.errors import IllegalActionError
    from tapete.mil import Bid, Pass

    rng = random.Random(4)
    hands, talon = deal_cards(rng)
    st = State(PROFILES["club"], 2, hands, talon)
    while st.phase is not Phase.BIDDING:
        st = State(PROFILES["club"], 2, *deal_cards(rng))
    before = snapshot(st)
    try:
        st.push(Pass())  # the opener must bid 100
    except IllegalActionError:
        pass
    else:  # pragma: no cover
        raise AssertionError("push(Pass()) should be refused")
    assert snapshot(st) == before and st._undo == []
    st.push(Bid(100))
    st.pop()
    assert snapshot(st) == before


COMMON_VIEW_KEYS = {
    "game", "profile", "seat", "players", "phase", "turn", "over", "winner", "legal", "hand",
    "hand_counts", "deal_number",
}  # fmt: skip
MIL_VIEW_KEYS = {
    "dealer", "scores", "bolts", "in_barrel", "barrel_attempts", "failed_visits", "bids",
    "high_bid", "declarer", "bid", "contract", "talon", "talon_count", "given", "trump",
    "marriages", "trick", "leader", "tricks", "tricks_won", "captured_points",
    "held_marriages", "sheet", "target", "barrel_from", "has_bolts", "bid_limit_reason",
}  # fmt: skip


@settings(max_examples=10, deadline=None)
@given(profiles, seeds)
def test_views_have_the_contract_keys_and_are_json(profile, seed) -> None:
    import json

    game = MilGame(profile, seed=seed, max_deals=2)
    bot = RandomBot()
    rng = random.Random(seed)
    while True:
        for s in (0, 1, 2, None):
            view = game.view(s)
            missing = (COMMON_VIEW_KEYS | MIL_VIEW_KEYS) - set(view)
            assert not missing, missing
            assert json.loads(json.dumps(view)) == view
            if s is not None and not game.over:
                assert len(view["hand"]) == view["hand_counts"][s]
        if game.over:
            break
        game.apply(bot.act(game.view(game.turn), rng))


@settings(max_examples=15, deadline=None)
@given(profiles, seeds)
def test_every_refusal_names_the_seat_the_action_and_a_reason(profile, seed) -> None:
    from tapete.errors import IllegalActionError
    from tapete.mil import NUM_ACTIONS, action_from_id

    everything = [action_from_id(i) for i in range(NUM_ACTIONS)]
    refused = 0

    def each(st: State, legal, rng) -> None:
        nonlocal refused
        for a in rng.sample(everything, 25):
            if a in legal:
                assert st.can_apply(a)
                continue
            assert not st.can_apply(a)
            try:
                st.apply(a)
            except IllegalActionError as exc:
                msg = str(exc)
                prefix = f"seat {st.turn} cannot {a}: "
                assert msg.startswith(prefix) and len(msg) > len(prefix) + 5, msg
                refused += 1
            else:  # pragma: no cover
                raise AssertionError(f"{a} was accepted but is not in legal_actions()")

    random_deal(profile, seed, sink=each)
    assert refused > 0


@settings(max_examples=60, deadline=None)
@given(seed=hst.integers(0, 2**32 - 1), steps=hst.integers(0, 60))
def test_a_views_hand_is_in_hand_order(seed: int, steps: int) -> None:
    """Each seat's ``hand`` is its cards sorted by ``hand_order`` (hearts, spades, diamonds,
    clubs, strongest first), as the people see it; the view picks them from
    ``BY_HAND_ORDER`` instead of sorting."""
    game = MilGame("club", seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    st = game.state
    assert st is not None
    for seat in range(3):
        expected = [CARD_NAMES[c] for c in sorted(bits(st.hands[seat]), key=hand_order)]
        assert game.view(seat)["hand"] == expected
    every = list(bits(MIL_DECK))
    assert [c for c in BY_HAND_ORDER if c in every] == sorted(every, key=hand_order)
