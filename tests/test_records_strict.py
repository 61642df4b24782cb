"""Hostile records (issue 10, item 7): only a RecordError, one located line, ever escapes the
readers (``loads``, ``load``, ``iter_load``) and the replay (``replay``, ``iter_replay``),
and the work a file can cause is bounded (length, depth). Each case here escaped with a
traceback before, or (the line separators) was refused although valid."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tapete import records
from tapete.cli import main
from tapete.errors import MAX_MESSAGE, RecordError
from tapete.replay import iter_replay, replay, replay_actions

Lines = Callable[[str], list[str]]
Record = dict[str, Any]


def nested(depth: int) -> list[Any]:
    """A list nested ``depth`` deep, built without recursion."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.fixture
def mil(read_reference: Lines) -> Record:
    record: Record = json.loads(read_reference("mil-club.jsonl")[0])
    return record


@pytest.fixture
def mariage(read_reference: Lines) -> Record:
    record: Record = json.loads(read_reference("mariage.jsonl")[0])
    return record


def first(record: Record, kind: str) -> Record:
    """The first action of that type in the record's first deal."""
    action: Record = next(a for a in record["deals"][0]["actions"] if a["type"] == kind)
    return action


def set_bid(value: object) -> Callable[[Record], None]:
    return lambda r: first(r, "bid").update(value=value)


def set_start_score(value: object) -> Callable[[Record], None]:
    return lambda r: r.update(start={"scores": [value, 0, 0]})


#: (name, change to a Mil record, what the error says); each escaped before as the exception
#: in the comment
MIL_CHANGES: list[tuple[str, Callable[[Record], None], str]] = [
    ("bid-infinity", set_bid(float("inf")), "'value' is out of range"),  # OverflowError
    ("bid-minus-infinity", set_bid(float("-inf")), "'value' is out of range"),  # OverflowError
    ("bid-nan", set_bid(float("nan")), "'value' is out of range"),  # ValueError
    ("bid-huge", set_bid(10**5000), "'value' is out of range"),  # ValueError (int -> str)
    ("bid-deep", set_bid(nested(100_000)), "nests deeper than 4 levels"),  # RecursionError
    ("start-infinity", set_start_score(float("inf")), "start.scores must lie within"),
    ("start-nan", set_start_score(float("nan")), "start.scores must lie within"),
    ("start-huge", set_start_score(10**5000), "start.scores must lie within"),
    ("start-deep", lambda r: r.update(start={"scores": nested(100_000)}), "start nests deeper"),
    ("type-list", lambda r: first(r, "bid").update(type=["bid"]), "'type' must be a string"),
    ("type-object", lambda r: first(r, "bid").update(type={"a": 1}), "'type' must be a string"),
    ("type-null", lambda r: first(r, "bid").update(type=None), "'type' must be a string, got null"),
    ("type-missing", lambda r: first(r, "bid").pop("type"), "100}: the action has no 'type'"),
    ("profile-list", lambda r: r.update(profile=["club"]), "unknown Mil profile ['club']"),
    ("profile-object", lambda r: r.update(profile={"x": 1}), "unknown Mil profile {'x': 1}"),
    ("game-list", lambda r: r.update(game=["mil"]), "'game' must be a string"),
    ("card-deep", lambda r: r["deals"][0]["talon"].__setitem__(0, nested(9)), "is not a card"),
    ("seat-huge", lambda r: first(r, "bid").update(seat=10**5000), "seat must be 0, 1 or 2"),
    ("dealer-huge", lambda r: r["deals"][0].update(dealer=10**5000), "dealer must be 0, 1 or 2"),
    # RecursionError comparing a result, the final scores (found by scripts/fuzz_records.py)
    (
        "result-deep",
        lambda r: r["deals"][0]["result"].update(raw=nested(100_000)),
        "deal 0: result raw nests deeper than 16 levels",
    ),
    (
        "final-deep",
        lambda r: r.update(winner=nested(100_000)),
        "final result winner nests deeper than 16 levels",
    ),
    # ValueError (int -> str) while quoting the counts
    (
        "start-bolts-huge",
        lambda r: r.update(start={"bolts": [10**5000, 0, 0]}),
        "start.bolts must be 0, 1 or 2 for each seat, got a number too long to show",
    ),
    # TypeError while quoting the action
    ("key-true", lambda r: first(r, "bid").update({7: True, "value": 105}), " 7}: "),
]

