"""The one replay path (tapete.replay): iter_replay, replay_actions and replay, for every
registered game, and the reader hooks that each game supplies."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import pytest

from tapete import records
from tapete.errors import RecordError
from tapete.games import kind, kinds, new_game
from tapete.mariage.actions import Decline
from tapete.mil.actions import KeepDeal
from tapete.replay import iter_replay, replay, replay_actions

Lines = Callable[[str], list[str]]


def test_every_kind_has_a_reader_that_agrees_with_it() -> None:
    for k in kinds():
        assert k.reader is not None
        assert (k.reader.name, k.reader.seats, k.reader.profiles) == (k.name, k.seats, k.profiles)
        assert k.reader.title == k.title


def test_steps_come_before_each_action_and_the_game_ends_holding_the_record(
    read_reference: Lines,
) -> None:
    for name in ("mil-club.jsonl", "mil-casa-500.jsonl", "mariage.jsonl"):
        record = json.loads(read_reference(name)[0])
        seen = 0
        game = None
        for game, action in iter_replay(record):
            assert action in game.legal_actions()  # the position before it
            seen += 1
        assert game is not None and game.to_record() == record
        written = sum(len(d["actions"]) for d in record["deals"])
        assert seen >= written  # the engine actions the format leaves out are steps too


def played(name: str, seed: int, moves: int) -> object:
    game = new_game(name, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_the_left_out_engine_actions_are_steps(read_reference: Lines) -> None:
    mil = json.loads(read_reference("mil-club.jsonl")[13])  # deal 11 opens with a declined offer
    assert any(isinstance(a, KeepDeal) for _, a in iter_replay(mil))
    found = False
    for line in read_reference("mariage.jsonl"):
        if any(isinstance(a, Decline) for _, a in iter_replay(json.loads(line))):
            found = True
            break
    assert found


@pytest.mark.parametrize("name", ["mil", "mariage"])
def test_replay_actions_gives_the_same_steps_as_the_record(name: str) -> None:
    game = played(name, seed=21, moves=400)
    record = game.to_record()  # type: ignore[attr-defined]
    steps = [(g.turn, a) for g, a in iter_replay(record)]
    log = [a.to_json() for _, a in steps]  # what the server stores: every engine action
    fresh = new_game(name, seed=21)
    again = [(g.turn, a) for g, a in replay_actions(fresh, log)]
    assert again == steps
    assert fresh.to_record() == record


def test_replay_actions_locates_a_bad_stored_action() -> None:
    game = new_game("mariage", seed=4000)
    log = [game.legal_actions()[0].to_json(), {"type": "play", "card": "7S"}]
    with pytest.raises(RecordError, match=r"^action 1: \{play 7S\}: ") as info:
        list(replay_actions(game, log))
    assert info.value.action == 1
    with pytest.raises(RecordError, match=r"^action 0: \{dance\}: unknown Mariage action"):
        list(replay_actions(new_game("mariage", seed=1), [{"type": "dance"}]))


def test_check_results_false_replays_a_rescored_record(read_reference: Lines) -> None:
    record = json.loads(read_reference("mil-club.jsonl")[0])
    record["deals"][0]["result"]["scores"] = [1, 2, 3]
    with pytest.raises(RecordError, match="result differs"):
        replay(record)
    assert replay(record, check_results=False).to_record()["deals"][1:] == record["deals"][1:]


def test_every_step_error_is_located_by_game_deal_and_action(read_reference: Lines) -> None:
    record = json.loads(read_reference("mariage.jsonl")[2])
    bad = copy.deepcopy(record)
    bad["deals"][1]["actions"][3]["seat"] = 1 - bad["deals"][1]["actions"][3]["seat"]
    steps = iter_replay(bad, index=5)
    with pytest.raises(RecordError) as info:
        for _ in steps:
            pass
    assert (info.value.game, info.value.deal, info.value.action) == (5, 1, 3)
    assert str(info.value).startswith("game 5, deal 1, action 3: {seat ")


def test_a_match_in_progress_replays_to_where_it_stopped() -> None:
    game = played("mariage", seed=12, moves=40)
    record = game.to_record()  # type: ignore[attr-defined]
    assert "result" not in record["deals"][-1]
    assert replay(record).view(0) == game.view(0)  # type: ignore[attr-defined]


def test_records_module_knows_no_game() -> None:
    # the format reads any game name; the replay says which games exist
    (rec,) = records.loads('{"format": "tapete/1", "game": "go"}')
    with pytest.raises(RecordError, match="unknown game 'go'"):
        replay(rec)
    assert kind("mil").reader is not None
