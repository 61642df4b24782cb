"""The one contract both engines honour (docs/dev/contract.md): the deal level (push/pop,
why_illegal), the game level (events from apply), spectators, and strict action parsing."""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapete._compiled import import_copy
from tapete.cards import parse_card
from tapete.errors import IllegalActionError, InvalidNotationError
from tapete.game import JSON, Event
from tapete.games import kind, kinds, new_game
from tapete.mariage import actions as mariage_actions
from tapete.mariage.actions import Claim, Close, Exchange
from tapete.mil import actions as mil_actions
from tapete.mil.actions import NUM_ACTIONS as MIL_ACTIONS
from tapete.mil.actions import Give, Redeal
from tapete.replay import replay

NAMES = [k.name for k in kinds()]


def play_until(game: Any, rng: random.Random, stop: Any, limit: int = 5000) -> list[Event]:
    """Random play until ``stop(events)`` is true; the events of the last action."""
    for _ in range(limit):
        events = game.apply(rng.choice(game.legal_actions()))
        if stop(events) or game.over:
            return events
    raise AssertionError("the condition never came")


def game_after(name: str, profile: int, seed: int, steps: int) -> tuple[Any, list[int | None]]:
    """A game of ``name`` (profile number ``profile``, any int) after up to ``steps`` random
    actions, and its seats with a spectator (None) last."""
    profiles = kind(name).profiles
    game = new_game(name, profiles[profile % len(profiles)], seed=seed, max_deals=3)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game, [*range(len(game.players)), None]


# --- the deal level ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_pop_returns_the_pushed_action_and_raises_index_error_when_empty(name: str) -> None:
    st = new_game(name, seed=2).state
    with pytest.raises(IndexError):
        st.pop()
    first = st.legal_actions()[0]
    st.push(first)
    second = st.legal_actions()[-1]
    st.push(second)
    assert st.pop() == second
    assert st.pop() == first
    with pytest.raises(IndexError):
        st.pop()


@pytest.mark.parametrize("name", NAMES)
def test_why_illegal_is_the_sentence_apply_raises(name: str) -> None:
    game = new_game(name, seed=5)
    rng = random.Random(3)
    checked = 0
    for _ in range(200):
        legal = game.legal_actions()
        for a in legal:
            assert game.why_illegal(a) is None and game.can_apply(a)
            assert game.state.why_illegal(a) is None and game.state.can_apply(a)
        # an action of another position (a card not in hand, a bid out of turn ...)
        other = new_game(name, seed=rng.randrange(100)).legal_actions()
        for a in other:
            if a in legal:
                continue
            why = game.why_illegal(a)
            assert why is not None and not game.can_apply(a)
            assert game.state.why_illegal(a) == why
            with pytest.raises(IllegalActionError) as exc:
                game.apply(a)
            assert str(exc.value) == why
            checked += 1
        game.apply(rng.choice(legal))
        if game.over:
            break
    assert checked > 10


@pytest.mark.parametrize("name", NAMES)
def test_push_on_an_illegal_action_leaves_nothing_to_pop(name: str) -> None:
    st = new_game(name, seed=8).state
    legal = st.legal_actions()
    st.push(legal[0])
    other = [a for a in new_game(name, seed=9).state.legal_actions() if not st.can_apply(a)]
    with pytest.raises(IllegalActionError):
        st.push(other[0])
    assert st.pop() == legal[0]
    with pytest.raises(IndexError):
        st.pop()


# --- spectators ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_spectator_view_lists_no_legal_actions(name: str) -> None:
    game = new_game(name, seed=1)
    rng = random.Random(0)
    for _ in range(60):
        assert game.view(None)["legal"] == []
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [3, 8])
def test_a_view_after_any_action_is_the_view_of_a_game_built_afresh(name: str, seed: int) -> None:
    """What an engine keeps between views (Mil: the game's part, built again only when a
    deal ends or the game stops) never goes stale: after every action of whole games, each
    seat's view (keys in the same order) is that of a new game given the same actions; a
    player renamed in place (the server names a seat when a person takes it) shows at once."""
    for profile in kind(name).profiles:
        game = new_game(name, profile, seed=seed, max_deals=3)
        seats: list[int | None] = [*range(len(game.players)), None]
        rng = random.Random(seed)
        actions = []
        while not game.over:
            game.views(seats)  # (what the last action left is kept, if anything)
            action = rng.choice(game.legal_actions())
            actions.append(action)
            game.apply(action)
            if len(actions) % 25 == 0:
                game.players[len(actions) % len(game.players)] = f"P{len(actions)}"
            fresh = new_game(name, profile, seed=seed, max_deals=3)
            fresh.players[:] = game.players
            for a in actions:
                fresh.apply(a)
            for seat, view in zip(seats, game.views(seats), strict=True):
                assert json.dumps(view) == json.dumps(fresh.view(seat)), (profile, seat, actions)


