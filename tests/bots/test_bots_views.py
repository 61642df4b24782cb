"""Bots see only their seat's view: they touch nothing else, and hidden cards never matter."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from bots_helpers import random_positions, strong

from tapete.cards import bits
from tapete.games import new_game

#: the view keys of docs/dev/contract.md (plus ``redeal_reasons``, which Mil views carry)
COMMON = {
    "game",
    "profile",
    "seat",
    "players",
    "phase",
    "turn",
    "over",
    "winner",
    "legal",
    "hand",
    "hand_counts",
    "deal_number",
}
MIL = COMMON | {
    "dealer",
    "scores",
    "bolts",
    "in_barrel",
    "barrel_attempts",
    "failed_visits",
    "bids",
    "high_bid",
    "declarer",
    "bid",
    "contract",
    "talon",
    "talon_count",
    "given",
    "trump",
    "marriages",
    "trick",
    "leader",
    "tricks",
    "tricks_won",
    "captured_points",
    "held_marriages",
    "pair_cards",
    "has_bolts",
    "bid_limit_reason",
    "sheet",
    "target",
    "barrel_from",
    "redeal_reasons",
}
MARIAGE = COMMON | {
    "dealer",
    "match",
    "target",
    "trump",
    "indicator",
    "stock_count",
    "closed",
    "closed_by",
    "trick",
    "leader",
    "last_trick",
    "points",
    "tricks_won",
    "marriages",
    "pending_marriage",
    "pair_cards",
    "claim_points",
    "sheet",
}


class RecordingView(dict[str, Any]):
    """A view that remembers which keys were read."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)


class Trap:
    """Stands in for ``game.state`` while a bot decides: any use of it fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a bot touched the game's state ({name})")


def _decide(game: Any, bot: Any, seed: int) -> tuple[Any, set[str]]:
    view = RecordingView(copy.deepcopy(game.view(game.turn)))
    state = game.state
    game.state = Trap()
    try:
        action = bot.act(view, random.Random(seed))
    finally:
        game.state = state
    return action, view.read


@pytest.mark.parametrize("name", ["rules", "search"])
@pytest.mark.parametrize("profile", ["club", "casa"])
def test_mil_bots_read_only_view_keys(name: str, profile: str) -> None:
    bot = strong("mil", name, profile)
    for i, g in enumerate(random_positions("mil", profile, 25, seed=31)):
        action, read = _decide(g, bot, i)
        assert read <= MIL, read - MIL
        assert action.to_json() in g.view(g.turn)["legal"]


@pytest.mark.parametrize("name", ["rules", "search"])
def test_mariage_bots_read_only_view_keys(name: str) -> None:
    for i, g in enumerate(random_positions("mariage", "mariage", 25, seed=41)):
        action, read = _decide(g, strong("mariage", name), i)
        assert read <= MARIAGE, read - MARIAGE
        assert action.to_json() in g.view(g.turn)["legal"]


def _swap_mil_hidden(g: Any, rng: random.Random) -> bool:
    """Swap one unplayed card between the two seats that are not to act."""
    st = g.state
    me = st.turn
    a, b = [s for s in range(3) if s != me]
    known = st.seat_knows(me)
    ca = [c for c in bits(st.hands[a]) if not known >> c & 1]
    cb = [c for c in bits(st.hands[b]) if not known >> c & 1]
    if not ca or not cb:
        return False
    x, y = rng.choice(ca), rng.choice(cb)
    st.hands[a] ^= (1 << x) | (1 << y)
    st.hands[b] ^= (1 << x) | (1 << y)
    return True


@pytest.mark.parametrize("name", ["rules", "search"])
def test_mil_decision_does_not_depend_on_hidden_cards(name: str) -> None:
    rng = random.Random(5)
    checked = 0
    for i, g in enumerate(random_positions("mil", "club", 30, seed=51)):
        before = g.view(g.turn)
        a1 = strong("mil", name, "club", steady=True).act(copy.deepcopy(before), random.Random(i))
        if not _swap_mil_hidden(g, rng):
            continue
        after = g.view(g.turn)
        if after != before:
            continue
        a2 = strong("mil", name, "club", steady=True).act(copy.deepcopy(after), random.Random(i))
        assert a1 == a2
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("name", ["rules", "search"])
def test_mariage_decision_does_not_depend_on_hidden_cards(name: str) -> None:
    rng = random.Random(6)
    checked = 0
    for i, g in enumerate(random_positions("mariage", "mariage", 30, seed=61)):
        st = g.state
        me = st.turn
        opp = 1 - me
        before = g.view(me)
        a1 = strong("mariage", name, steady=True).act(copy.deepcopy(before), random.Random(i))
        # swap a card of the opponent's hand with a face-down card of the stock
        pos = 20 - st.stock_count
        face_down = list(range(pos, 19)) if not st.closed else list(range(pos, 20))
        opp_cards = list(bits(st.hands[opp]))
        if not face_down or not opp_cards:
            continue
        k = rng.choice(face_down)
        x = rng.choice(opp_cards)
        y = st.stock[k]
        st.stock[k] = x
        st.hands[opp] ^= (1 << x) | (1 << y)
        after = g.view(me)
        if after != before:
            continue
        a2 = strong("mariage", name, steady=True).act(copy.deepcopy(after), random.Random(i))
        assert a1 == a2
        checked += 1
    assert checked >= 8


def test_new_game_views_are_json_only() -> None:
    import json

    g: Any = new_game("mil", "club", seed=1)
    json.dumps(g.view(g.turn))


def test_mariage_tracker_knows_every_card_after_exhaustion() -> None:
    """Seeing every view of its seat, a Mariage bot can tell the opponent's hand exactly once
    the stock is exhausted (the view itself shows only the last trick)."""
    from tapete.bots.mariage.tracker import MariageTracker

    checked = 0
    for seed in range(2):
        g: Any = new_game("mariage", seed=seed, max_deals=2)
        bots = [strong("mariage", "rules"), strong("mariage", "rules")]
        trackers = [MariageTracker(), MariageTracker()]
        while not g.over:
            s = g.turn
            v = g.view(s)
            info = trackers[s].update(v)
            if v["phase"] == "strict" and not v["closed"]:
                assert info.unseen | info.opp_known == g.state.hands[1 - s]
                checked += 1
            g.apply(bots[s].act(v, random.Random(0)))
    assert checked > 5
