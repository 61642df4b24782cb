"""tapete/1 record I/O shared by every game: loads/dumps/load/dump/iter_load and replay
dispatch (tapete.records)."""

from __future__ import annotations

import copy
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tapete import records
from tapete.errors import RecordError
from tapete.games import kind
from tapete.replay import replay
from tapete.scores import score_json

Lines = Callable[[str], list[str]]


def test_loads_and_dumps_round_trip_every_reference_file(shared_records: Path) -> None:
    files = sorted(shared_records.glob("*.jsonl"))
    assert len(files) == 4
    for f in files:
        text = f.read_text(encoding="utf-8")
        recs = records.loads(text)
        assert len(recs) == text.count("\n")
        assert records.loads(records.dumps(recs)) == recs
        assert records.dumps(recs) == text


def test_dumps_one_record_a_line_with_a_final_newline(read_reference: Lines) -> None:
    r = json.loads(read_reference("mil-club.jsonl")[0])
    out = records.dumps(r)
    assert out.endswith("\n") and out.count("\n") == 1
    assert records.dumps([r, r]) == out + out
    assert records.dumps([]) == ""


def test_non_ascii_names_are_written_as_text(read_reference: Lines) -> None:
    r = json.loads(read_reference("mil-club.jsonl")[0])
    r["players"] = ["Joã", "Bruno", "Mª Carla"]
    assert "Joã" in records.dumps(r)
    assert records.loads(records.dumps(r)) == [r]


def test_loads_skips_blank_lines_and_reads_one_pretty_printed_object(read_reference: Lines) -> None:
    r = json.loads(read_reference("mil-club.jsonl")[0])
    assert records.loads("\n\n" + json.dumps(r) + "\n\n") == [r]
    assert records.loads(json.dumps(r, indent=2)) == [r]


def test_load_dump_and_iter_load_files(tmp_path, read_reference: Lines) -> None:
    recs = records.loads("\n".join(read_reference("mil-casa.jsonl")[:3]))
    path = tmp_path / "three.jsonl"
    records.dump(recs, path)
    assert records.load(path) == recs
    assert list(records.iter_load(io.StringIO(path.read_text(encoding="utf-8")))) == recs


def test_malformed_json_names_the_game_index(read_reference: Lines) -> None:
    good = read_reference("mil-club.jsonl")[0]
    with pytest.raises(RecordError, match=r"^game 1 \(line 2\): malformed JSON") as info:
        records.loads(good + "\n" + good[:40] + "\n")
    assert info.value.game == 1 and info.value.deal is None


def test_a_cut_string_reads_once_at() -> None:
    """The parser's message ends in "at" ("Unterminated string starting at"): one "at"."""
    with pytest.raises(RecordError) as info:
        records.loads('{"game": "mil", "profile": "clu')
    assert (
        str(info.value)
        == "game 0 (line 1): malformed JSON: Unterminated string starting at column 28"
    )


def test_not_an_object_unknown_format_and_unknown_game() -> None:
    with pytest.raises(
        RecordError, match=r"^game 0 \(line 1\): a record must be a JSON object, not list"
    ):
        records.loads("[1, 2]")
    with pytest.raises(
        RecordError, match=r"^game 0 \(line 1\): the record has no 'format' field \(expected"
    ):
        records.loads('{"game": "mil"}')
    with pytest.raises(RecordError, match=r"^game 0 \(line 1\): unknown format None"):
        records.loads('{"format": null, "game": "mil"}')
    with pytest.raises(
        RecordError, match=r"^game 0 \(line 1\): the record's 'game' must be a string"
    ):
        records.loads('{"format": "tapete/1", "game": ["mil"]}')
    # the format knows no game: the replay says which games exist
    (chess,) = records.loads('{"format": "tapete/1", "game": "chess"}')
    with pytest.raises(RecordError, match=r"^game 3: unknown game 'chess' \(expected one of"):
        replay(chess, index=3)


def test_non_utf8_file_is_a_record_error(tmp_path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"players": ["Jo\xe3o"]}'.encode("latin-1"))
    with pytest.raises(RecordError, match="not UTF-8"):
        records.load(path)


#: a line the format's reader takes (it knows no game), padded to 30,000 bytes
_RECORD = b'{"format": "tapete/1", "game": "mil", "pad": "' + b"x" * 29_952 + b'"}'


@pytest.mark.parametrize(
    ("data", "where"),
    [
        # (after 5 lines of 30,000 bytes: the decoder failed a block of 8 KiB, the message
        # named no place)
        ((_RECORD + b"\n") * 5 + _RECORD[:122] + b"\xe2(\xa1\n", (6, 123)),
        (_RECORD + b"\r\n\r\n" + "é".encode() * 3 + b"\xff", (3, 7)),
        (b"\xef\xbb\xbf" + _RECORD + b"\n\xc3", (2, 1)),  # (a byte-order mark; cut short)
        (b'{\n  "format": "tapete/1",\n  "game": "J\xe3o"\n}\n', (3, 13)),  # (pretty-printed)
    ],
    ids=["line-6", "crlf-and-accents", "cut-short", "pretty"],
)
def test_a_byte_that_is_not_utf8_is_named_by_its_line_and_byte(
    tmp_path: Path, data: bytes, where: tuple[int, int]
) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(data)
    line, byte = where
    why = _reason(data)
    message = f"line {line}: not UTF-8 text at byte {byte} ({why})"
    with pytest.raises(RecordError) as load_error:
        records.load(path)
    assert str(load_error.value) == message and load_error.value.line == line
    # the lazy reader, a line at a time, says the same
    with records.open_text(path) as fp, pytest.raises(RecordError) as lazy_error:
        list(records.iter_load(records.Utf8Text(fp)))
    assert str(lazy_error.value) == message