#: a point of a game for ``game_after`` (Hypothesis draws its arguments)
GAME_POINTS = {
    "name": st.sampled_from(NAMES),
    "profile": st.integers(0, 2),
    "seed": st.integers(0, 2**32),
    "steps": st.integers(0, 400),
}


@settings(max_examples=25, deadline=None)
@given(**GAME_POINTS)
def test_views_at_once_are_the_views_one_by_one(
    name: str, profile: int, seed: int, steps: int
) -> None:
    """``Game.views`` (the server's broadcast builds a view per seat with it) gives exactly
    ``view`` of each seat, keys in the same order, at any point of a game, game over too;
    a value shared between the views is the same for every seat, so no seat's own
    information can reach another through the sharing."""
    game, seats = game_after(name, profile, seed, steps)
    views = game.views(seats)
    for seat, view in zip(seats, views, strict=True):
        assert json.dumps(view) == json.dumps(game.view(seat)), seat
    assert game.views([seats[-1], 0]) == [views[-1], views[0]]


@settings(max_examples=40, deadline=None)
@given(**GAME_POINTS, stop=st.booleans())
def test_view_parts_put_together_are_the_views(
    name: str, profile: int, seed: int, steps: int, stop: bool
) -> None:
    """``Game.view_parts`` (the server encodes the shared part once for every seat): the
    shared keys and each seat's own keys, none in both, make exactly ``view`` of that seat,
    at any point of a game (between deals, game over, stopped mid-deal); the shared part is
    the same whatever the seats asked for, so no seat's own information is in it."""
    game, seats = game_after(name, profile, seed, steps)
    if stop and not game.over:
        game.stop()
    shared, owns = game.view_parts(seats)
    assert len(owns) == len(seats)
    for seat, own in zip(seats, owns, strict=True):
        assert own["seat"] == seat
        assert not shared.keys() & own.keys(), seat
        assert {**shared, **own} == game.view(seat), seat
        assert json.dumps({**shared, **own}, sort_keys=True) == json.dumps(
            game.view(seat), sort_keys=True
        )
    for alone in ([0], [None], []):
        assert game.view_parts(alone)[0] == shared


def stale_view_parts(name: str, profile: str, seed: int) -> tuple[int, int | None] | None:
    """A whole game of ``name`` whose ``view_parts`` is asked for after every action (what
    an engine keeps between them is then live: Mil gives the values it built before again
    where they are the same), with positions the views are built at and then left
    (an action pushed on the deal, its views built, and popped), a player renamed in place
    now and then, and a stop at the end. The first point (actions, seat) where a seat's part
    or the shared part is not the text of the same part of a game built afresh given the
    same actions, or of its ``view``; None if there is none."""
    game = new_game(name, profile, seed=seed, max_deals=3)
    seats: list[int | None] = [*range(len(game.players)), None]
    rng = random.Random(seed)
    actions: list[Any] = []
    while True:
        shared, owns = game.view_parts(seats)
        fresh = new_game(name, profile, seed=seed, max_deals=3)
        fresh.players[:] = game.players
        for a in actions:
            fresh.apply(a)
        if game.over and not fresh.over:
            fresh.stop()
        fresh_shared, fresh_owns = fresh.view_parts(seats)
        if json.dumps(shared) != json.dumps(fresh_shared):
            return len(actions), -1
        for seat, own, fresh_own in zip(seats, owns, fresh_owns, strict=True):
            if json.dumps(own) != json.dumps(fresh_own) or json.dumps(
                {**shared, **own}, sort_keys=True
            ) != json.dumps(fresh.view(seat), sort_keys=True):
                return len(actions), seat
        if game.over:
            return None
        if len(actions) >= 120 and name == "mil":
            game.stop()  # (stopped in a deal's middle: the views' last look at it)
            continue
        legal = game.legal_actions()
        if rng.random() < 0.3:  # (views of a position the game then leaves)
            game.state.push(rng.choice(legal))
            game.view_parts(seats)
            game.state.pop()
        action = rng.choice(legal)
        actions.append(action)
        game.apply(action)
        if len(actions) % 25 == 0:
            game.players[len(actions) % len(game.players)] = f"P{len(actions)}"


