"""The match (MariageGame: the Game protocol of docs/dev/contract.md) and the actions."""

from __future__ import annotations

import itertools
import random

import pytest

from tapete.cards import InvalidNotationError, parse_card
from tapete.errors import IllegalActionError
from tapete.games import new_game
from tapete.mariage import (
    ACTION_COUNT,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    action_from_id,
    action_from_json,
)
from tapete.mariage.game import TARGET, MariageGame
from tapete.replay import replay

VIEW_KEYS = {
    "game", "profile", "seat", "players", "phase", "turn", "over", "winner", "legal", "hand",
    "hand_counts", "deal_number", "dealer", "match", "target", "trump", "indicator",
    "stock_count", "closed", "closed_by", "trick", "leader", "last_trick", "points",
    "tricks_won", "marriages", "pending_marriage", "sheet", "pair_cards", "claim_points",
    "commitment",
}  # fmt: skip


# --- actions -------------------------------------------------------------------------------


def test_action_ids_are_dense_and_stable() -> None:
    actions = [action_from_id(i) for i in range(ACTION_COUNT)]
    assert [a.id for a in actions] == list(range(ACTION_COUNT))
    assert actions[parse_card("KH")] == Play(parse_card("KH"))
    assert (actions[32], actions[33], actions[36]) == (Exchange(), Marriage(0), Marriage(3))
    assert (actions[37], actions[38], actions[39]) == (Close(), Claim(), Decline())
    for a in actions:
        assert action_from_json(a.to_json()) == a


def test_action_json_forms() -> None:
    assert Play(parse_card("KH")).to_json() == {"type": "play", "card": "KH"}
    assert Marriage(3).to_json() == {"type": "marriage", "suit": "H"}
    assert Exchange().to_json() == {"type": "exchange"}
    assert action_from_json({"seat": 1, "type": "play", "card": "10♥"}) == Play(parse_card("TH"))
    assert action_from_json({"type": "marriage", "suit": "♠"}) == Marriage(0)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "play", "card": "1H"}, "'1H' is not a card"),
        ({"type": "play"}, "a play action needs a 'card' field"),
        ({"type": "marriage", "suit": "X"}, "'X' is not a suit"),
        ({"type": "marriage", "suit": 3}, "3 is not a suit"),
        ({"type": "bid", "value": 100}, "unknown Mariage action type 'bid'"),
        ("claim", "an action must be a JSON object"),
    ],
)
def test_bad_action_json(data: object, message: str) -> None:
    with pytest.raises(InvalidNotationError, match=message):
        action_from_json(data)


def test_bad_action_ids() -> None:
    for bad in (-1, 40, True):
        with pytest.raises(InvalidNotationError):
            action_from_id(bad)
    with pytest.raises(InvalidNotationError):
        Play(32)


# --- the match ------------------------------------------------------------------------------


def random_match(seed: int, play_seed: int, **kwargs: object) -> MariageGame:
    rng = random.Random(play_seed)
    game = MariageGame(seed=seed, **kwargs)  # type: ignore[arg-type]
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_registry_creates_a_mariage_match() -> None:
    game = new_game("mariage", seed=1, players=["Ana", "Bruno"])
    assert isinstance(game, MariageGame)
    assert (game.name, game.profile_name, game.players, game.seed) == (
        "mariage",
        "mariage",
        ["Ana", "Bruno"],
        1,
    )


def test_match_to_seven() -> None:
    for play_seed in range(5):
        game = random_match(7, play_seed)
        assert game.over and game.winner is not None
        assert game.match[game.winner] >= TARGET > game.match[1 - game.winner]
        assert (game.turn, game.phase, game.legal_actions()) == (None, "over", [])
        dealers = [d["dealer"] for d in game.to_record()["deals"]]
        assert all(a != b for a, b in itertools.pairwise(dealers))
        with pytest.raises(IllegalActionError, match="the match is over"):
            game.apply(Claim())