def _reason(data: bytes) -> str:
    """What Python's decoder says of the first byte of ``data`` that is not UTF-8."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return exc.reason
    raise AssertionError("all UTF-8")


def test_iter_load_counts_games_without_blank_lines(read_reference: Lines) -> None:
    good = read_reference("mil-club.jsonl")[0]
    stream = io.StringIO(good + "\n\n" + "{oops\n")
    it = records.iter_load(stream)
    next(it)
    with pytest.raises(RecordError, match=r"^game 1 \(line 3\): malformed JSON"):
        next(it)


def test_score_json_keeps_halves() -> None:
    assert score_json(250) == 125 and isinstance(score_json(250), int)
    assert score_json(125) == 62.5
    assert score_json(-105) == -52.5


@pytest.mark.parametrize("name", ["mil-club.jsonl", "mil-casa.jsonl", "mariage.jsonl"])
def test_replay_dispatches_on_the_game(name, read_reference: Lines) -> None:
    rec = json.loads(read_reference(name)[0])
    game = replay(rec)
    assert game.name == rec["game"]
    assert game.to_record() == rec


def test_replay_error_carries_the_index_given(read_reference: Lines) -> None:
    rec = json.loads(read_reference("mil-club.jsonl")[0])
    rec["deals"][0]["actions"][0]["value"] = 105
    with pytest.raises(RecordError, match=r"^game 7, deal 0, action 0: ") as info:
        replay(rec, index=7)
    assert (info.value.game, info.value.deal, info.value.action) == (7, 0, 0)
    with pytest.raises(RecordError, match=r"^deal 0, action 0: "):
        replay(rec)


def test_errors_name_json_kinds_and_a_card_twice_in_one_place(read_reference: Lines) -> None:
    """A record's reader knows JSON, not Python: "not null", "not a string", never
    "not NoneType"; a card twice in the same place says so once ("twice in the talon", not
    "the talon and the talon")."""
    with pytest.raises(RecordError, match=r"a record must be a JSON object, not null$"):
        records.loads("null")
    with pytest.raises(RecordError, match=r"a record must be a JSON object, not a string$"):
        records.loads('"mil"')
    record = json.loads(read_reference("mil-club.jsonl")[0])
    deal = record["deals"][0]
    rest = next(k for k in ("talon", "stock") if k in deal)
    deal[rest][1] = deal[rest][0]
    with pytest.raises(RecordError, match=rf"is dealt twice in the {rest}\b"):
        replay(record)
    record = json.loads(read_reference("mil-club.jsonl")[0])
    record["deals"] = None
    with pytest.raises(RecordError, match=r"deals must be a list, not null"):
        replay(record)


def test_errors_name_the_line_a_record_starts_on(read_reference: Lines) -> None:
    """Blank lines do not count as games: the line says where to look in the file."""
    good = read_reference("mil-club.jsonl")[0]
    with pytest.raises(RecordError) as info:
        records.loads(good + "\n\n\n\n" + good[:300] + "\n")
    assert str(info.value).startswith("game 1 (line 5): malformed JSON")
    assert info.value.line == 5
    assert [n for n, _ in records.loads_numbered("\n" + good + "\n\n" + good + "\n")] == [2, 4]


def test_several_pretty_printed_records_are_told_apart_from_a_broken_one(
    read_reference: Lines,
) -> None:
    """Two pretty-printed records are neither JSON Lines nor one record: the error says so
    (it said only "Expecting property name ... at column 2", of a game that was fine)."""
    rec = json.loads(read_reference("mil-club.jsonl")[0])
    text = json.dumps(rec, indent=1) + "\n" + json.dumps(rec, indent=1) + "\n"
    with pytest.raises(RecordError) as info:
        records.loads(text)
    assert str(info.value) == (
        "game 0 (line 1): the line holds only '{': a record file holds one record a line "
        "(JSON Lines), or a single pretty-printed record"
    )
    # one pretty-printed record alone is read, and starts where its text starts
    assert records.loads_numbered("\n\n" + json.dumps(rec, indent=1)) == [(3, rec)]


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_a_record_before_its_first_finished_deal_reads_back(game: str) -> None:
    # (the server's record of a game still in its first deal holds no deal: the reader said
    # "a record needs at least one deal" to Tapete's own download)
    start = {"dealer": 1, "scores": [100, 0, 0]} if game == "mil" else {"game_points": [3, 2]}
    for with_start in (False, True):
        g = kind(game).new(seed=3, start=start if with_start else None)
        g.apply(g.legal_actions()[0])
        r = g.to_record()
        r["deals"] = [d for d in r["deals"] if d.get("result") is not None]
        r["seed"] = None
        assert r["deals"] == []
        again = replay(records.loads(records.dumps(r))[0])
        assert again.to_record() == r and again.winner is None


def test_the_lazy_reader_reads_as_loads_does(read_reference: Lines) -> None:
    """``iter_load_numbered`` (what ``tapete replay`` reads with, a record at a time) gives
    the records, lines and errors ``loads_numbered`` gives for the whole text."""
    from fuzz_helpers import same_reading

    good = read_reference("mil-club.jsonl")[0]
    rec = json.loads(good)
    pretty = json.dumps(rec, indent=1)
    texts = [
        "",
        "\n\n",
        good,
        "\n" + good + "\n\n" + good + "\n",
        "\n\n" + pretty,  # one pretty-printed record, after blank lines
        "\n\n" + pretty + "\n\n",
        json.dumps(rec, indent=1).replace("{\n ", "{", 1),  # its first key on the first line
        pretty + "\n" + pretty,  # two: "the line holds only '{'"
        pretty[:-5],  # cut short
        good + "\n" + pretty,
        "{oops\n" + good,
        good + "\n{oops\n",
        good + "\r\n" + good + "\r\n",
        "[1, 2]\n",
    ]
    for text in texts:
        same_reading(text)
    assert list(records.iter_load_numbered(io.StringIO("\n\n" + pretty))) == [(3, rec)]
    assert list(records.iter_load(io.StringIO("\n\n" + pretty + "\n"))) == [rec]


def test_load_of_a_file_it_cannot_read_raises_a_record_error_naming_the_path(
    tmp_path: Path,
) -> None:
    # (a missing file raised FileNotFoundError, though only RecordError escapes the readers)
    missing = tmp_path / "nonexistent.jsonl"
    with pytest.raises(RecordError) as exc:
        records.load(missing)
    assert str(exc.value) == f"cannot read {missing}: No such file or directory"
    assert isinstance(exc.value.__cause__, FileNotFoundError)
    with pytest.raises(RecordError, match=r"is a folder, not a record file$"):
        records.load(tmp_path)


def _played(name: str, seed: int) -> dict[str, Any]:
    """The record of a seeded game of ``name`` between random players (up to 3 deals)."""
    game = kind(name).new(seed=seed, max_deals=3)
    rng = random.Random(seed)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    return game.to_record()


def _first(record: dict[str, Any], field: str) -> tuple[int, int, dict[str, Any]]:
    """The deal, index and entry of the record's first action with ``field``."""
    for k, deal in enumerate(record["deals"]):
        for j, entry in enumerate(deal["actions"]):
            if field in entry:
                return k, j, entry
    raise AssertionError(f"no action with {field!r}")