@pytest.mark.parametrize("name", NAMES)
def test_view_parts_after_any_action_are_those_of_a_game_built_afresh(name: str) -> None:
    """What an engine keeps between its views (Mil: each seat's own keys, handed out again
    while its cards and the deal's gives, auction and declarer are the same; the names)
    never goes stale: over whole games, each part of the views after every action is that
    of a new game given the same actions, also after views built at a position the game
    then left (pushed and popped)."""
    for profile in kind(name).profiles:
        for seed in (3, 8):
            assert stale_view_parts(name, profile, seed) is None, (profile, seed)


def test_a_stale_own_part_of_mil_views_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above catches a kept value gone stale: with what a Mil seat's own keys are
    made of missing the gives (``_own_from``), a seat that did not give or get a card is
    handed its keys from before the gives (its ``given`` without them)."""
    import tapete.mil.game as mil_game

    real = mil_game._own_from

    def without_gives(st: Any, over: bool) -> Any:
        made_of = real(st, over)
        return (*made_of[:2], (), *made_of[3:])

    monkeypatch.setattr(mil_game, "_own_from", without_gives)
    assert any(stale_view_parts("mil", "club", seed) is not None for seed in (3, 8))


def test_a_mil_action_event_index_is_its_place_among_the_recorded_actions() -> None:
    """A Mil action event's ``index`` (counted on from the action before: ``_record_index``)
    is ``record_index`` of the deal's history, also when actions were pushed on the deal
    and popped between two actions, or one pushed and kept, over whole random games."""
    from tapete.game import record_index
    from tapete.mil.game import _recorded

    for seed in range(6):
        game = new_game("mil", seed=seed, max_deals=6)
        rng = random.Random(seed)
        while not game.over:
            st = game.state
            legal = game.legal_actions()
            if rng.random() < 0.3:  # (the deal's history, grown and cut back to this)
                pushed = 0
                while pushed < 2 and not st.done:
                    st.push(rng.choice(st.legal_actions()))
                    pushed += 1
                for _ in range(pushed):
                    st.pop()
            elif rng.random() < 0.1:  # (an action taken on the deal itself, kept)
                st.push(rng.choice(legal))
                if st.done:
                    st.pop()
                legal = game.legal_actions()
            events = game.apply(rng.choice(legal))
            assert events[0].public["index"] == record_index(st.history, _recorded)


@pytest.mark.parametrize("name", NAMES)
def test_a_game_stopped_in_a_deals_middle_numbers_the_deal_its_views_show(name: str) -> None:
    """Stopped in its second deal, the views show that deal as it stands (contract.md):
    their ``deal_number`` is that deal's, 2 (it said 1, the deal before, beside the second
    deal's cards), and so is their ``dealer``."""
    game = new_game(name, seed=4)
    rng = random.Random(4)
    play_until(game, rng, lambda events: any(e.type == "deal" for e in events))
    assert game.deal_number == 2 and not game.over
    game.apply(rng.choice(game.legal_actions()))
    dealer, hand = game.state.dealer, game.view(0)["hand"]
    game.stop()
    view = game.view(0)
    assert view["phase"] == "over" and view["hand"] == hand
    assert (game.deal_number, view["deal_number"], view["dealer"]) == (2, 2, dealer)


def test_mil_stop_leaks_no_legal_actions_to_a_spectator() -> None:
    # before the fix the view compared seat == turn with both None after stop()
    game = new_game("mil", seed=1)
    game.stop()
    assert game.over and game.turn is None
    assert game.view(None)["legal"] == []
    assert all(game.view(s)["legal"] == [] for s in range(3))


# --- events -------------------------------------------------------------------------------