def test_deals_depend_only_on_the_seed() -> None:
    a = random_match(21, 1).to_record()["deals"]
    b = random_match(21, 2).to_record()["deals"]
    n = min(len(a), len(b))
    assert n >= 2
    assert [(d["dealer"], d["hands"], d["stock"]) for d in a[:n]] == [
        (d["dealer"], d["hands"], d["stock"]) for d in b[:n]
    ]
    assert random_match(21, 1).to_record() == random_match(21, 1).to_record()


def test_max_deals_stops_without_a_winner() -> None:
    game = MariageGame(seed=3, max_deals=1)
    while not game.over:
        game.apply(game.legal_actions()[0])
    assert len(game.to_record()["deals"]) == 1
    if max(game.match) < TARGET:
        assert game.winner is None and game.over


def test_start_position() -> None:
    game = MariageGame(seed=3, start={"dealer": 0, "game_points": [6, 6]})
    assert game.state.dealer == 0 and game.match == [6, 6] and game.turn == 1
    while not game.over:
        game.apply(game.legal_actions()[-1])
    assert game.winner is not None and len(game.finished) == 1


def test_start_validation() -> None:
    with pytest.raises(ValueError, match=r"start\.dealer"):
        MariageGame(seed=1, start={"dealer": 5})
    with pytest.raises(ValueError, match=r"start\.game_points"):
        MariageGame(seed=1, start={"game_points": [1]})
    with pytest.raises(ValueError, match="2 players"):
        MariageGame(seed=1, players=["solo"])


@pytest.mark.parametrize("points", [[7, 7], [7, 0], [3, 9]])
def test_a_start_at_the_target_is_refused(points: list[int]) -> None:
    # ([7, 7] was played on for another hand; [7, 0] began a match already won)
    seat = 0 if points[0] >= TARGET else 1
    said = rf"start: seat {seat} already has {points[seat]} game points, the target \(7\)"
    with pytest.raises(ValueError, match=said):
        MariageGame(seed=1, start={"game_points": points})
    MariageGame(seed=1, start={"game_points": [6, 6]})  # (one hand from the end: fine)


# --- views ----------------------------------------------------------------------------------


def test_view_keys_and_what_each_seat_sees() -> None:
    game = MariageGame(seed=5, players=["Ana", "Bruno"])
    turn = game.turn
    assert turn is not None
    for seat in (0, 1, None):
        v = game.view(seat)
        assert set(v) == VIEW_KEYS
        assert v["seat"] == seat and v["target"] == TARGET and v["deal_number"] == 1
        assert v["hand_counts"] == [6, 6] and v["stock_count"] == 20
        assert v["indicator"] is not None and v["indicator"][1] == v["trump"]
    assert game.view(None)["hand"] == [] and game.view(None)["legal"] == []
    assert game.view(1 - turn)["legal"] == []
    assert game.view(turn)["legal"] == [a.to_json() for a in game.legal_actions()]
    assert len(game.view(0)["hand"]) == 6


def test_view_names_the_claim_points_and_this_seats_pair_cards() -> None:
    from tapete.cards import CARD_NAMES, PAIR_MASKS, bits
    from tapete.mariage.state import WIN_POINTS

    for seed in range(40):
        game = MariageGame(seed=seed)
        assert game.view(None)["pair_cards"] == []
        for seat in (0, 1):
            v = game.view(seat)
            assert v["claim_points"] == WIN_POINTS == 66
            hand = game.state.hands[seat]
            want = [
                CARD_NAMES[c]
                for c in bits(hand)
                if any(hand & m == m and m >> c & 1 for m in PAIR_MASKS)
            ]
            assert v["pair_cards"] == want
            assert len(v["pair_cards"]) % 2 == 0 and set(v["pair_cards"]) <= set(v["hand"])
    assert any(MariageGame(seed=s).view(0)["pair_cards"] for s in range(40))


def test_view_of_a_closed_stock_hides_the_indicator() -> None:
    rng = random.Random(2)
    game = MariageGame(seed=8)
    while not (game.state.closed or game.over):
        legal = game.legal_actions()
        game.apply(Close() if Close() in legal else rng.choice([a for a in legal if a != Claim()]))
    v = game.view(0)
    assert v["closed"] and v["indicator"] is None and v["closed_by"] in (0, 1)
    assert v["trump"] in "SCDH"


