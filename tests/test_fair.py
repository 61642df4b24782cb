"""Fair deals in the engine and the records: the documented shuffle (known answers, determinism,
uniformity), the games dealing from seeds, and the reader and ``tapete replay`` refusing a
record whose seeds, commitments or cards were changed."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tapete.fair as fair
from tapete.cards import CARD_NAMES, MARIAGE_DECK, MIL_DECK, parse_card
from tapete.cli import main
from tapete.errors import RecordError
from tapete.fair import FairDeal, commitment, fresh_deck, read_fair, shuffled
from tapete.game import Game
from tapete.games import kind, new_game
from tapete.mariage.game import deal_seeded as mariage_deal
from tapete.mil.game import deal_seeded as mil_deal
from tapete.replay import replay

#: the known-answer seed: the bytes 00 01 02 ... 1f
KAT_SEED = bytes(range(32))


def names(cards: list[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


def seed_of(n: int) -> bytes:
    return hashlib.sha256(f"test-seed-{n}".encode()).digest()


# --- the shuffle --------------------------------------------------------------------------


def test_known_answer_vectors() -> None:
    """docs/records.md gives these; an independent JavaScript implementation of the spec
    (Node's crypto) gave the same Mil order."""
    assert commitment(KAT_SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    assert names(fresh_deck(MIL_DECK)) == (
        "AS TS KS QS JS 9S AC TC KC QC JC 9C AD TD KD QD JD 9D AH TH KH QH JH 9H"
    )
    assert names(shuffled(KAT_SEED, fresh_deck(MIL_DECK))) == (
        "JH JS AS 9H KD KC TS 9D QS 9S KS TC AH QD TH JC KH JD 9C AD TD QC AC QH"
    )
    assert names(shuffled(KAT_SEED, fresh_deck(MARIAGE_DECK))) == (
        "JD AD 7D KD 9C 9S 7H QH JH 8S KH TD JS QS 8C 9D 8H QC 8D 7C TC AH 7S KS KC JC AC AS "
        "TS QD TH 9H"
    )
    first = hashlib.sha256(KAT_SEED + b"\0\0\0\0").digest()
    assert next(fair.words(KAT_SEED)) == int.from_bytes(first[:4], "big")


def test_the_games_deal_the_shuffled_deck_by_their_rule() -> None:
    hands, talon = mil_deal(KAT_SEED)
    assert [names(h) for h in hands] == [
        "JH JS AS 9H KD KC TS",
        "9D QS 9S KS TC AH QD",
        "TH JC KH JD 9C AD TD",
    ]
    assert names(talon) == "QC AC QH"
    hands, stock = mariage_deal(KAT_SEED)
    assert [names(h) for h in hands] == ["JD AD 7D KD 9C 9S", "7H QH JH 8S KH TD"]
    assert len(stock) == 20 and names(stock[-1:]) == "9H"  # the last card: the indicator


def test_the_shuffle_is_deterministic_and_depends_on_every_byte() -> None:
    deck = fresh_deck(MARIAGE_DECK)
    assert shuffled(KAT_SEED, deck) == shuffled(bytes(KAT_SEED), deck)
    assert deck == fresh_deck(MARIAGE_DECK)  # the input is not changed
    orders = {tuple(shuffled(bytes([i]) + KAT_SEED[1:], deck)) for i in range(64)}
    assert len(orders) == 64
    flipped = KAT_SEED[:31] + bytes([KAT_SEED[31] ^ 1])
    assert shuffled(flipped, deck) != shuffled(KAT_SEED, deck)
    with pytest.raises(ValueError, match="32 bytes, not 31"):
        shuffled(KAT_SEED[:31], deck)


def test_rejection_sampling_skips_the_words_that_would_bias(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """For a bound of 3 the words from 2**32 - 1 up are refused (2**32 = 1 mod 3): with a
    refused word first, the swap uses the next word."""
    drawn: list[int] = []

    def fake(seed: bytes) -> Iterator[int]:
        for w in [2**32 - 1, 5, 4]:  # i = 2: 2**32 - 1 refused, then 5 % 3 = 2; i = 1: 4 % 2 = 0
            drawn.append(w)
            yield w

    monkeypatch.setattr(fair, "words", fake)
    assert shuffled(KAT_SEED, [10, 11, 12]) == [11, 10, 12]
    assert drawn == [2**32 - 1, 5, 4]


def test_every_card_is_equally_likely_in_every_position() -> None:
    """Chi-square over the 24 x 24 (card, position) counts of 4,800 shuffles: 529 degrees of
    freedom, so the statistic lies near 529; 700 is more than 5 standard deviations above
    (fixed seeds: the test cannot flake)."""
    deck = fresh_deck(MIL_DECK)
    n = 4800
    counts = [[0] * 24 for _ in range(24)]
    for i in range(n):
        for pos, c in enumerate(shuffled(seed_of(i), deck)):
            counts[deck.index(c)][pos] += 1
    expected = n / 24
    chi2 = sum((x - expected) ** 2 / expected for row in counts for x in row)
    assert 400 < chi2 < 700, chi2


# --- the games ----------------------------------------------------------------------------


def play_out(game: Game, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """Play random legal actions to the end; every event as a spectator sees it, and the
    views of every seat between them (as ``(kind, json)``)."""
    seats = kind(game.name).seats
    seen: list[tuple[str, dict[str, Any]]] = [("view", game.view(s)) for s in (None, *range(seats))]
    while not game.over:
        for event in game.apply(rng.choice(game.legal_actions())):
            seen += [("event", event.for_viewer(s)) for s in (None, *range(seats))]
        seen += [("view", game.view(s)) for s in (None, *range(seats))]
    return seen


@pytest.mark.parametrize("name", ["mil", "mariage"])
def test_a_fair_game_commits_before_each_deal_and_reveals_after(name: str) -> None:
    seeds = [seed_of(1000 + k) for k in range(40)]
    game = new_game(name, seed=5, max_deals=4, deal_seeds=seeds.__getitem__)
    assert game.view(None)["commitment"] == commitment(seeds[0])
    seen = play_out(game, random.Random(3))
    record = game.to_record()
    deals = record["deals"]
    assert len(deals) == 4
    for k, deal in enumerate(deals):
        assert deal["fair"] == {"commitment": commitment(seeds[k]), "seed": seeds[k].hex()}
        cards = (mil_deal if name == "mil" else mariage_deal)(seeds[k])
        rest = deal["talon" if name == "mil" else "stock"]
        assert [[parse_card(c) for c in h] for h in deal["hands"]] == cards[0]
        assert [parse_card(c) for c in rest] == cards[1]
    # each deal's seed appears first in the deal_end event of that deal, never before it
    text = [json.dumps(m) for _, m in seen]
    ends = [i for i, (t, m) in enumerate(seen) if t == "event" and m["type"] == "deal_end"]
    for k in range(4):
        first = next(i for i, t in enumerate(text) if seeds[k].hex() in t)
        assert seen[first][1]["type"] == "deal_end" and seen[first][1]["deal"] == k
        assert seen[first][1]["fair"]["seed"] == seeds[k].hex()
        assert first in ends
        starts = [i for i, (t, m) in enumerate(seen) if m.get("commitment") == commitment(seeds[k])]
        assert starts and starts[0] < first
    # the replay checks and writes back the same record
    assert replay(record).to_record() == record


@pytest.mark.parametrize("name", ["mil", "mariage"])
def test_without_seeds_the_old_deals_stay_as_they_were(name: str) -> None:
    a = new_game(name, seed=77, max_deals=3)
    b = new_game(name, seed=77, max_deals=3)
    play_out(a, random.Random(1))
    play_out(b, random.Random(1))
    record = a.to_record()
    assert record == b.to_record()
    assert all("fair" not in d for d in record["deals"])
    assert a.view(0)["commitment"] is None
    ev_game = new_game(name, seed=77, max_deals=3)
    events = [
        e for _ in range(200) if not ev_game.over for e in ev_game.apply(ev_game.legal_actions()[0])
    ]
    assert all("fair" not in e.public and "commitment" not in e.public for e in events)


def test_a_mariage_hand_in_progress_is_written_without_its_seed() -> None:
    seeds = [seed_of(k) for k in range(20)]
    game = new_game("mariage", seed=1, deal_seeds=seeds.__getitem__)
    game.apply(game.legal_actions()[0])
    record = game.to_record()
    assert len(record["deals"]) == 1 and "fair" not in record["deals"][0]
    assert seeds[0].hex() not in json.dumps(record)


# --- the reader ---------------------------------------------------------------------------


def fair_record(name: str, deals: int = 3) -> dict[str, Any]:
    seeds = [seed_of(500 + k) for k in range(40)]
    game = new_game(name, seed=9, max_deals=deals, deal_seeds=seeds.__getitem__)
    play_out(game, random.Random(7))
    return game.to_record()


def other_seed(deal: dict[str, Any]) -> str:
    return hashlib.sha256(bytes.fromhex(deal["fair"]["seed"])).hexdigest()


@pytest.mark.parametrize("name", ["mil", "mariage"])
def test_the_reader_refuses_a_changed_seed_card_or_commitment(name: str) -> None:
    rec = fair_record(name)
    replay(rec)
    changed = json.loads(json.dumps(rec))
    changed["deals"][1]["fair"]["seed"] = other_seed(changed["deals"][1])
    with pytest.raises(RecordError, match=r"deal 1: fair\.seed does not match its commitment"):
        replay(changed)
    # a new seed with its own commitment: the cards give it away
    changed = json.loads(json.dumps(rec))
    seed = other_seed(changed["deals"][2])
    changed["deals"][2]["fair"] = {"seed": seed, "commitment": commitment(bytes.fromhex(seed))}
    with pytest.raises(RecordError, match="deal 2: the cards are not the fair deal"):
        replay(changed)
    # two cards swapped between the hands
    changed = json.loads(json.dumps(rec))
    hands = changed["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    with pytest.raises(
        RecordError,
        match="deal 0: the cards are not the fair deal of the revealed seed: seat 0's hand is",
    ):
        replay(changed)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "fair must be an object, not str"),
        ({"seed": "00" * 32}, "fair has no 'commitment' field"),
        ({"commitment": "00" * 32}, "fair has no 'seed' field"),
        ({"commitment": "00" * 32, "seed": 5}, "fair.seed must be a string of 64 hex digits"),
        (
            {"commitment": "00" * 31, "seed": "00" * 32},
            "fair.commitment must be 64 hex digits, got 62 characters",
        ),
        ({"commitment": "00" * 32, "seed": "zz" * 32}, "fair.seed must be 64 hex digits"),
        ({"commitment": "00" * 32, "seed": "00" * 33}, "got 66 characters"),
    ],
)
def test_a_malformed_fair_field_is_a_located_record_error(value: object, message: str) -> None:
    rec = fair_record("mil", deals=2)
    rec["deals"][1]["fair"] = value
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert info.value.deal == 1 and message in str(info.value)
    with pytest.raises(RecordError, match=message.split(",")[0]):
        read_fair(value)


def test_read_fair_accepts_upper_case_hex_and_ignores_other_fields() -> None:
    deal = FairDeal.of(KAT_SEED).to_json()
    upper = {k: v.upper() for k, v in deal.items()}
    assert read_fair({**upper, "note": 1}) == FairDeal.of(KAT_SEED)


# --- tapete replay ------------------------------------------------------------------------


def test_tapete_replay_reports_the_verified_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(
        json.dumps(fair_record("mil", deals=3))
        + "\n"
        + json.dumps(fair_record("mariage", deals=2))
        + "\n"
    )
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "5 deals verified fair: each revealed seed matches the commitment" in out
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    del recs[0]["deals"][2]["fair"]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert main(["replay", str(path)]) == 0
    assert "4 deals verified fair" in (out := capsys.readouterr().out)
    assert "1 deal without a commitment (not verifiable)" in out


def test_tapete_replay_says_when_nothing_is_committed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "practice.jsonl"
    game = new_game("mil", seed=4, max_deals=2)
    play_out(game, random.Random(2))
    path.write_text(json.dumps(game.to_record()) + "\n")
    assert main(["replay", str(path)]) == 0
    assert "no deal carries a fair-deal commitment: the cards cannot be verified" in (
        capsys.readouterr().out
    )


def test_tapete_replay_rejects_a_tampered_record_naming_the_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = fair_record("mariage", deals=3)
    rec["deals"][2]["stock"][0], rec["deals"][2]["stock"][1] = (
        rec["deals"][2]["stock"][1],
        rec["deals"][2]["stock"][0],
    )
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec, indent=1))
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert (
        "game 0 (line 1), deal 2: the cards are not the fair deal of the revealed seed: the stock"
        in err
    )