def test_mil_give_card_only_for_the_giver_and_the_receiver() -> None:
    game = new_game("mil", seed=4)
    rng = random.Random(4)
    while True:
        legal = game.legal_actions()
        gives = [a for a in legal if isinstance(a, Give)]
        if gives:
            give = gives[0]
            declarer = game.turn
            events = game.apply(give)
            break
        events = game.apply(rng.choice(legal))
    (ev,) = [e for e in events if e.type == "action"]
    card = ev.for_viewer(declarer)["action"]["card"]
    assert card is not None and ev.for_viewer(give.to)["action"]["card"] == card
    third = 3 - declarer - give.to
    assert ev.for_viewer(third)["action"]["card"] is None
    assert ev.for_viewer(None)["action"] == {"type": "give", "card": None, "to": give.to}


def test_mil_talon_event_when_the_auction_ends() -> None:
    game = new_game("mil", seed=6)
    events = play_until(game, random.Random(2), lambda ev: any(e.type == "talon" for e in ev))
    (talon,) = [e.for_viewer(None) for e in events if e.type == "talon"]
    view = game.view(None)
    assert talon == {"type": "talon", "seat": view["declarer"], "cards": view["talon"]}


def test_mil_deal_end_row_is_the_new_sheet_row_and_the_next_deal_is_private() -> None:
    game = new_game("mil", seed=7)
    events = play_until(game, random.Random(1), lambda ev: any(e.type == "deal_end" for e in ev))
    types = [e.type for e in events]
    assert types[0] == "action" and types[-2:] == ["deal_end", "deal"]
    end = events[-2].for_viewer(None)
    assert end["deal"] == 0 and end["row"] == game.view(None)["sheet"][0]
    deal = events[-1]
    assert "hand" not in deal.for_viewer(None)
    for s in range(3):
        assert sorted(deal.for_viewer(s)["hand"]) == sorted(game.view(s)["hand"])
        assert deal.for_viewer(s)["dealer"] == game.view(s)["dealer"]


def test_mil_redeal_shows_the_cards_that_justify_it() -> None:
    for seed in range(200):
        game = new_game("mil", seed=seed)
        redeals = [a for a in game.legal_actions() if isinstance(a, Redeal)]
        if redeals:
            break
    else:
        raise AssertionError("no redeal offer in 200 seeds")
    seat = game.turn
    proof = game.view(seat)["redeal_cards"][redeals[0].reason]
    events = game.apply(redeals[0])
    action = events[0].for_viewer(None)
    assert action["action"] == redeals[0].to_json() and action["shown"] == proof
    assert [e.type for e in events] == ["action", "deal_end", "deal"]
    assert events[1].for_viewer(None)["row"]["annulled"] is True


@pytest.mark.parametrize("name", NAMES)
def test_an_action_event_carries_its_index_in_the_deals_record(name: str) -> None:
    """Each action event's ``index`` is the action's place in its deal's record ``actions``
    (the replay's frame ``index + 1``: the history's numbers follow it), None for an action
    the record leaves out (Mil ``keep``, Mariage ``decline``), over whole random games."""
    leave = {"mil": "keep", "mariage": "decline"}[name]
    left_out = set()
    for seed in range(8):
        game = new_game(name, seed=seed, max_deals=12)
        rng = random.Random(seed)
        deals: list[list[tuple[int | None, JSON]]] = [[]]
        while not game.over:
            seat = game.turn
            legal = game.legal_actions()
            rare = [a for a in legal if a.to_json()["type"] == leave]  # (mostly taken)
            events = game.apply(rare[0] if rare and rng.random() < 0.7 else rng.choice(legal))
            ev = events[0].for_viewer(seat)  # (a give's card for its giver)
            assert events[0].for_viewer(None)["index"] == ev["index"]  # (public)
            deals[-1].append((ev["index"], {"seat": seat, **ev["action"]}))
            if any(e.type == "deal" for e in events):
                deals.append([])
        for deal, seen in zip(game.to_record()["deals"], deals, strict=True):
            assert [a for i, a in seen if i is not None] == deal["actions"]
            assert [i for i, _ in seen if i is not None] == list(range(len(deal["actions"])))
            left_out |= {a["type"] for i, a in seen if i is None}
    assert left_out == {leave}


