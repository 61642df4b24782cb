"""Mil records: the shared reference records replay exactly, the KeepDeal convention, and
altered records are rejected with an error that says where."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tapete import records
from tapete.errors import RecordError
from tapete.mil import MilGame, replay_mil
from tapete.mil.kind import KIND
from tapete.replay import replay

Factory = Callable[..., dict[str, Any]]
MIL_FILES = ["mil-casa-500.jsonl", "mil-casa.jsonl", "mil-club.jsonl"]


def test_the_reference_records_are_there(read_reference: Callable[[str], list[str]]) -> None:
    assert sum(len(read_reference(name)) for name in MIL_FILES) == 90


def test_reference_record_replays_and_is_written_back_identically(mil_reference_line) -> None:
    (record,) = records.loads(mil_reference_line.text)
    game = replay(record, index=mil_reference_line.index)
    assert game.to_record() == record
    assert records.dumps(game.to_record()) == mil_reference_line.text + "\n"


@pytest.fixture
def reference(read_reference: Callable[[str], list[str]]) -> Factory:
    """``reference(name, index)``: that record of a reference file."""

    def make(name: str, index: int) -> dict[str, Any]:
        record: dict[str, Any] = json.loads(read_reference(name)[index])
        return record

    return make


# ---------------------------------------------------------------- KeepDeal is never written
def test_declined_offer_is_not_written_and_is_reinserted_on_replay(reference: Factory) -> None:
    # mil-club.jsonl game 13, deal 11: seat 0 (the opener) could ask for a redeal and did not
    record = reference("mil-club.jsonl", 13)
    deal = record["deals"][11]
    assert deal["actions"][0] == {"seat": 0, "type": "bid", "value": 100}
    game = replay_mil(record)
    st, _ = game.deals[11]
    kinds = [type(a).__name__ for _, a in st.history]
    assert kinds[0] == "KeepDeal"  # the engine saw the question and the answer
    assert all(a["type"] != "keep" for d in game.to_record()["deals"] for a in d["actions"])


def test_a_recorded_redeal_ends_the_deal_with_the_same_dealer(reference: Factory) -> None:
    # mil-club.jsonl game 2, deal 1: seat 1 asks for a redeal for low points
    record = reference("mil-club.jsonl", 2)
    d1, d2 = record["deals"][1], record["deals"][2]
    assert d1["actions"] == [{"seat": 1, "type": "redeal", "reason": "low_points"}]
    assert d1["result"]["annulled"] is True
    assert d2["dealer"] == d1["dealer"]
    replay_mil(record)


def test_simulated_games_never_write_keep() -> None:
    import random

    from tapete.bots import RandomBot

    bot = RandomBot()
    seen_offer = 0
    for seed in range(12):
        game = MilGame("club", seed=seed, max_deals=6)
        rngs = [random.Random(seed * 3 + s) for s in range(3)]
        while not game.over:
            seat = game.turn
            if game.phase in ("redeal_offer", "nines_offer"):
                seen_offer += 1
            game.apply(bot.act(game.view(seat), rngs[seat]))
        rec = game.to_record()
        assert all(a["type"] != "keep" for d in rec["deals"] for a in d["actions"])
        assert replay_mil(rec).to_record() == rec
    assert seen_offer > 0


# ---------------------------------------------------------------- altered records
BASE = ("mil-club.jsonl", 0)


def first_action(record: dict, kind: str, deal: int = 0) -> int:
    return next(j for j, a in enumerate(record["deals"][deal]["actions"]) if a["type"] == kind)


def rejected(record: dict, *fragments: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record, index=4)
    msg = str(info.value)
    assert msg.startswith("game 4"), msg
    for f in fragments:
        assert f in msg, msg
    return info.value


@pytest.fixture
def altered(reference: Factory) -> Factory:
    """``altered()``: a fresh copy of the base record, to change."""
    return lambda: copy.deepcopy(reference(*BASE))


def test_illegal_card_is_rejected_at_its_action(altered: Factory) -> None:
    r = altered()
    j = first_action(r, "play")
    seat = r["deals"][0]["actions"][j]["seat"]
    other = next(c for c in r["deals"][0]["hands"][(seat + 1) % 3])
    r["deals"][0]["actions"][j]["card"] = other
    err = rejected(r, "deal 0", f"action {j}", "not in its hand")
    assert (err.game, err.deal, err.action) == (4, 0, j)


def test_wrong_seat_is_rejected(altered: Factory) -> None:
    r = altered()
    a = r["deals"][0]["actions"][0]
    a["seat"] = (a["seat"] + 1) % 3
    rejected(r, "deal 0, action 0", "turn")


def test_over_limit_bid_is_rejected(altered: Factory) -> None:
    r = altered()
    j = next(j for j, a in enumerate(r["deals"][0]["actions"]) if a["type"] == "bid" and j > 0)
    r["deals"][0]["actions"][j]["value"] = 400
    rejected(r, f"deal 0, action {j}", "cannot bid 400")


def test_wrong_score_is_rejected(altered: Factory) -> None:
    r = altered()
    r["deals"][1]["result"]["scores"][0] += 5
    rejected(r, "deal 1", "result differs", "scores")


def test_wrong_final_score_and_winner_are_rejected(altered: Factory) -> None:
    r = altered()
    r["scores"][2] += 1
    rejected(r, "final result differs: recorded scores")
    r = altered()
    r["winner"] = 1 if r["winner"] != 1 else 2
    rejected(r, "final result differs: recorded winner")


def test_duplicated_card_is_rejected(altered: Factory) -> None:
    r = altered()
    hands = r["deals"][2]["hands"]
    hands[1][0] = hands[0][0]
    rejected(r, "deal 2", "dealt twice")


def test_eight_card_hand_is_rejected(altered: Factory) -> None:
    r = altered()
    r["deals"][0]["hands"][1].append(r["deals"][0]["talon"].pop())
    rejected(r, "deal 0", "must hold 7 cards, got 8")


@pytest.mark.parametrize(
    ("value", "said"), [(7, "7"), ("AH", "'AH'"), (None, "null"), ({"a": 1}, "{'a': 1}")]
)
def test_a_hand_that_is_no_list_is_told_so(altered: Factory, value: object, said: str) -> None:
    # (it read "the hand of seat 0 must hold 7 cards, got 7": a hand of 7 cards refused)
    r = altered()
    r["deals"][0]["hands"][0] = value
    rejected(r, "deal 0", f"the hand of seat 0 must be a list of 7 cards, got {said}")
    r = altered()
    r["deals"][0]["talon"] = value
    rejected(r, "deal 0", f"the talon must be a list of 3 cards, got {said}")


def test_non_mil_card_is_rejected(altered: Factory) -> None:
    r = altered()
    r["deals"][0]["talon"][0] = "7S"
    rejected(r, "deal 0", "7S is not a Mil card")


def test_unknown_profile_is_rejected(altered: Factory) -> None:
    r = altered()
    r["profile"] = "tournament"
    rejected(r, "unknown Mil profile 'tournament'")


def test_truncated_deal_and_extra_actions_are_rejected(altered: Factory) -> None:
    r = altered()
    r["deals"][0]["actions"].pop()
    rejected(r, "deal 0", "stop before its end")
    r = altered()
    r["deals"][0]["actions"].append(r["deals"][0]["actions"][-1])
    rejected(r, "deal 0, action 33", "the deal ended at action 32 but 1 more follow")


def test_unknown_action_type_is_rejected(altered: Factory) -> None:
    r = altered()
    r["deals"][0]["actions"][0]["type"] = "double"
    rejected(r, "deal 0, action 0", "unknown Mil action type 'double'")


def test_unknown_format_and_malformed_json_via_loads(read_reference) -> None:
    line = read_reference(BASE[0])[0]
    bad_format = line.replace('"format": "tapete/1"', '"format": "tapete/9"')
    with pytest.raises(RecordError, match=r"^game 1 \(line 2\): unknown format 'tapete/9'"):
        records.loads(line + "\n" + bad_format + "\n")
    with pytest.raises(RecordError, match=r"^game 2 \(line 3\): malformed JSON"):
        records.loads(line + "\n" + line + "\n" + line[:-1] + "\n")


def test_start_position_is_kept_and_checked(read_reference) -> None:
    r = next(
        rec for name in MIL_FILES for rec in map(json.loads, read_reference(name)) if "start" in rec
    )
    game = replay(r)
    assert game.to_record()["start"] == r["start"]
    bad = copy.deepcopy(r)
    bad["start"]["scores"] = [0.25, 0, 0]
    with pytest.raises(RecordError, match="half points"):
        replay(bad)


@pytest.mark.parametrize(
    ("profile", "start", "message"),
    [
        ("club", {"scores": [900, 0, 0]}, "seat 0 has 900 but is not in the barrel"),
        ("club", {"scores": [1000, 0, 0]}, "the game would be over"),
        ("casa", {"bolts": [1, 0, 0]}, "start.bolts must be 0 in casa"),
    ],
)
def test_a_new_game_from_an_unreachable_start_is_refused_as_replay_refuses_it(
    profile: str, start: dict[str, object], message: str
) -> None:
    # (the game began there, and then `tapete replay` refused its own record)
    with pytest.raises(RecordError, match=message):
        KIND.new(profile, seed=1, start=start)


def test_a_new_game_from_a_reachable_start_replays() -> None:
    start = {"scores": [880, 0, 0], "in_barrel": [True, False, False]}
    game = KIND.new("club", seed=1, start=start, max_deals=3)
    while not game.over:
        game.apply(game.legal_actions()[0])
    record = game.to_record()
    assert record["start"]["in_barrel"] == [True, False, False]
    assert replay(record).to_record() == record
