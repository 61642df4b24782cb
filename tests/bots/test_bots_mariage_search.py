"""The Mariage ``search`` player's parts: the exact strict search, the playout policy, the
closing, and the screening of actions that cannot beat the rules player's choice."""

from __future__ import annotations

import random
from typing import Any

from bots_helpers import strong

from tapete.bots.mariage.search import MariageSearchBot, _playout_action, _screen
from tapete.bots.mariage.tracker import MariageTracker, build_state
from tapete.cards import parse_card
from tapete.mariage.actions import CLOSE, PLAYS, Action, Close, Play
from tapete.mariage.state import State
from tapete.solver.mariage import _search_moves, solve_strict
from tapete.solver.mariage import game_value as _value


def _mask(names: str) -> int:
    m = 0
    for c in _cards(names):
        m |= 1 << c
    return m


def _cards(names: str) -> list[int]:
    return [parse_card(n) for n in names.split(" ")]


def _brute(st: State, me: int) -> int:
    """Plain minimax on game points (no pruning, no memo)."""
    if st.done:
        return _value(st, me)
    s = st.turn
    vals = []
    for a in _search_moves(st):
        st.apply(a)
        vals.append(_brute(st, me))
        st.pop()
    return max(vals) if s == me else min(vals)


def _strict_positions(n: int, cards_left: int, seed: int) -> list[State]:
    """Random hands played at random into the strict phase with ``cards_left`` cards each."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        st = State.deal(rng, dealer=rng.randrange(2))
        while not st.done:
            if (
                st.phase.value == "strict"
                and st.lead_card is None
                and st.hands[0].bit_count() == cards_left == st.hands[1].bit_count()
            ):
                out.append(st)
                break
            acts = [a for a in st.legal_actions() if a.to_json() != "claim"]
            plays = [a for a in acts if isinstance(a, Play)]
            closes = [a for a in acts if isinstance(a, Close)]
            st.apply(closes[0] if closes and rng.random() < 0.1 else rng.choice(plays or acts))
    return out


def test_strict_search_agrees_with_brute_force() -> None:
    for st in _strict_positions(12, 3, seed=5) + _strict_positions(6, 4, seed=6):
        me = st.turn
        assert me is not None
        v, best = solve_strict(st, me)
        assert v == _brute(st, me)
        assert best is not None
        st.apply(best)
        assert _brute(st, me) == v
        st.pop()


def test_playout_policy_is_legal_and_finishes() -> None:
    rng = random.Random(3)
    for _ in range(40):
        st = State.deal(rng, dealer=rng.randrange(2))
        steps = 0
        while not st.done:
            a = _playout_action(st, rng)
            assert a in st.legal_actions()
            st.apply(a)
            steps += 1
            assert steps < 200


def test_playout_policy_closes_with_sure_trumps() -> None:
    # spades trump; seat 0 leads with 50 points and the three top trumps: 50 + 14 + 13 + 7
    # reaches the rules player's closing mark of 72
    st = State.from_position(
        hands=(_mask("AS TS KS 7C 8C 9D"), _mask("QS JS 7D 8D 9C JC")),
        stock=_cards("7H 8H 9H JH QH KH TH AH 8S 9S"),
        trump=0,
        leader=0,
        points=(50, 10),
        tricks=(4, 2),
        trick_number=6,
    )
    assert _playout_action(st, random.Random(0)) is CLOSE


def test_search_closes_a_won_hand() -> None:
    """With A T K J of trumps, the A of clubs and 40 points against 20, closing and cashing
    the trumps reaches 66 while the opponent stays below 33: at least 2 game points."""
    from tapete.games import new_game

    g: Any = new_game("mariage", seed=3)
    me = g.turn
    mine, theirs = _mask("AH TH KH JH AC 7C"), _mask("QH 9H 7D 8D 9C JC")
    g.state = State.from_position(
        hands=(mine, theirs) if me == 0 else (theirs, mine),
        stock=_cards("AS TS KS QS JS 9S 8S 7S AD 8H"),
        trump=3,
        leader=me,
        points=(40, 20) if me == 0 else (20, 40),
        tricks=(3, 2) if me == 0 else (2, 3),
        trick_number=5,
    )
    view = g.view(me)
    assert {"type": "close"} in view["legal"]
    action, why = strong("mariage", "search", steady=True).explain(view, random.Random(1))
    assert action is CLOSE, (action, why)
    assert why.key in ("close_trumps", "close_reach") and why.sampled_avg is not None
    assert str(why).startswith("Close the stock: ")


def test_screen_keeps_the_prior_and_drops_clearly_worse_actions() -> None:
    prior: Action = PLAYS[0]
    good: Action = PLAYS[1]
    bad: Action = PLAYS[2]
    rng = random.Random(0)
    base = [rng.choice((-1, 1, 2)) for _ in range(60)]
    vals = {
        prior: base,
        good: [x + 1 for x in base],
        bad: [x - 1 if i % 3 else x for i, x in enumerate(base)],
    }
    kept = _screen(prior, [prior, good, bad], vals, 0.15)
    assert kept == [prior, good]


def test_build_state_with_the_true_hidden_cards_is_the_game_state() -> None:
    """Given the real opponent hand and stock, the sampled position is the game's position:
    same hands, score, turn, legal actions and exact value."""
    from tapete.games import new_game

    checked = 0
    for seed in range(3):
        g: Any = new_game("mariage", seed=seed, max_deals=2)
        bots = [strong("mariage", "rules"), strong("mariage", "rules")]
        trackers = [MariageTracker(), MariageTracker()]
        rng = random.Random(seed)
        while not g.over:
            s = g.turn
            view = g.view(s)
            info = trackers[s].update(view)
            real = g.state
            if real.hands[s]:
                stock = list(real.stock[20 - real.stock_count :])
                st = build_state(info, real.hands[1 - s], stock)
                assert st.hands == real.hands and st.points == real.points
                assert (st.turn, st.lead_card, st.phase) == (real.turn, real.lead_card, real.phase)
                assert st.legal_actions() == real.legal_actions()
                assert st.closed_position == real.closed_position
                if real.phase.value == "strict" and real.hands[s].bit_count() <= 3:
                    assert solve_strict(st, s)[0] == solve_strict(real, s)[0]
                checked += 1
            g.apply(bots[s].act(view, rng))
    assert checked > 50


def test_a_view_from_another_game_resets_the_tracker() -> None:
    # one search bot asked about positions of two different games (same hand number, dealer
    # and match score): its memory of the first game's tricks must not leak into the second
    from tapete.bots.registry import make_safe_bot
    from tapete.games import new_game

    views = []
    for seed in (12, 1012):
        game = new_game("mariage", seed=seed)
        rng = random.Random(seed)
        rules = make_safe_bot("mariage", "rules")
        for _ in range(8):
            game.apply(rules.act(game.view(game.turn), rng))
        views.append(game.view(game.turn))
    second_hand = sum(1 << parse_card(c) for c in views[1]["hand"])
    first = MariageTracker()
    first.update(views[0])
    assert first.played & second_hand  # the first game played cards the second one holds
    assert [(v["deal_number"], v["dealer"], v["match"]) for v in views] == [
        (views[0]["deal_number"], views[0]["dealer"], views[0]["match"])
    ] * 2  # and nothing else in the views tells the two positions apart
    bot = MariageSearchBot(samples=3, strict_samples=2)
    for view in views:
        action, _ = bot.explain(view, random.Random(0))
        assert action.to_json() in view["legal"]
    fresh = MariageTracker()
    fresh.update(views[1])
    assert vars(bot.tracker) == vars(fresh)