@pytest.mark.parametrize("name", NAMES)
def test_game_over_event_with_the_winner_and_scores(name: str) -> None:
    game = new_game(name, seed=3, max_deals=2)
    events = play_until(game, random.Random(3), lambda ev: False, limit=100000)
    assert game.over
    last = events[-1].for_viewer(None)
    assert last == {"type": "game_over", "winner": game.winner, "scores": game.scores}


def test_mariage_draws_are_private_and_the_last_one_shows_the_indicator() -> None:
    game = new_game("mariage", seed=11)
    rng = random.Random(5)
    draws: list[Event] = []
    while game.deal_number == 1 and not game.over:
        legal = [a for a in game.legal_actions() if not isinstance(a, Close | Claim)]
        before = [set(game.view(s)["hand"]) for s in (0, 1)]
        events = game.apply(rng.choice(legal))
        for e in events:
            if e.type == "draw" and game.deal_number == 1:
                draws.append(e)
                for s in (0, 1):
                    card = e.for_viewer(s)["card"]
                    assert card in game.view(s)["hand"] and card not in before[s]
                assert "card" not in e.for_viewer(None)
    assert len(draws) == 10
    last = draws[-1].for_viewer(None)
    assert last["stock_count"] == 0 and last["indicator"]["seat"] == last["seats"][1]
    assert all("indicator" not in d.for_viewer(None) for d in draws[:-1])


def test_mariage_exchange_and_closing_events() -> None:
    for seed in range(300):
        game = new_game("mariage", seed=seed)
        rng = random.Random(seed)
        while not game.over and game.deal_number == 1:
            legal = game.legal_actions()
            if Exchange() in legal:
                indicator = game.view(None)["indicator"]
                events = game.apply(Exchange())
                ex = events[1].for_viewer(None)
                assert ex["type"] == "exchange" and ex["card"] == indicator
                assert ex["indicator"] == game.view(None)["indicator"]
                assert indicator in game.view(ex["seat"])["hand"]
                if Close() in game.legal_actions():
                    events = game.apply(Close())
                    assert [e.type for e in events] == ["action", "closed"]
                    assert events[1].for_viewer(None)["seat"] == game.turn
                    return
            game.apply(rng.choice(legal))
    raise AssertionError("no exchange followed by a closing in 300 seeds")


# --- notation -----------------------------------------------------------------------------

BAD_MIL = [
    '{"type": "bid", "value": Infinity}',
    '{"type": "bid", "value": -Infinity}',
    '{"type": "bid", "value": NaN}',
    '{"type": "bid", "value": 120.0}',
    '{"type": "contract", "value": 1e400}',
    '{"type": "contract", "value": 100000000000000000000000000000}',
    '{"type": "give", "card": "KH", "to": Infinity}',
    '{"type": "give", "card": "KH", "to": 1.5}',
    '{"type": "bid", "value": true}',
    '{"type": "play", "card": NaN}',
]
BAD_MARIAGE = [
    '{"type": "play", "card": Infinity}',
    '{"type": "play", "card": 100000000000000000000000000000}',
    '{"type": "marriage", "suit": NaN}',
    '{"type": "marriage", "suit": 1e400}',
    '{"type": Infinity}',
]


@pytest.mark.parametrize(
    ("name", "text"), [("mil", t) for t in BAD_MIL] + [("mariage", t) for t in BAD_MARIAGE]
)
def test_bad_numbers_in_an_action_raise_invalid_notation(name: str, text: str) -> None:
    with pytest.raises(InvalidNotationError) as exc:
        kind(name).parse_action(json.loads(text))
    assert str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    ("name", "ranks"), [("mil", "A T K Q J 9"), ("mariage", "A T K Q J 9 8 7")]
)
def test_a_card_that_does_not_parse_is_told_with_the_ranks_of_the_games_deck(
    name: str, ranks: str
) -> None:
    # (Mil's message listed the 8 and the 7, which its 24 cards do not have)
    with pytest.raises(InvalidNotationError) as exc:
        kind(name).parse_action({"type": "play", "card": "ZZ"})
    assert (
        str(exc.value) == f"'ZZ' is not a card (expected rank {ranks} then suit S C D H, e.g. 'KH')"
    )
    # a caller that does not know the game names every rank of the notation
    with pytest.raises(InvalidNotationError, match="expected rank A T K Q J 9 8 7 then"):
        parse_card("ZZ")


