"""The deal analysis: crafted costly decisions are found, open losses are the solvers' values,
losses are never negative, a seed gives one report."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tapete.analysis import THRESHOLDS, analyse_deal, analyse_record, label_for, summary
from tapete.analysis.adapters import mariage_solve_strict
from tapete.bots import RandomBot
from tapete.cards import parse_card
from tapete.errors import RecordError
from tapete.mariage.actions import action_from_json
from tapete.mariage.game import MariageGame
from tapete.mariage.state import Phase as MPhase
from tapete.mil.actions import KeepDeal, Play
from tapete.mil.game import MilGame
from tapete.mil.state import Phase, State
from tapete.records import load
from tapete.solver import best_moves
from tapete.solver.command import position_from_state

HERE = Path(__file__).parent
CRAFTED = load(HERE / "crafted.jsonl")
NOTES = json.loads((HERE / "crafted.json").read_text())


def _decision(report: dict[str, Any], index: int) -> dict[str, Any]:
    return next(d for d in report["decisions"] if d["index"] == index)


def _crafted(kind: str) -> tuple[dict[str, Any], int]:
    i = next(i for i, n in enumerate(NOTES) if n["kind"] == kind)
    return CRAFTED[i], NOTES[i]["index"]


def _losses(report: dict[str, Any]) -> list[float]:
    return [
        x
        for d in report["decisions"]
        for x in (d["expected_loss"], d["open_loss"])
        if x is not None
    ]


# ---------------------------------------------------------------------------- crafted deals


def test_a_defender_who_trumps_the_partners_winning_ace_is_a_blunder() -> None:
    record, index = _crafted("mil_ruff")
    report = analyse_deal(record, 0, seed=1)
    d = _decision(report, index)
    assert d["seat"] == 1 and d["action"] == {"type": "play", "card": "TH"}
    assert d["label"] in ("mistake", "blunder")
    assert d["expected_loss"] >= THRESHOLDS["mil"][1]
    # with all cards open the 10 lets the contract of 145 through: twice the contract
    assert d["open_loss"] == 290
    assert d["best"] == {"type": "play", "card": "JH"}
    # Bruno's costliest decision of the deal
    mine = [x for x in report["decisions"] if x["seat"] == 1]
    assert max(mine, key=lambda x: x["expected_loss"] or 0) == d


def test_a_declarer_who_breaks_a_marriage_before_announcing_it_is_a_blunder() -> None:
    record, index = _crafted("mil_marriage")
    report = analyse_deal(record, 0, seed=1)
    d = _decision(report, index)
    assert d["seat"] == 0 and d["action"] == {"type": "play", "card": "KH"}
    assert d["label"] == "blunder"
    assert d["open_loss"] == 2 * 145 and d["expected_loss"] >= THRESHOLDS["mil"][2]
    assert d["best"] is not None and d["best"] != d["action"]
    assert report["bid_makeable"] is True and report["open_values"][0] >= 145


def test_a_mariage_claim_missed_at_66_is_found() -> None:
    record, index = _crafted("mariage_claim")
    report = analyse_deal(record, 0, seed=1)
    d = _decision(report, index)
    assert d["action"]["type"] == "play"
    assert d["best"] == {"type": "claim"}
    assert d["label"] in ("mistake", "blunder")
    assert d["expected_loss"] >= THRESHOLDS["mariage"][1]


def test_the_text_report_says_it_in_the_players_words(capsys: pytest.CaptureFixture[str]) -> None:
    from tapete.analysis.text import render_report

    record, _ = _crafted("mil_ruff")
    text = render_report(analyse_deal(record, 0, quick=True))
    assert (
        "trick 3, Bruno played 10♥: with all cards open it cost the defence about 290 points"
        in text
    )
    assert "J♥ was better [blunder]" in text
    assert "talon 9♣ 9♦ J♠" in text


# ---------------------------------------------------------------------------- open loss


def _random_mil_record(seed: int, profile: str) -> dict[str, Any]:
    game = MilGame(profile, seed=seed, max_deals=3)
    bot = RandomBot()
    rng = random.Random(seed)
    while not game.over:
        game.apply(bot.act(game.view(game.turn), rng))
    return game.to_record()


def _reference_open_losses(done: State) -> dict[int, float]:
    """Per recorded action index of a play: the open loss from ``best_moves`` directly."""
    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    out: dict[int, float] = {}
    index = 0
    for seat, a in done.history:
        if st.phase is Phase.PLAY and len(st.legal_actions()) > 1:
            assert isinstance(a, Play)
            moves = best_moves(position_from_state(st))
            c = st.contract
            vals = {(m[0], m[1]): m[2] for m in moves}
            mine = vals[(a.card, a.marriage)]
            if seat == st.declarer:
                top = max(vals.values())
                out[index] = 2 * c if top >= c > mine else top - mine
            else:
                low = min(vals.values())
                out[index] = 2 * c if mine >= c > low else mine - low
        st.apply(a)
        if not isinstance(a, KeepDeal):
            index += 1
    return out


@pytest.mark.parametrize("profile", ["club", "casa"])
def test_mil_open_loss_is_the_solvers_on_every_card_of_random_deals(profile: str) -> None:
    checked = 0
    for seed in range(6):
        record = _random_mil_record(100 + seed, profile)
        from tapete.replay import replay

        game = replay(record)
        assert isinstance(game, MilGame)
        for k, report in enumerate(analyse_record(record, quick=True)):
            want = _reference_open_losses(game.deals[k][0])
            got = {d["index"]: d["open_loss"] for d in report["decisions"] if d["phase"] == "play"}
            assert got == pytest.approx(want)
            checked += len(want)
            assert all(x >= 0 for x in _losses(report))
    assert checked > 100


def test_the_curve_starts_at_the_value_tapete_solve_gives(
    capsys: pytest.CaptureFixture[str], shared_records: Path
) -> None:
    from tapete.cli import main

    ref = shared_records / "mil-club.jsonl"  # (the fixture fails when the records are missing)
    record = load(ref)[0]
    checked = 0
    for report in analyse_record(record, list(range(6)), quick=True):
        if not report["open_values"]:
            continue
        capsys.readouterr()
        assert main(["solve", str(ref), "--deal", str(report["deal"]), "--json"]) == 0
        assert report["open_values"][0] == json.loads(capsys.readouterr().out)["value"]
        assert report["open_values"][-1] == report["raw"][report["declarer"]]
        assert len(report["open_values"]) == 9
        checked += 1
    assert checked >= 4


def _random_mariage_record(seed: int) -> dict[str, Any]:
    game = MariageGame(seed=seed, max_deals=1)
    bot = RandomBot()
    rng = random.Random(seed)
    while not game.over:
        turn = game.turn
        assert turn is not None
        game.apply(bot.act(game.view(turn), rng))
    return game.to_record()


def test_mariage_open_loss_in_the_strict_phase_is_the_exact_searchs() -> None:
    checked = 0
    for seed in range(8):
        record = _random_mariage_record(300 + seed)
        report = analyse_deal(record, 0, quick=True)
        assert all(x >= 0 for x in _losses(report))
        deal = record["deals"][0]
        game = MariageGame(
            max_deals=1,
            deals=[
                (
                    [[parse_card(c) for c in h] for h in deal["hands"]],
                    [parse_card(c) for c in deal["stock"]],
                )
            ],
            first_dealer=deal["dealer"],
        )
        by_index = {d["index"]: d for d in report["decisions"]}
        for j, a in enumerate(deal["actions"]):
            st = game.state
            action = action_from_json(a)
            legal = st.legal_actions()
            if st.phase is MPhase.STRICT and len(legal) > 1 and j in by_index:
                me = st.turn
                assert me is not None
                vals = {}
                for alt in legal:
                    st.apply(alt)
                    if st.done:
                        r = st.result
                        assert r is not None
                        v = 0 if r.winner is None else r.game_points * (1 if r.winner == me else -1)
                    else:
                        v = mariage_solve_strict(st, me)[0]
                    st.pop()
                    vals[alt] = v
                got = by_index[j]["open_loss"]
                if got is not None:  # None: the search ran out of its time
                    assert got == max(vals.values()) - vals[action]
                    checked += 1
            game.apply(action)
    assert checked > 20


# ---------------------------------------------------------------------------- properties


def test_the_same_seed_gives_the_same_report() -> None:
    record = _random_mil_record(7, "club")
    a = analyse_deal(record, 0, seed=5, budget=None)
    b = analyse_deal(record, 0, seed=5, budget=None)
    assert a == b
    assert all(x >= 0 for x in _losses(a))
    json.dumps(a)  # JSON-safe
    m = _random_mariage_record(8)
    assert analyse_deal(m, 0, seed=2, budget=None) == analyse_deal(m, 0, seed=2, budget=None)


def test_expected_losses_are_never_negative_and_labels_follow_the_thresholds() -> None:
    for record in (_random_mil_record(11, "casa"), _random_mariage_record(12)):
        report = analyse_deal(record, 0, seed=0)
        kind = record["game"]
        for d in report["decisions"]:
            for x in (d["expected_loss"], d["open_loss"]):
                assert x is None or x >= 0
            judged = d["expected_loss"] if d["expected_loss"] is not None else d["open_loss"]
            assert d["label"] == label_for(kind, judged)
        assert len(report["seats"]) == (3 if kind == "mil" else 2)


def test_labels() -> None:
    low, mid, high = THRESHOLDS["mil"]
    assert label_for("mil", low - 0.1) is None
    assert label_for("mil", low) == "inaccuracy"
    assert label_for("mil", mid) == "mistake"
    assert label_for("mil", high + 100) == "blunder"
    assert label_for("mariage", None) is None


def test_summary_keeps_exactly_the_documented_fields() -> None:
    record, _ = _crafted("mil_ruff")
    s = summary(analyse_deal(record, 0, quick=True))
    assert set(s) == {"game", "deal", "open_values", "decisions", "seats"}
    assert all(
        set(d) == {"index", "seat", "action", "best", "expected_loss", "open_loss", "label"}
        for d in s["decisions"]
    )
    assert all(
        set(t) == {"decisions", "expected_loss", "open_loss", "mistakes", "blunders"}
        for t in s["seats"]
    )


def test_a_seat_filter_judges_only_that_seat() -> None:
    record, _ = _crafted("mil_ruff")
    report = analyse_deal(record, 0, quick=True, seats={1})
    assert report["decisions"] and {d["seat"] for d in report["decisions"]} == {1}


def test_a_live_tables_record_gives_its_finished_deals_only() -> None:
    game = MariageGame(seed=31)
    bot = RandomBot()
    rng = random.Random(31)
    while len(game.finished) < 1 or not game.state.history:
        turn = game.turn
        assert turn is not None
        game.apply(bot.act(game.view(turn), rng))
    record = game.to_record()  # the hand in progress is written last, without a result
    assert analyse_deal(record, 0, quick=True)["deal"] == 0
    with pytest.raises(RecordError, match="deal 1 is out of range"):
        analyse_deal(record, 1, quick=True)


def test_a_conceded_and_an_annulled_deal_have_no_curve(shared_records: Path) -> None:
    ref = shared_records / "mil-club.jsonl"
    record = load(ref)[0]
    conceded, annulled = (analyse_deal(record, k, quick=True) for k in (6, 9))
    assert conceded["rospis"] and conceded["open_values"] == []
    assert conceded["best_contract"] is not None or conceded["bid_makeable"] is False
    assert annulled["annulled"] and annulled["open_values"] == []


def test_a_mariage_hand_ends_for_a_reason_said_in_words() -> None:
    # (the headline showed the record's key: "Ana won 2 game point(s) (false_claim)")
    from tapete.analysis.mariage import headline

    result = {"winner": 0, "game_points": 2, "reason": "false_claim", "points": [19, 19]}
    report = {"players": ["Ana", "Bruno"], "result": result}
    assert headline(report) == ["  Ana won 2 game point(s) (a false claim), points [19, 19]"]