MARIAGE_CHANGES: list[tuple[str, Callable[[Record], None], str]] = [
    ("type-list", lambda r: first(r, "play").update(type=["play"]), "'type' must be a string"),
    ("type-object", lambda r: first(r, "play").update(type={}), "'type' must be a string"),
    ("type-missing", lambda r: first(r, "play").pop("type"), "the action has no 'type'"),
    ("card-nan", lambda r: first(r, "play").update(card=float("nan")), "'card' is out of range"),
    ("card-deep", lambda r: first(r, "play").update(card=nested(100_000)), "nests deeper"),
    ("profile-list", lambda r: r.update(profile=["mariage"]), "unknown Mariage profile"),
    ("start-deep", lambda r: r.update(start={"game_points": nested(50)}), "start nests deeper"),
    ("start-nan", lambda r: r.update(start={"game_points": [float("nan"), 0]}), "game_points"),
    (
        "result-deep",
        lambda r: r["deals"][0]["result"].update(winner=nested(100_000)),
        "deal 0: result winner nests deeper than 16 levels",
    ),
]


def refused(call: Callable[[], object], *fragments: str) -> RecordError:
    """``call()`` raises a RecordError of one bounded line holding every fragment."""
    with pytest.raises(RecordError) as info:
        call()
    err = info.value
    text = str(err)
    assert type(err) is RecordError
    assert "\n" not in text and len(err.reason) <= MAX_MESSAGE, text
    for fragment in fragments:
        assert fragment in text, text
    return err


def run_all(record: Record) -> None:
    for _ in iter_replay(record):
        pass


@pytest.mark.parametrize(("name", "change", "says"), MIL_CHANGES, ids=[c[0] for c in MIL_CHANGES])
def test_a_hostile_mil_record_in_memory_gives_a_record_error(
    mil: Record, name: str, change: Callable[[Record], None], says: str
) -> None:
    j = next(j for j, a in enumerate(mil["deals"][0]["actions"]) if a["type"] == "bid")
    change(mil)
    err = refused(lambda: replay(mil, index=3), "game 3", says)
    if name.startswith(("bid", "type", "seat", "key")):
        assert (err.game, err.deal, err.action) == (3, 0, j)
    refused(lambda: run_all(mil), says)


@pytest.mark.parametrize(
    ("name", "change", "says"), MARIAGE_CHANGES, ids=[c[0] for c in MARIAGE_CHANGES]
)
def test_a_hostile_mariage_record_in_memory_gives_a_record_error(
    mariage: Record, name: str, change: Callable[[Record], None], says: str
) -> None:
    change(mariage)
    refused(lambda: replay(mariage, index=0), "game 0", says)
    refused(lambda: run_all(mariage), says)


# ---------------------------------------------------------------- text: loads, load, iter_load
def text_with(line: str, old: str, new: str) -> str:
    assert old in line
    return line.replace(old, new, 1)


def every_reader(text: str, tmp_path: Path, *fragments: str) -> None:
    refused(lambda: records.loads(text), *fragments)
    refused(lambda: list(records.iter_load(io.StringIO(text))), *fragments)
    path = tmp_path / "hostile.jsonl"
    path.write_text(text, encoding="utf-8")
    refused(lambda: records.load(path), *fragments)