def _action_types(name: str) -> set[str]:
    """The ``type`` of every action of the game (from its dense action ids)."""
    if name == "mil":
        return {mil_actions.action_from_id(i).to_json()["type"] for i in range(MIL_ACTIONS)}
    return {
        mariage_actions.action_from_id(i).to_json()["type"]
        for i in range(mariage_actions.ACTION_COUNT)
    }


@pytest.mark.parametrize("name", NAMES)
def test_an_action_without_a_type_or_of_an_unknown_type_lists_every_type(name: str) -> None:
    # (a missing type read "unknown Mil action type None", Python's word for JSON's nothing,
    # and Mil's list left out 'keep')
    for data, said in (({"seat": 0}, "the action has no 'type'"), ({"type": "x"}, "'x'")):
        with pytest.raises(InvalidNotationError) as exc:
            kind(name).parse_action(data)
        message = str(exc.value)
        assert said in message and "None" not in message, message
        listed = set(re.findall(r"\w+", message.split("(expected", 1)[1]))
        assert _action_types(name) <= listed, message


@pytest.mark.parametrize("name", NAMES)
def test_an_integer_too_long_to_print_is_described_not_raised(name: str) -> None:
    huge = 10**5000
    for data in ({"type": huge}, {"type": "play", "card": huge}, {"type": "bid", "value": huge}):
        with pytest.raises(InvalidNotationError, match=r"too large to show|unknown"):
            kind(name).parse_action(data)


# --- what a caller passes to the game level -----------------------------------------------


@pytest.fixture(scope="module")
def pure_tapete() -> Any:
    """``tapete.games`` of the pure Python engine, whatever build this process runs: the
    pure build lets ``Bid(100.0)`` be built at all (the compiled one refuses it then)."""
    return import_copy("tapete.games", "pure_contract_", pure=True)


def _pure(name: str) -> Any:
    """A module of the pure copy that :func:`pure_tapete` imported (its classes are its own:
    its ``IllegalActionError`` too)."""
    return sys.modules[f"pure_contract_{name}"]


class _Int64(int):
    """An integer that is not an ``int`` (as numpy's ``int64``, which equals 100 too)."""


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda m: m.Bid(100.0), "Bid.value must be an int, got 100.0 of type float"),
        (lambda m: m.Bid(_Int64(100)), "Bid.value must be an int, got 100 of type _Int64"),
        (lambda m: m.Bid(True), "Bid.value must be an int, got True of type bool"),
        (lambda m: m.Redeal(b"low_points"), "Redeal.reason must be a str, got b'low_points'"),
        (lambda m: m.Play(19, 1), "Play.marriage must be a bool, got 1 of type int"),
    ],
)
def test_a_pure_mil_action_with_fields_of_another_type_is_refused_before_anything_changes(
    pure_tapete: Any, make: Any, said: str
) -> None:
    # (pure mode accepted Bid(100.0), equal to Bid(100), and the next view raised TypeError)
    game = pure_tapete.new_game("mil", "club", seed=3)
    assert game.phase == "bidding"
    before = game.view(game.turn)
    action = make(_pure("tapete.mil.actions"))
    assert not game.can_apply(action)
    assert game.why_illegal(action) is not None and said in game.why_illegal(action)
    with pytest.raises(_pure("tapete.errors").IllegalActionError) as exc:
        game.apply(action)
    assert str(exc.value) == game.why_illegal(action)
    assert game.view(game.turn) == before  # nothing changed


def test_a_pure_mariage_action_with_a_field_of_another_type_is_refused(pure_tapete: Any) -> None:
    # (Mariage's actions check their fields when built; one that slipped past is refused too)
    game = pure_tapete.new_game("mariage", seed=1)
    play = _pure("tapete.mariage.actions").Play(game.legal_actions()[0].card)
    object.__setattr__(play, "card", float(play.card))
    refused = _pure("tapete.errors").IllegalActionError
    with pytest.raises(refused, match=r"Play\.card must be an int, got \d+\.0"):
        game.apply(play)


@pytest.mark.parametrize("name", NAMES)
def test_a_views_legal_entry_passed_as_is_says_to_parse_it(name: str) -> None:
    game = new_game(name, seed=3)
    entry = game.view(game.turn)["legal"][0]
    why = game.why_illegal(entry)
    assert why is not None and "is not a" in why and "game.parse_action(entry)" in why
    with pytest.raises(IllegalActionError) as exc:
        game.apply(entry)
    assert str(exc.value) == why
    game.apply(game.parse_action(entry))  # what the sentence says to do