def test_sheet_rows_follow_the_record() -> None:
    game = random_match(4, 4)
    rows = game.view(None)["sheet"]
    deals = game.to_record()["deals"]
    closing = ("closed_by", "closed_points", "closed_tricks")
    plain = [{k: v for k, v in r.items() if k not in closing} for r in rows]
    assert plain == [{"dealer": d["dealer"], **d["result"]} for d in deals]
    assert rows[-1]["match"] == game.match
    # a closed hand's row adds its closing (who closed it: the record's close action)
    for row, d in zip(rows, deals, strict=True):
        closer = [a["seat"] for a in d["actions"] if a["type"] == "close"]
        assert row.get("closed_by") == (closer[0] if closer else None)


def test_trick_and_last_trick_in_the_view() -> None:
    game = MariageGame(seed=5)
    leader = game.turn
    first = game.legal_actions()[0]
    game.apply(first)
    v = game.view(None)
    assert v["trick"] == [{"seat": leader, "card": first.to_json()["card"]}]
    game.apply(game.legal_actions()[0])
    v = game.view(None)
    assert v["trick"] == [] and v["last_trick"]["leader"] == leader
    assert sum(v["tricks_won"]) == 1 and v["stock_count"] == 18


def test_illegal_action_message_names_seat_action_and_reason() -> None:
    game = MariageGame(seed=5)
    held = set(game.state.hand_cards(game.turn or 0))
    other = next(c for c in range(32) if c not in held)
    pattern = rf"^seat {game.turn} cannot play .*: not in hand$"
    with pytest.raises(IllegalActionError, match=pattern):
        game.apply(Play(other))


def _first_hand_closed_at_once(seed: int) -> tuple[MariageGame, list[dict[str, object]]]:
    """Seed ``seed``'s match, the stock closed at the first chance and random moves without
    claims otherwise, until its first hand ends; and that last action's events' payloads."""
    g = new_game("mariage", "mariage", seed=seed, players=["Ann", "Bruno"])
    assert isinstance(g, MariageGame)
    rng = random.Random(seed)
    while True:
        acts = g.legal_actions()
        close = [a for a in acts if isinstance(a, Close)]
        events = g.apply(
            close[0] if close else rng.choice([a for a in acts if not isinstance(a, Claim)] or acts)
        )
        if g.finished:
            return g, [e.for_viewer(0) for e in events]


def test_a_closed_hand_s_sheet_row_says_the_closing() -> None:
    """A closed hand's game points follow the opponent's points and tricks at the closing, not
    at the end (seed 2: Ann closes when Bruno has nothing, fails, and Bruno scores 3 with 5
    tricks): its sheet row and its deal_end row say them, from the engine's state, so that a
    player can see why; a hand nobody closed has none of them."""
    g, events = _first_hand_closed_at_once(2)
    row = g.view(0)["sheet"][0]
    closing = {"closed_by": 0, "closed_points": 0, "closed_tricks": 0}
    assert {k: row[k] for k in closing} == closing
    assert row["game_points"] == 3 and row["tricks"][1] > 0  # the closing decided, not the end
    end = next(e for e in events if e["type"] == "deal_end")
    assert end["row"] == row == g.view(None)["sheet"][0]
    assert "closed_by" not in g.finished[0]["result"]  # the record's result is unchanged
    # a replay of the record rebuilds them
    again = replay(g.to_record())
    assert again.view(0)["sheet"] == g.view(0)["sheet"]
    # a hand nobody closed
    g = new_game("mariage", "mariage", seed=5, players=["Ann", "Bruno"])
    rng = random.Random(5)
    while not g.view(0)["sheet"]:
        acts = [a for a in g.legal_actions() if not isinstance(a, Close | Claim)]
        g.apply(rng.choice(acts or g.legal_actions()))
    assert not {"closed_by", "closed_points", "closed_tricks"} & set(g.view(0)["sheet"][0])