def test_nesting_100000_deep_is_refused_by_every_reader(tmp_path: Path, read_reference) -> None:
    line = read_reference("mil-club.jsonl")[0]
    deep = "[" * 100_000 + "]" * 100_000
    bad = text_with(line, '"type": "bid", "value": 100', f'"type": "bid", "value": {deep}')
    every_reader(bad + "\n", tmp_path, "game 0 (line 1): the record nests deeper than")
    every_reader(
        line + "\n" + deep + "\n", tmp_path, "game 1 (line 2): the record nests deeper than"
    )
    every_reader(f'{{"a": {deep}}}\n', tmp_path, "nests deeper")


def test_a_record_nested_just_too_deep_is_refused(tmp_path: Path, read_reference) -> None:
    line = read_reference("mil-club.jsonl")[0]
    value = "[" * 12 + "]" * 12  # record > deals > deal > actions > action > 12 lists
    bad = text_with(line, '"type": "bid", "value": 100', f'"type": "bid", "value": {value}')
    every_reader(bad + "\n", tmp_path, f"nests deeper than {records.MAX_DEPTH} levels")


def test_an_integer_over_4300_digits_is_refused(tmp_path: Path, read_reference) -> None:
    line = read_reference("mil-club.jsonl")[0]
    bad = text_with(line, '"type": "bid", "value": 100', '"type": "bid", "value": 1' + "0" * 5000)
    every_reader(bad + "\n", tmp_path, "game 0 (line 1): a number has more than 4300 digits")


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_infinity_and_nan_are_not_json(tmp_path: Path, read_reference, constant: str) -> None:
    line = read_reference("mil-club.jsonl")[0]
    bad = text_with(line, '"type": "bid", "value": 100', f'"type": "bid", "value": {constant}')
    every_reader(bad + "\n", tmp_path, "game 0 (line 1):", "is not a JSON number")
    start = text_with(line, '"deals": [', f'"start": {{"scores": [{constant}, 0, 0]}}, "deals": [')
    every_reader(start + "\n", tmp_path, "game 0 (line 1):", "is not a JSON number")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('"type": "bid"', '"type": ["bid"]', "['bid'] 100}: the action's 'type' must be"),
        ('"type": "bid"', '"type": {"t": 1}', "'type' must be a string"),
        ('"profile": "club"', '"profile": ["club"]', "unknown Mil profile ['club']"),
        ('"profile": "club"', '"profile": {"p": 1}', "unknown Mil profile"),
    ],
)
def test_unhashable_type_or_profile_in_a_file(
    tmp_path: Path, read_reference, old: str, new: str, says: str
) -> None:
    line = read_reference("mil-club.jsonl")[0]
    (record,) = records.loads(text_with(line, old, new))
    refused(lambda: replay(record, index=0), "game 0", says)


def test_a_record_longer_than_the_limit_is_refused_unread(tmp_path: Path) -> None:
    huge = '{"format": "tapete/1", "game": "mil", "x": "' + "a" * records.MAX_RECORD_CHARS + '"}'
    every_reader(huge + "\n", tmp_path, "game 0 (line 1): the record is", "4,000,000")


def test_iter_load_reads_a_long_line_only_up_to_the_limit() -> None:
    class Endless(io.StringIO):
        """A file of one endless line: reading it whole would never finish."""

        def readline(self, size: int | None = -1) -> str:
            assert size is not None and 0 < size <= records.MAX_RECORD_CHARS + 2
            return "[" * size

    refused(lambda: next(records.iter_load(Endless())), "longer than 4,000,000 characters")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_line_separators_inside_strings_round_trip(read_reference, separator: str) -> None:
    record = json.loads(read_reference("mil-club.jsonl")[0])
    record["players"][1] = f"Bru{separator}no"
    text = records.dumps(record)
    assert separator not in text and text.count("\n") == 1  # written as an escape
    assert records.loads(text) == [record]
    assert records.loads(text + text) == [record, record]
    assert replay(records.loads(text)[0]).to_record() == record
    # a writer that leaves it raw (another program): still one line, still read
    raw = json.dumps(record, ensure_ascii=False) + "\n"
    assert separator in raw
    assert records.loads(raw) == [record]
    assert list(records.iter_load(io.StringIO(raw + raw))) == [record, record]