@pytest.mark.parametrize("name", NAMES)
def test_an_object_that_is_no_action_of_the_game_names_the_action_classes(name: str) -> None:
    game = new_game(name, seed=3)
    other = new_game("mariage" if name == "mil" else "mil", seed=3).legal_actions()[0]
    for thing in ("pass", None, other):
        with pytest.raises(IllegalActionError, match=r"is not a \w+ action object \(expected "):
            game.apply(thing)


@pytest.mark.parametrize("name", NAMES)
def test_a_seat_to_view_from_is_none_or_one_of_the_games_seats(name: str) -> None:
    # (Mil's view(-1) showed seat 2's hand as "seat": -1, view(5) raised a bare IndexError
    # and view(True) was seat 1)
    game = new_game(name, seed=3)
    seats = len(game.players)
    valid = ", ".join(map(str, range(seats)))
    for seat in (-1, seats, True, 1.0, "0"):
        said = f"seat must be {valid} or None (a spectator), got {seat!r}"
        for call, seats_passed in (
            (game.view, seat),
            (game.views, [0, seat]),
            (game.view_parts, [None, seat]),
        ):
            with pytest.raises(ValueError) as exc:
                call(seats_passed)
            assert str(exc.value) == said
    assert game.views([*range(seats), None]) == [game.view(s) for s in [*range(seats), None]]


@pytest.mark.parametrize("name", NAMES)
def test_what_a_game_hands_out_is_a_copy(name: str) -> None:
    """A record, a finished deal's record, a sheet row or a deal_end row a caller changes
    changes nothing of the game: a Mariage record shared the match's own hands, and a bot
    that edited its view's sheet made the match write a record that did not replay."""
    game = new_game(name, seed=4, max_deals=2)
    rng = random.Random(4)
    rows = []
    while not game.over:
        events = game.apply(rng.choice(game.legal_actions()))
        rows += [e.for_viewer(0)["row"] for e in events if e.type == "deal_end"]
    before = json.dumps(game.to_record(), sort_keys=True)
    record = game.to_record()
    record["deals"][0]["result"].clear()
    record["deals"][0]["actions"].clear()
    game.finished_deals[0].record["result"].clear()
    for row in [*rows, *game.view(0)["sheet"], *game.view(None)["sheet"]]:
        for value in row.values():
            if isinstance(value, list):
                value.clear()
    assert json.dumps(game.to_record(), sort_keys=True) == before
    assert replay(game.to_record()).to_record() == game.to_record()


def test_a_mil_start_is_the_games_own() -> None:
    """The caller's start dict changed after the game was made changed its record (which
    then did not replay: "start: seat 0 has 900 but is not in the barrel")."""
    start = {"scores": [100, 0, 0]}
    game = new_game("mil", seed=3, start=start)
    start["scores"][0] = 900
    game.to_record()["start"]["scores"][1] = 700
    assert game.to_record()["start"]["scores"] == [100, 0, 0]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"players": "abc"}, "players must be a list of"),
        ({"players": [1, 2, 3]}, "players must be names (str), got 1"),
        ({"players": [None, None, None]}, "players must be names (str), got None"),
        ({"players": ["Ana"]}, "players, got 1"),
        ({"max_deals": "x"}, "max_deals must be a whole number of at least"),
        ({"max_deals": 2.5}, "max_deals must be a whole number"),
        ({"max_deals": -1}, "max_deals must be a whole number"),
        ({"max_deals": True}, "max_deals must be a whole number"),
    ],
)
def test_a_new_game_refuses_what_its_record_could_not_hold(
    name: str, options: dict[str, Any], words: str
) -> None:
    """players "abc" became the names a, b, c, numbers made a game whose record the reader
    refused ("players must be a list of 3 names"), and max_deals 2.5 or -1 were taken."""
    players = options.get("players")
    if isinstance(players, list) and len(players) == 3 and name == "mariage":
        options = {"players": players[:2]}  # (Mariage's two seats)
    with pytest.raises(ValueError, match=re.escape(words)):
        new_game(name, seed=1, **options)
