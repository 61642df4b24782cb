"""Random playouts checking invariants, a slow reference for the legal actions, round-trips."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tapete import records
from tapete._compiled import slot_names
from tapete.cards import CARD_NAMES, KING, QUEEN, SEVEN, mask_points
from tapete.mariage import (
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    Reason,
    State,
)
from tapete.mariage.game import MariageGame
from tapete.mariage.record import replay_mariage

SETTINGS = settings(max_examples=80, deadline=None)
seeds = st.integers(min_value=0, max_value=2**32)
claim_rates = st.sampled_from([0.0, 0.05, 0.3])


def reference_legal(s: State) -> set[Action]:
    """The legal actions, written down from the rules as plainly as possible."""
    if s.done:
        return set()
    seat = s.turn
    assert seat is not None
    hand = s.hand_cards(seat)
    strict = s.closed or s.stock_count == 0
    lead = s.lead_card
    if lead is not None:
        if not strict:
            return {Play(c) for c in hand}
        same = [c for c in hand if c // 8 == lead // 8]
        beat = [c for c in same if c % 8 > lead % 8]
        trumps = [c for c in hand if c // 8 == s.trump]
        return {Play(c) for c in (beat or same or trumps or hand)}
    pending = s.pending_marriage
    if pending is not None:
        return {Play(c) for c in hand if c // 8 == pending and c % 8 in (KING, QUEEN)} | {Claim()}
    if not hand:
        return {Claim(), Decline()}
    acts: set[Action] = {Play(c) for c in hand}
    if not strict:
        if s.tricks[seat] > 0:
            if s.trump * 8 + SEVEN in hand:
                acts.add(Exchange())
            for su in range(4):
                if su * 8 + KING in hand and su * 8 + QUEEN in hand:
                    acts.add(Marriage(su))
        if s.trick_number >= 1 and s.stock_count >= 2:
            acts.add(Close())
    if s.trick_number >= 1:
        acts.add(Claim())
    return acts


def fingerprint(s: State) -> tuple[Any, ...]:
    values = []
    for name in slot_names(State):
        v = getattr(s, name)
        values.append(list(v) if isinstance(v, list) else v)
    return tuple(values)


def check_invariants(s: State) -> None:
    # every card is in exactly one place
    table = 0 if s.lead_card is None else 1 << s.lead_card
    stock = 0
    for c in s.stock[len(s.stock) - s.stock_count :]:
        stock |= 1 << c
    places = [s.hands[0], s.hands[1], s.won[0], s.won[1], stock, table]
    union = 0
    for m in places:
        assert union & m == 0
        union |= m
    assert union == (1 << 32) - 1
    # points are captured cards plus marriages
    for seat in (0, 1):
        bonus = sum(v for ms, _, v in s.marriages if ms == seat)
        assert s.points[seat] == mask_points(s.won[seat]) + bonus
    # legal actions: never empty before the end, as the reference says, in id order
    legal = s.legal_actions()
    assert bool(legal) == (not s.done)
    assert set(legal) == reference_legal(s)
    assert [a.id for a in legal] == sorted(a.id for a in legal)
    for a in legal:
        assert s.can_apply(a)


def no_leak(s: State, seat: int | None) -> None:
    """A view never shows the opponent's hand or the stock below the indicator; a spectator
    sees no hand at all."""
    view = s.view(seat)
    shown: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str) and x in CARD_NAMES:
            shown.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                if k not in ("hand", "legal"):
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(view)
    others = (0, 1) if seat is None else (1 - seat,)
    hidden = {c for o in others for c in s.hand_cards(o)}
    rest = s.stock[len(s.stock) - s.stock_count :]
    hidden |= set(rest[:-1])
    if s.closed and rest:
        hidden.add(rest[-1])
    assert not shown & {CARD_NAMES[c] for c in hidden}
    mine = [] if seat is None else [CARD_NAMES[c] for c in s.hand_cards(seat)]
    assert view["hand"] == mine


def playout(deal_seed: int, play_seed: int, claim_rate: float, check_pop: bool) -> State:
    rng = random.Random(play_seed)
    s = State.deal(random.Random(deal_seed), deal_seed & 1)
    while not s.done:
        check_invariants(s)
        no_leak(s, 0)
        no_leak(s, 1)
        no_leak(s, None)
        legal = s.legal_actions()
        if check_pop:
            before = fingerprint(s)
            for a in legal:
                s.apply(a)
                assert s.pop() == a
                assert fingerprint(s) == before
        claims = [a for a in legal if isinstance(a, Claim)]
        others = [a for a in legal if not isinstance(a, Claim)]
        claim = claims and (rng.random() < claim_rate or not others)
        a = claims[0] if claim else rng.choice(others)
        s.apply(a)
    check_invariants(s)
    return s


@SETTINGS
@given(seeds, seeds, claim_rates)
def test_random_playouts_keep_the_invariants(deal_seed: int, play_seed: int, rate: float) -> None:
    s = playout(deal_seed, play_seed, rate, check_pop=False)
    r = s.result
    assert r is not None
    total = 120 + sum(v for _, _, v in s.marriages)
    if r.reason in (Reason.EXHAUSTED, Reason.TIE):
        assert sum(r.points) == total + 10 and sum(r.tricks) == 16
    else:
        assert sum(r.points) <= total
    assert r.game_points in ((0,) if r.reason == Reason.TIE else (1, 2, 3))
    assert (r.winner is None) == (r.reason == Reason.TIE)


@settings(max_examples=25, deadline=None)
@given(seeds, seeds, claim_rates)
def test_pop_restores_the_exact_state(deal_seed: int, play_seed: int, rate: float) -> None:
    s = playout(deal_seed, play_seed, rate, check_pop=True)
    while s.history:
        s.pop()
    fresh = State(s.initial_hands, s.initial_stock, s.dealer)
    assert fingerprint(s) == fingerprint(fresh)


@settings(max_examples=20, deadline=None)
@given(seeds, seeds, st.integers(min_value=1, max_value=4))
def test_record_round_trip(seed: int, play_seed: int, max_deals: int) -> None:
    rng = random.Random(play_seed)
    game = MariageGame(seed=seed, players=["A", "B"], max_deals=max_deals)
    steps = 0
    while not game.over and steps < 400:
        game.apply(rng.choice(game.legal_actions()))
        steps += 1
    record = game.to_record()
    assert records.loads(records.dumps(record)) == [record]
    assert json.loads(json.dumps(record)) == record
    again = replay_mariage(record)
    assert again.to_record() == record
    assert again.match == game.match and again.winner == game.winner
    if not game.over:  # (max_deals is not part of a record)
        assert again.view(0) == game.view(0) and again.view(None) == game.view(None)


@settings(max_examples=15, deadline=None)
@given(seeds, seeds, st.floats(min_value=0.0, max_value=1.0))
def test_a_match_saved_at_any_moment_reads_back_where_it_stopped(
    seed: int, play_seed: int, close_rate: float
) -> None:
    # (every prefix: a record written mid-hand, e.g. with a closed hand's claim still to be
    # chosen, is a match in progress that stands exactly there)
    rng = random.Random(play_seed)
    game = MariageGame(seed=seed, players=["A", "B"], max_deals=2)
    while not game.over:
        record = game.to_record()
        again = replay_mariage(record)
        assert again.to_record() == record
        assert again.legal_actions() == game.legal_actions()
        assert again.view(0) == game.view(0) and again.view(1) == game.view(1)
        legal = game.legal_actions()
        closes = [a for a in legal if str(a) == "close"]
        game.apply(closes[0] if closes and rng.random() < close_rate else rng.choice(legal))


def rebuilt(s: State) -> State:
    """``s`` rebuilt through State.from_position from what it shows."""
    return State.from_position(
        hands=s.hands,
        stock=s.stock[len(s.stock) - s.stock_count :],
        trump=s.trump,
        leader=s.leader,
        lead=s.lead_card,
        points=s.points,
        tricks=s.tricks,
        won=s.won,
        trick_number=s.trick_number,
        closed_by=s.closed_by,
        closed_position=s.closed_position or (0, 0),
        pending_marriage=s.pending_marriage,
        marriages=s.marriages,
        last_trick=s.last_trick,
        dealer=s.dealer,
    )


@settings(max_examples=25, deadline=None)
@given(seeds, seeds, claim_rates, st.integers(min_value=0, max_value=40))
def test_from_position_continues_like_the_original(
    deal_seed: int, play_seed: int, rate: float, stop: int
) -> None:
    rng = random.Random(play_seed)
    s = State.deal(random.Random(deal_seed), 0)
    for _ in range(stop):
        legal = s.legal_actions()
        if not legal:
            break
        s.apply(rng.choice([a for a in legal if not isinstance(a, Claim)] or legal))
    if s.done:
        return
    copy = rebuilt(s)
    while not s.done:
        assert copy.legal_actions() == s.legal_actions()
        assert copy.view(0) | {"dealer": 0} == s.view(0) | {"dealer": 0}
        legal = s.legal_actions()
        claims = [a for a in legal if isinstance(a, Claim)]
        a = claims[0] if claims and rng.random() < rate else rng.choice(legal)
        s.apply(a)
        copy.apply(a)
        copy.pop()
        copy.apply(a)
    assert copy.result == s.result