def test_replay_actions_refuses_a_hostile_log_with_a_record_error(mariage: Record) -> None:
    game = replay(mariage)
    from tapete.games import new_game

    fresh = new_game("mariage", seed=mariage["seed"])
    log = [{"type": "play", "card": nested(100_000)}]
    err = refused(lambda: list(replay_actions(fresh, log)), "nests deeper")
    assert err.action == 0
    assert game.over


# ---------------------------------------------------------------- the command line
HOSTILE_TEXT: list[tuple[str, str, str]] = [
    ("deep", '"type": "bid", "value": 100', '"type": "bid", "value": ' + "[" * 100_000),
    ("digits", '"type": "bid", "value": 100', '"type": "bid", "value": 1' + "0" * 5000),
    ("infinity", '"type": "bid", "value": 100', '"type": "bid", "value": Infinity'),
    ("nan-start", '"deals": [', '"start": {"scores": [NaN, 0, 0]}, "deals": ['),
    ("type-list", '"type": "bid"', '"type": ["bid"]'),
    ("profile-object", '"profile": "club"', '"profile": {"p": 1}'),
]


@pytest.mark.parametrize(("name", "old", "new"), HOSTILE_TEXT, ids=[h[0] for h in HOSTILE_TEXT])
def test_tapete_replay_prints_one_line_for_a_hostile_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference, name, old, new
) -> None:
    line = read_reference("mil-club.jsonl")[0]
    path = tmp_path / "hostile.jsonl"
    path.write_text(text_with(line, old, new) + "\n" + line + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1  # a refused record: status 1 (docs/cli.md)
    err = capsys.readouterr().err
    assert err.startswith(f"tapete replay: error: {path}: game 0") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_tapete_replay_accepts_a_record_with_a_line_separator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference
) -> None:
    record = json.loads(read_reference("mariage.jsonl")[0])
    record["players"][0] = "Ana\u2028Maria"
    path = tmp_path / "names.jsonl"
    records.dump([record, copy.deepcopy(record)], path)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"OK {path}: 2 games")


# ---------------------------------------------------------------- whole numbers in the results
def _floats(value: Any) -> Any:
    return [float(v) for v in value] if isinstance(value, list) else float(value)


def _whole_fields(result: Record) -> list[str]:
    return [
        key
        for key, value in result.items()
        if not isinstance(value, bool | str)
        and value is not None
        and not (isinstance(value, list) and value and isinstance(value[0], bool))
    ]


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_a_seat_or_a_count_written_as_2_0_is_refused(
    mil: Record, mariage: Record, game: str
) -> None:
    """A seat, a bid or a count is a whole number in a result as in an action (``"seat":
    2.0`` is refused there too); only the fields that may end in .5 (Mil's ``raw`` and
    ``scores``) may be written as ``-180.0``."""
    record = mil if game == "mil" else mariage
    halves = {"raw", "scores"} if game == "mil" else set()
    fields = _whole_fields(record["deals"][0]["result"])
    assert len(fields) >= 5
    for key in fields:
        changed = copy.deepcopy(record)
        result = changed["deals"][0]["result"]
        result[key] = _floats(result[key])
        if key in halves:
            replay(changed)  # (a number by its value: -180.0 is -180)
            continue
        must = "hold whole numbers" if isinstance(result[key], list) else "be a whole number"
        refused(lambda r=changed: replay(r), f"deal 0: result {key} must {must}, got")
    final = "match" if game == "mariage" else "winner"
    changed = copy.deepcopy(record)
    if changed[final] is None:  # (a Mil game without a winner: its scores, which may be -180.0)
        changed["scores"] = _floats(changed["scores"])
        replay(changed)
    else:
        changed[final] = _floats(changed[final])
        refused(lambda: replay(changed), f"final result {final} must")
    # a value that differs is still told as a difference, whatever its form
    changed = copy.deepcopy(record)
    changed["deals"][0]["result"][fields[0]] = 9.5
    refused(lambda: replay(changed), "result differs: recorded", "9.5")