@pytest.mark.parametrize("name", ["mil", "mariage"])
def test_a_record_writes_cards_in_capitals_and_lower_case_is_refused_where_it_stands(
    name: str,
) -> None:
    # (the specification: rank A T K Q J 9 8 7 then suit S C D H, readers also accept 10
    # and the suit symbols; "kh" was accepted and the replay wrote "KH" back, another record)
    record = _played(name, 5)
    hand = copy.deepcopy(record)
    hand["deals"][1]["hands"][1][2] = hand["deals"][1]["hands"][1][2].lower()
    with pytest.raises(RecordError) as exc:
        replay(hand)
    assert (exc.value.deal, exc.value.action) == (1, None)
    assert "the hand of seat 1: " in str(exc.value) and "in capitals, e.g. 'KH'" in str(exc.value)
    played = copy.deepcopy(record)
    k, j, entry = _first(played, "card")
    entry["card"] = f" {entry['card'].lower()}"
    with pytest.raises(RecordError) as exc:
        replay(played)
    assert (exc.value.deal, exc.value.action) == (k, j)
    assert f"{entry['card']!r} is not written as records write cards" in str(exc.value)
    # what the specification lets a reader accept: 10 for the ten, the suit symbols
    other = copy.deepcopy(record)
    for deal in other["deals"]:
        deal["hands"][0] = [
            c.replace("T", "10")[:-1] + "♠♣♦♥"["SCDH".index(c[-1])] for c in deal["hands"][0]
        ]
    assert replay(other).to_record() == record


def test_a_mariage_record_writes_a_marriages_suit_in_capitals() -> None:
    record = next(
        r
        for r in (_played("mariage", seed) for seed in range(40))
        if any(a["type"] == "marriage" for d in r["deals"] for a in d["actions"])
    )
    k, j, entry = _first(record, "suit")
    entry["suit"] = entry["suit"].lower()
    with pytest.raises(RecordError) as exc:
        replay(record)
    assert (exc.value.deal, exc.value.action) == (k, j)
    assert "is not written as records write suits: S C D H (or ♠ ♣ ♦ ♥), in capitals" in str(
        exc.value
    )
