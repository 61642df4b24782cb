"""The ``tapete`` command end to end: simulate -> replay round trips and clear failures."""

from __future__ import annotations

import argparse
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tapete.cli import main
from tapete.cli.common import size_text


@pytest.mark.parametrize(
    ("game", "profile", "players"),
    [
        ("mil", "club", "random,random,random"),
        ("mil", "casa", "random,random,random"),
        ("mil", "casa-500", "random,random,random"),
        ("mariage", None, "random,random"),
    ],
)
def test_simulate_then_replay_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, profile: str | None, players: str
) -> None:
    out = tmp_path / "games.jsonl"
    args = ["simulate", "--game", game, "--games", "6", "--seed", "11", "--players", players]
    args += ["--out", str(out), "--max-deals", "25"]
    if profile:
        args += ["--profile", profile]
    assert main(args) == 0
    summary = capsys.readouterr().out
    assert "simulated 6" in summary and "deals per game" in summary
    assert main(["replay", str(out)]) == 0
    assert "every result reproduced" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert len(lines) == 6
    assert all(json.loads(ln)["game"] == game for ln in lines)


def test_simulate_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        main(["simulate", "--games", "3", "--seed", "5", "--max-deals", "10", "--out", str(path)])
    assert a.read_bytes() == b.read_bytes()


def _write_altered(tmp_path: Path, change: str) -> Path:
    src = tmp_path / "src.jsonl"
    main(["simulate", "--games", "1", "--seed", "3", "--max-deals", "4", "--out", str(src)])
    rec = json.loads(src.read_text())
    deal = rec["deals"][0]
    plays = [i for i, a in enumerate(deal["actions"]) if a["type"] == "play"]
    if change == "wrong_score":
        deal["result"]["scores"][0] += 5
    elif change == "wrong_seat":
        deal["actions"][0]["seat"] = (deal["actions"][0]["seat"] + 1) % 3
    elif change == "duplicate_card":
        deal["hands"][0][0] = deal["hands"][1][0]
    elif change == "illegal_card" and plays:
        deal["actions"][plays[-1]]["card"] = deal["hands"][0][0]
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return path


@pytest.mark.parametrize("change", ["wrong_score", "wrong_seat", "duplicate_card"])
def test_replay_rejects_altered_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    path = _write_altered(tmp_path, change)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tapete replay: error: ") and "game 0 (line 1), deal 0" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json\n", "malformed JSON"),
        ('{"format": "tapete/9", "game": "mil"}\n', "unknown format"),
        ('{"format": "tapete/1", "game": "chess"}\n', "unknown game"),
        (
            '{"format": "tapete/1", "game": "mil", "profile": "x", "seed": 1, '
            '"players": ["a", "b", "c"], "deals": [], "scores": [0, 0, 0], "winner": null}\n',
            "unknown Mil profile",
        ),
        ('{"format": "tapete/1", "game": "mil", "profile": "club"}\n', "no 'seed' field"),
        ("[1, 2]\n", "must be a JSON object"),
    ],
)
def test_replay_reports_bad_input_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert expected in err and "game 0" in err


def test_replay_checks_every_file_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (it took one file: `tapete replay records/*` ended at once with "unrecognized
    # arguments", and a folder's README among the records hid the others' verdicts)
    good = tmp_path / "good.jsonl"
    main(["simulate", "--games", "2", "--seed", "4", "--max-deals", "3", "--out", str(good)])
    altered = _write_altered(tmp_path, "wrong_score")
    notes = tmp_path / "README.md"
    notes.write_text("# records\n")
    capsys.readouterr()
    assert main(["replay", str(good), str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count(f"OK {good}: 2 games") == 2
    assert out.endswith("2 files: 2 replayed\n"), out
    assert main(["replay", str(altered), str(notes), str(good)]) == 1
    out, err = capsys.readouterr()
    assert f"OK {good}: 2 games" in out  # (checked after the two that did not replay)
    assert out.endswith(f"3 files: 1 replayed, 2 did not ({altered}, {notes})\n"), out
    assert f"error: {altered}: game 0 (line 1), deal 0: result differs" in err
    assert f"error: {notes}: game 0 (line 1): malformed JSON" in err
    # a file that cannot be read: status 2, whatever the others gave
    assert main(["replay", str(altered), str(tmp_path / "nope.jsonl"), str(good)]) == 2
    out, err = capsys.readouterr()
    assert "cannot read" in err and "3 files: 1 replayed, 2 did not" in out


def test_replay_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["replay", "solve", "analyse"])
@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.mkdir(), "{path} is a folder, not a record file"),
        (lambda p: None, "cannot read {path}: No such file or directory"),
    ],
    ids=["folder", "missing"],
)
def test_a_file_that_cannot_be_read_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, make, expected: str
) -> None:
    # (a folder gave Python's "[Errno 21] Is a directory: '...'", the path said twice)
    path = tmp_path / "games.jsonl"
    make(path)
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert expected.format(path=path) in err and "Errno" not in err, err
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["replay", "solve", "analyse"])
def test_a_byte_that_is_not_utf8_is_named_by_its_line_and_byte(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    read_reference: Callable[[str], list[str]],
) -> None:
    # (one bad byte on line 6, after 5 good games, gave "games.jsonl is not a record file:
    # not UTF-8 text (invalid continuation byte)": the decoder fails 8 KiB at a time)
    good = [line.encode("utf-8") for line in read_reference("mil-club.jsonl")[:6]]
    bad = good[5][:122] + b"\xe2(\xa1" + good[5][122:]
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join([*good[:5], bad, b""]))
    # replay: the games before it replayed, a record's problem (1); solve, analyse: 2
    assert main([command, str(path)]) == (1 if command == "replay" else 2)
    err = capsys.readouterr().err  # (after replay's progress lines)
    where = "line 6: not UTF-8 text at byte 123 (invalid continuation byte)"
    assert err.splitlines()[-1] == f"tapete {command}: error: {path}: {where}"
    # a file that is no text at all is told so too, at its first byte
    path.write_bytes(b"\x80\xff\n")
    assert main([command, str(path)]) == (1 if command == "replay" else 2)
    where = "line 1: not UTF-8 text at byte 1 (invalid start byte)"
    assert capsys.readouterr().err == f"tapete {command}: error: {path}: {where}\n"


@pytest.mark.parametrize("command", ["replay", "solve", "analyse"])
def test_an_endless_line_is_refused_as_soon_as_it_passes_a_records_length(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    read_reference: Callable[[str], list[str]],
) -> None:
    # (the whole file was read before any check: `tapete replay /dev/zero` ran out of
    # memory, a MemoryError traceback; a 200 MB line took 600 MB before being refused)
    from tapete import records

    good = read_reference("mariage.jsonl")[0]  # (8,313 characters)
    monkeypatch.setattr(records, "MAX_RECORD_CHARS", 10_000)
    path = tmp_path / "long.jsonl"
    path.write_text("\n\n" + good + "\n" + "x" * 50_000 + "\n{}\n")
    code = main([command, str(path)])
    assert code == (1 if command == "replay" else 2)
    err = capsys.readouterr().err
    assert err.endswith(
        f"tapete {command}: error: {path}: game 1 (line 4): the record is longer than "
        "10,000 characters\n"
    ), err
    if Path("/dev/zero").exists():  # an endless file: refused at once, not read whole
        assert main([command, "/dev/zero"]) == code
        assert "/dev/zero: game 0 (line 1): the record is longer than" in capsys.readouterr().err


def test_simulate_rejects_unknown_player(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["simulate", "--players", "random,random,genius", "--out", str(tmp_path / "x")])
    assert code == 2
    assert "unknown player 'genius'" in capsys.readouterr().err


# ---------------------------------------------------------------- newcomer mistakes
def test_replay_of_an_empty_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    assert main(["replay", str(path)]) == 1
    assert "holds no record" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["simulate", "--games", "0"], "--games: must be at least 1, got 0"),
        (["simulate", "--games", "-2"], "--games: must be at least 1"),
        (["simulate", "--max-deals", "0"], "--max-deals: must be at least 1"),
        (["simulate", "--game", "mariage", "--max-deals", "0"], "--max-deals: must be at least"),
        (["arena", "--players", "rules,rules,rules", "--deals", "0"], "--deals: must be at least"),
        (["simulate", "--games", "x"], "expected a whole number, got 'x'"),
    ],
)
def test_counts_must_be_positive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    assert expected in _usage_error(tmp_path, capsys, args)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--seed", "-5"],
        ["simulate", "--seed", "-1", "--games", "3"],
        ["arena", "--players", "rules,rules,rules", "--seed", "-1"],
        ["play", "mil", "--seed", "-5"],
        ["play", "mariage", "--seed", "-1"],
    ],
)
def test_a_negative_seed_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """``random.Random(-n)`` deals as ``n`` does: ``--seed -5`` dealt seed 5's hands, and
    ``simulate --seed -1 --games 3`` dealt games 0 and 2 alike (seeds -1 and 1)."""
    seed = args[args.index("--seed") + 1]
    expected = "error: argument --seed: must be 0 or more (a seed of -S deals the cards of S)"
    assert _usage_error(tmp_path, capsys, args).endswith(f"{expected}, got {seed}\n")


def test_new_game_refuses_a_negative_seed_naming_it() -> None:
    from tapete.games import new_game

    with pytest.raises(ValueError, match=r"^seed must be 0 or more .*, got -5$"):
        new_game("mil", seed=-5)
    assert new_game("mariage", seed=0).seed == 0


def _usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    """The stderr of a command line that argparse refuses: status 2, the command's own usage
    (not that of ``tapete`` itself), nothing written."""
    if args[0] == "simulate":
        args = [*args, "--out", str(tmp_path / "x.jsonl")]
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: tapete {args[0]} ") and "Traceback" not in err, err
    assert not (tmp_path / "x.jsonl").exists()
    return err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["simulate", "--out", "{tmp}/no/such/folder/x.jsonl"], "does not exist"),
        (["simulate", "--out", "{tmp}"], "is a folder, not a file"),
        # ("-" made a file named "-" where standard output was meant)
        (["simulate", "--out", "-"], "--out -: this command writes to a file, not to standard"),
        (
            ["arena", "--players", "random,random,random", "--json", "-"],
            "--json -: this command writes to a file, not to standard output",
        ),
        (["simulate", "--game", "mariage", "--players", "random"], "needs 2 names for mariage"),
        (["arena", "--players", "rules,rules,genius", "--deals", "1"], "unknown player 'genius'"),
        (["arena", "--players", "rules", "--deals", "1"], "needs 3 names for mil, got 1"),
        (
            ["arena", "--players", "random,random,random", "--json", "{tmp}/no/x.json"],
            "--json {tmp}/no/x.json: the folder {tmp}/no does not exist",
        ),
        (["play", "mil", "--hide-points"], "--hide-points is for mariage"),
        # (Mariage's table says "you" and "the computer": a name was silently dropped)
        (["play", "mariage", "--name", "Ana"], "--name is for mil"),
        (["play", "mil", "--name", ""], "--name must be 1 to 32 printable characters, got ''"),
        (["play", "mil", "--name", "   "], "--name must be 1 to 32 printable characters"),
        (["play", "mil", "--name", "x" * 33], "--name must be 1 to 32 printable characters"),
    ],
)
def test_bad_arguments_give_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if args[0] == "simulate" and "--out" not in args:
        args += ["--out", str(tmp_path / "x.jsonl")]
    assert main(args) == 2
    err = capsys.readouterr().err
    # (argparse's form for its own errors: every command names itself the same way)
    assert err.startswith(f"tapete {args[0]}: error: ")
    assert expected.replace("{tmp}", str(tmp_path)) in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["play", "mil", "--profile", "nope"], "unknown Mil profile 'nope' (choose from club, "),
        (["simulate", "--profile", "casa500"], "unknown Mil profile 'casa500' (choose from "),
        (["arena", "--players", "rules,rules,rules", "--profile", "x"], "unknown Mil profile 'x'"),
    ],
)
def test_an_unknown_profile_shows_the_command_usage_and_the_games_profiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    # (simulate and arena printed the usage of `tapete` itself, as if the command were wrong)
    err = _usage_error(tmp_path, capsys, args)
    assert f"tapete {args[0]}: error: argument --profile: {expected}" in err, err


@pytest.mark.parametrize(
    "args",
    [
        ["play", "mariage", "--profile", "casa"],
        ["simulate", "--profile", "club", "--game", "mariage"],
        ["arena", "--game", "mariage", "--players", "rules,rules", "--profile", "club"],
    ],
)
def test_a_profile_for_a_game_with_one_rule_set_says_which_games_have_profiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    # (it said "(choose from mariage: Mariage has one rule set, Mil has several)")
    err = _usage_error(tmp_path, capsys, args)
    expected = f"tapete {args[0]}: error: --profile is for mil (Mariage has one rule set)\n"
    assert err.endswith(expected), err


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["replay", "a.jsonl", "--deal", "1"], "--deal 1"),
        (["play", "mil", "extra"], "extra"),
        (["solve", "a.jsonl", "--deal", "1", "more", "words"], "more words"),
        (["simulate", "--games", "2", "--nope"], "--nope"),
    ],
)
def test_arguments_left_over_are_the_commands_error_with_its_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], extra: str
) -> None:
    # (they were `tapete: error: unrecognized arguments: ...` after the usage of `tapete`)
    err = _usage_error(tmp_path, capsys, args)
    assert err.endswith(f"tapete {args[0]}: error: unrecognized arguments: {extra}\n"), err


def test_every_command_describes_itself_and_every_option_has_a_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (`tapete replay --help` showed only its usage; serve's --host and --port had no help)
    from tapete.cli import _parsers

    _, commands = _parsers()
    for name, parser in commands.items():
        assert parser.description, name
        for action in parser._actions:
            if action.option_strings:
                assert action.help, (name, action.option_strings)
            # (`arena --help` did not say that --deals is 100 when left out)
            left_out = action.default  # (None, False: nothing; SUPPRESS: --help, --version)
            if left_out is not None and left_out is not False and left_out != argparse.SUPPRESS:
                assert "default" in (action.help or ""), (name, action.option_strings)
        with pytest.raises(SystemExit):
            main([name, "--help"])
        shown = capsys.readouterr().out
        assert parser.description.split()[0] in shown, name


def test_the_one_profile_of_a_game_without_a_choice_may_be_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "mariage", "--profile", "mariage", "--seed", "3"]) == 0
    assert "seed 3" in capsys.readouterr().out


@pytest.fixture
def reference_mil(read_reference):  # type: ignore[no-untyped-def]
    """``reference_mil(with_start)``: the first club record with (or without) a start."""

    def pick(with_start: bool) -> dict:  # type: ignore[type-arg]
        lines = read_reference("mil-club.jsonl")
        return next(r for r in map(json.loads, lines) if ("start" in r) == with_start)

    return pick


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r.pop("winner"), "game 0 (line 1): the record has no 'winner' field"),
        (lambda r: r.pop("scores"), "game 0 (line 1): the record has no 'scores' field"),
        (lambda r: r["deals"][0]["actions"][0].update(seat="0"), "seat must be 0, 1 or 2, got '0'"),
        (lambda r: r["deals"][0]["actions"][0].pop("seat"), "action 0: the action has no 'seat'"),
        (lambda r: r["deals"][0].update(result=5), "deal 0: result must be an object, got 5"),
        (lambda r: r["deals"][0].pop("result"), "deal 0: the deal has no 'result'"),
        (lambda r: r.update(start={"bolts": [3, 0, 0]}), "start.bolts must be 0, 1 or 2"),
        (
            lambda r: r.update(start={"scores": [900, 0, 0]}),
            "seat 0 has 900 but is not in the barrel",
        ),
        (
            lambda r: r.update(start={"scores": [870, 0, 0], "in_barrel": [True, False, False]}),
            "seat 0 is in the barrel, so its score must be 880, got 870",
        ),
        (
            lambda r: r.update(start={"barrel_attempts": [1, 0, 0]}),
            "seat 0 has barrel attempts but is not in the barrel",
        ),
        (
            lambda r: r.update(start={"scores": [880] * 3, "in_barrel": [True] * 3}),
            "at most two players can be in the barrel",
        ),
    ],
)
def test_replay_names_what_is_wrong_in_a_mil_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change, expected: str, reference_mil
) -> None:
    rec = reference_mil(with_start=False)
    change(rec)
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tapete replay: error: {path}: game 0 (line 1)") and expected in err, err


def test_replay_checks_casa_start_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference
) -> None:
    lines = read_reference("mil-casa.jsonl")
    rec = next(r for r in map(json.loads, lines) if "start" in r)
    rec["start"]["in_barrel"] = [True, True, True]
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 1
    assert "in the barrel means 800 <= score < 1000" in capsys.readouterr().err


def test_replay_reads_one_pretty_printed_record_and_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference
) -> None:
    line = read_reference("mariage.jsonl")[0]
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(line), indent=2) + "\n", encoding="utf-8")
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + line.encode() + b"\n")
    for path in (pretty, bom):
        assert main(["replay", str(path)]) == 0
        assert capsys.readouterr().out.startswith(f"OK {path}: 1 game (mariage/mariage: 1)")


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_play_prints_the_seed_and_leaves_at_the_end_of_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], game: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # end of input at the first prompt
    assert main(["play", game, "--seed", "12", "--level", "random"]) == 0
    out = capsys.readouterr().out
    assert "seed 12" in out.splitlines()[0]


def test_replay_quotes_a_seat_written_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference
) -> None:
    rec = json.loads(read_reference("mariage.jsonl")[0])
    rec["deals"][0]["actions"][0]["seat"] = str(rec["deals"][0]["actions"][0]["seat"])
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "game 0 (line 1), deal 0, action 0: {seat '" in err and "seat must be 0 or 1" in err


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_play_on_an_output_that_cannot_show_the_suits_writes_letters(game: str) -> None:
    # (a Latin-1 locale or a legacy code page: the first ♥ ended in a UnicodeEncodeError)
    import os
    import subprocess
    import sys

    cmd = [sys.executable, "-c", "from tapete.cli import main; raise SystemExit(main())"]
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run(
        [*cmd, "play", game, "--seed", "1", "--level", "random"],
        input=b"pass\nhelp\nquit\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    out = done.stdout.decode("latin-1")
    assert "your hand: " in out and "quit" in out
    assert not set("♠♣♦♥→") & set(out)
    hand = next(line for line in out.splitlines() if "your hand: " in line)
    assert all(card[-1] in "SCDH" for card in hand.split("your hand: ")[1].split()), hand


def test_a_closed_output_pipe_ends_quietly() -> None:
    # `tapete play mil | head -1`: the reader goes away while the game still writes
    import subprocess
    import sys
    import threading

    cmd = [sys.executable, "-c", "from tapete.cli import main; raise SystemExit(main())"]
    proc = subprocess.Popen(
        [*cmd, "play", "mil", "--seed", "1", "--level", "random"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    # the first line, read with a time limit: a child that never writes must fail the test,
    # not hold the whole run (a bare readline() blocks for ever)
    first = threading.Thread(target=proc.stdout.readline, daemon=True)
    first.start()
    first.join(60)
    if first.is_alive():
        proc.kill()
        raise AssertionError("`tapete play mil` wrote no line within 60 s")
    proc.stdout.close()
    _, err = proc.communicate(b"help\n" * 2000, timeout=60)
    assert b"Traceback" not in err and proc.returncode == 1


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_refuses_an_impossible_port(capsys: pytest.CaptureFixture[str], port: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--port", port])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port:" in err and "Traceback" not in err


def test_serve_refuses_a_database_that_is_not_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", "games.db"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "tapete serve: error: --db 'games.db' is not a database URL (for example "
        "sqlite:////home/ana/tapete.db or postgresql+psycopg://tapete@localhost/tapete)\n"
    )


def test_serve_says_when_the_port_is_taken(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr()
    assert err.out == ""  # nothing claims that the server is running
    assert err.err.startswith(f"tapete serve: error: cannot listen on 127.0.0.1 port {port}: ")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--clock", "30+120"], {"move_s": 30, "bank_s": 120, "grace_s": 30, "abandon_s": 300}),
        (["--clock", "15"], {"move_s": 15, "bank_s": 0, "grace_s": 30, "abandon_s": 300}),
        (
            ["--clock", "none", "--grace-seconds", "10", "--abandon-seconds", "60"],
            {"move_s": None, "bank_s": 0, "grace_s": 10, "abandon_s": 60},
        ),
        (
            ["--grace-seconds", "2.5"],
            {"move_s": None, "bank_s": 0, "grace_s": 2.5, "abandon_s": 300},
        ),
        ([], None),
    ],
)
def test_serve_passes_the_default_clock_on(
    monkeypatch: pytest.MonkeyPatch, args: list[str], expected: dict[str, object] | None
) -> None:
    import tapete.server.app

    seen: dict[str, object] = {}
    monkeypatch.setattr(tapete.server.app, "run_serve", lambda **kw: seen.update(kw) or 0)
    assert main(["serve", "--port", "0", *args]) == 0
    clock = seen["clock"]
    assert (None if clock is None else clock.to_json()) == expected  # type: ignore[attr-defined]


def test_serve_gives_its_clock_to_the_tables_made_without_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import logging
    import warnings

    import uvicorn

    import tapete.server.app as server_app

    with warnings.catch_warnings():  # (Starlette 1.x prefers httpx2; httpx works the same)
        warnings.filterwarnings("ignore", message=".*httpx2.*")
        from starlette.testclient import TestClient

    made: list[object] = []
    real = server_app.create_app
    monkeypatch.setattr(
        server_app, "create_app", lambda *a, **kw: made.append(real(*a, **kw)) or made[-1]
    )
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, *a, **kw: None)  # (no serving)
    monkeypatch.setattr(logging, "basicConfig", lambda **kw: None)
    db = f"sqlite:///{tmp_path / 'serve.sqlite'}"
    args = ["serve", "--port", "0", "--db", db, "--clock", "30+120", "--grace-seconds", "20"]
    assert main(args) == 0
    [app] = made
    clock = {"move_s": 30, "bank_s": 120, "grace_s": 20, "abandon_s": 300}
    with TestClient(app, base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        assert client.get("/api/config").json()["default_clock"] == clock
        seats = [{"kind": "me"}, {"kind": "invited"}]
        r = client.post("/api/tables", json={"game": "mariage", "name": "Ana", "seats": seats})
        assert r.status_code == 201, r.text
        info = client.get(f"/api/tables/{r.json()['table']}").json()
        assert info["clock"] == clock


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--clock", "0+120"],
            "--clock's time per move must be a number of seconds from 1 to 3600, got '0'",
        ),
        (
            ["--clock", "30+4000"],
            "--clock's time bank must be a number of seconds from 0 to 3600, got '4000'",
        ),
        (
            ["--clock", "30s"],
            "--clock must be MOVE or MOVE+BANK in seconds (for example 30+120: 30 s a move "
            "and a 2 min bank) or 'none', got '30s'",
        ),
        (["--clock", "+60"], "--clock must be MOVE or MOVE+BANK in seconds"),
        (
            ["--grace-seconds", "0"],
            "--grace-seconds must be a number of seconds from 1 to 3600, got '0'",
        ),
        (
            ["--grace-seconds", "nan"],
            "--grace-seconds must be a number of seconds from 1 to 3600, got 'nan'",
        ),
        # (port 0: the system picks one, and the host is checked all the same)
        (["--host", "999.1.1.1"], "--host '999.1.1.1' is not an address of this machine"),
        (
            ["--abandon-seconds", "100000"],
            "--abandon-seconds must be a number of seconds from 1 to 86400",
        ),
    ],
)
def test_serve_refuses_a_wrong_clock_or_host(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    expected: str,
) -> None:
    import tapete.server.app

    monkeypatch.setattr(tapete.server.app, "run_serve", lambda **kw: pytest.fail("it served"))
    assert main(["serve", "--port", "0", *args]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err.startswith(f"tapete serve: error: {expected}"), err.err
    assert err.err.count("\n") == 1


@pytest.mark.parametrize(
    ("file", "change", "expected"),
    [
        (
            "mil-club.jsonl",
            lambda r: r["deals"][0]["hands"][0].__setitem__(0, 5),
            "deal 0: the hand of seat 0: 5 is",
        ),
        ("mil-club.jsonl", lambda r: r["deals"][0]["talon"].__setitem__(0, None), "null is"),
        ("mariage.jsonl", lambda r: r["deals"][0]["stock"].__setitem__(0, 7), "7 is"),
        ("mariage.jsonl", lambda r: r["deals"][0]["actions"][0].update(card=5), "action 0"),
    ],
)
def test_replay_refuses_a_card_that_is_not_a_string(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    change,
    expected: str,
    read_reference,
) -> None:
    # with the compiled engine, parse_card(5) raises TypeError: the readers check first
    err = _replay_error(tmp_path, capsys, read_reference(file)[0], change)
    assert expected in err and "is not a card (expected a string such as 'KH')" in err


def _replay_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, change: Callable[[Any], object]
) -> str:
    """What ``tapete replay`` says of the record ``line`` once ``change`` has altered it."""
    rec = json.loads(line)
    change(rec)
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 1
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("file", "change", "ranks"),
    [
        ("mil-club.jsonl", lambda r: r["deals"][0]["hands"][0].__setitem__(0, "XX"), "A T K Q J 9"),
        ("mil-club.jsonl", lambda r: _first_card_action(r).update(card="1H"), "A T K Q J 9"),
        ("mariage.jsonl", lambda r: r["deals"][0]["stock"].__setitem__(0, "XX"), "A T K Q J 9 8 7"),
        ("mariage.jsonl", lambda r: _first_card_action(r).update(card="1H"), "A T K Q J 9 8 7"),
    ],
)
def test_replay_names_the_ranks_of_the_games_own_deck(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    file: str,
    change,
    ranks: str,
    read_reference,
) -> None:
    # (Mil's listed the 8 and the 7 too, which its 24 cards do not have)
    err = _replay_error(tmp_path, capsys, read_reference(file)[0], change)
    assert f"is not a card (expected rank {ranks} then suit S C D H, e.g. 'KH')" in err, err


def _first_card_action(record: dict) -> dict:  # type: ignore[type-arg]
    return next(a for a in record["deals"][0]["actions"] if "card" in a)


@pytest.mark.parametrize("value", [5, None, ["KH"]])
def test_parse_card_refuses_a_non_string_with_its_own_error(value: object) -> None:
    from tapete.cards import InvalidNotationError, parse_card

    with pytest.raises(InvalidNotationError, match="is not a card"):
        parse_card(value)


def test_version_names_the_engine_build(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("tapete 0.") and ("compiled engine" in out or "pure Python" in out)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_plain_lines_without_a_terminal() -> None:
    from tapete.cli.common import Progress

    stream = io.StringIO()
    with Progress(20, "simulate", stream=stream) as progress:
        for done in range(1, 21):
            progress.update(done, f"deals={done}")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1].startswith("simulate [" + "#" * 30 + "] 20/20 ")
    assert "\r" not in stream.getvalue() and lines[-1].endswith("deals=20")
    # a count that passes its total (whole games until at least N deals) says so
    stream = io.StringIO()
    Progress(60, "[arena] deals", stream=stream).update(78, "1 game, 1 s")
    assert "] 78 (at least 60) " in stream.getvalue() and "78/60" not in stream.getvalue()


def test_progress_without_a_terminal_says_something_every_half_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slow run in a pipe (search players) wrote nothing until its first tenth: a line
    now comes at least every ``PIPE_EVERY_S`` seconds between the tenths."""
    from tapete.cli import common

    clock = [100.0]
    monkeypatch.setattr(common.time, "perf_counter", lambda: clock[0])
    stream = io.StringIO()
    progress = common.Progress(1000, "[arena] deals", stream=stream)
    progress.update(1)  # (the first update: tenth 0 is new)
    for done, seconds in ((2, 10), (3, 25), (4, 31), (5, 40), (6, 62)):
        clock[0] = 100.0 + seconds
        progress.update(done)
    counts = [re.findall(r"\d+/1000", line)[0] for line in stream.getvalue().splitlines()]
    assert counts == ["1/1000", "4/1000", "6/1000"], counts


def test_progress_on_a_terminal_is_a_rich_bar_that_ends_its_line() -> None:
    from tapete.cli.common import Progress

    stream = _Terminal()
    progress = Progress(4, "[arena] replay", stream=stream)
    assert progress.tty
    for done in range(1, 5):
        progress.update(done)
    progress.close()
    progress.close()  # idempotent
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())  # rich's escapes
    assert "[arena] replay" in text and "4/4" in text and text.endswith("\n")  # the line is ended


def test_arena_says_one_game_and_never_more_deals_than_asked_over_a_slash(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["arena", "--game", "mariage", "--players", "random,random", "--deals", "3"]
    assert main([*args, "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "1 game," in captured.err and "1 games" not in captured.err
    assert "(at least 3)" in captured.err
    assert captured.out.startswith("mariage / mariage: ")


#: a module of bots of a user's own, in the folder the commands run from
OWN_BOTS = """
from tapete.bots import parse_action

RANKS = "ATKQJ987"


class HighCardBot:
    name = "highcard"

    def act(self, view, rng):
        legal = view["legal"]
        plays = [e for e in legal if e["type"] == "play"]
        if plays:
            return parse_action(view["game"], min(plays, key=lambda e: RANKS.index(e["card"][0])))
        return parse_action(view["game"], next((e for e in legal if e["type"] == "pass"), legal[0]))


class Cheat(HighCardBot):
    def act(self, view, rng):
        return parse_action(view["game"], {"type": "bid", "value": 300})


class Crash(HighCardBot):
    def act(self, view, rng):
        raise RuntimeError("boom")


class Sleeper(HighCardBot):
    def act(self, view, rng):
        import time

        time.sleep(3600)


def broken():
    raise RuntimeError("no cards today")
"""


@pytest.fixture
def own_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``ownbots_<n>.py`` in a folder the test runs from; its module name."""
    import sys

    name = f"ownbots_{len(tmp_path.parts)}_{abs(hash(tmp_path)) % 10_000}"
    (tmp_path / f"{name}.py").write_text(OWN_BOTS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # (the folder is put on it: undone)
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_arena_and_simulate_play_a_bot_of_your_own(
    own_bots: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--players module:name`` seats a bot of your own beside the built-in ones (the
    module imported from the current folder, ``name`` called for each bot); one that plays
    an illegal action falls back to a legal one and is counted in ``faults``, as a built-in
    bot's fault is."""
    import json

    players = f"{own_bots}:HighCardBot,rules,{own_bots}:Cheat"
    out = tmp_path / "arena.json"
    args = ["arena", "--players", players, "--deals", "6", "--deals-per-game", "1"]
    assert main([*args, "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert f"{own_bots}:HighCardBot " in table and f"{own_bots}:Cheat " in table
    bots = {b["name"]: b for b in json.loads(out.read_text())["bots"]}
    assert bots[f"{own_bots}:HighCardBot"]["faults"] == 0
    assert bots[f"{own_bots}:Cheat"]["faults"] > 0  # (its bids of 300 were never legal)
    records = tmp_path / "games.jsonl"
    sim = ["simulate", "--players", f"{own_bots}:HighCardBot,random,random", "--games", "2"]
    assert main([*sim, "--max-deals", "1", "--out", str(records)]) == 0
    assert len(records.read_text().splitlines()) == 2
    assert main(["replay", str(records)]) == 0


def test_a_bot_of_your_own_that_never_answers_is_played_for(
    own_bots: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A decision past ``USER_BOT_LIMIT_S`` falls back to a legal action (a fault): a bot
    that never answered held the whole arena."""
    import json

    from tapete.bots import registry

    monkeypatch.setattr(registry, "USER_BOT_LIMIT_S", 0.05)
    out = Path.cwd() / "sleeper.json"
    players = f"{own_bots}:Sleeper,rules,rules"
    args = ["arena", "--players", players, "--deals", "1", "--deals-per-game", "1"]
    assert main([*args, "--json", str(out)]) == 0
    bots = {b["name"]: b for b in json.loads(out.read_text())["bots"]}
    assert bots[f"{own_bots}:Sleeper"]["faults"] >= 1


@pytest.mark.parametrize("command", ["arena", "simulate"])
def test_a_bot_that_always_fails_is_logged_in_full_once_per_run(
    own_bots: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, command: str
) -> None:
    """The faults of a player are counted over the whole run, not per bot: the arena and
    ``simulate`` make new bots for every game, and a bot failing at every decision logged a
    full traceback per game (58 over 60 one-deal games) and its "10th" line as often."""
    import logging

    crash = f"{own_bots}:Crash"
    if command == "arena":
        args = ["arena", "--players", f"{crash},rules,rules", "--deals", "60", "--duplicate"]
        args += ["--deals-per-game", "1"]
    else:
        args = ["simulate", "--players", f"{crash},rules,rules", "--games", "30"]
        args += ["--max-deals", "1", "--out", str(tmp_path / "games.jsonl")]
    with caplog.at_level(logging.WARNING, logger="tapete.bots"):
        assert main(args) == 0
    said = [(r.getMessage(), r.exc_info is not None) for r in caplog.records]
    assert [with_trace for _, with_trace in said] == [True, False, False], said
    assert f"bot {crash} (mil, seat " in said[0][0] and "failed: boom" in said[0][0]
    assert f"bot {crash} (mil) has failed 10 times" in said[1][0]
    assert f"bot {crash} (mil) has failed 100 times" in said[2][0]


@pytest.mark.parametrize(
    ("player", "said"),
    [
        ("nosuchmodule:Bot", "player 'nosuchmodule:Bot': cannot import nosuchmodule: No module"),
        ("{m}:Nope", "player '{m}:Nope': {m} has no Nope"),
        ("{m}:RANKS", "player '{m}:RANKS': {m}.RANKS is not a class or a function"),
        ("{m}:broken", "player '{m}:broken': broken() failed: no cards today"),
        (":Bot", "player ':Bot' must be module:name"),
    ],
)
def test_a_bot_of_your_own_that_cannot_be_made_stops_the_run_with_a_sentence(
    own_bots: str, capsys: pytest.CaptureFixture[str], player: str, said: str
) -> None:
    player, said = player.format(m=own_bots), said.format(m=own_bots)
    assert main(["arena", "--players", f"{player},rules,rules", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tapete arena: error: ") and said in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigkill"])
def test_serve_ends_with_its_workers_however_it_is_stopped(tmp_path: Path, how: str) -> None:
    """``tapete serve`` and its worker processes (the hints' pool starts one at start-up)
    end together, whether the server is stopped by Ctrl-C at a terminal (the signal reaches
    every process of the group; exit code 130, and no ``KeyboardInterrupt`` traceback: each
    worker printed one), by SIGTERM to the server alone (a service manager's stop: exit
    code 143 through Python's exit, so no "leaked semaphore" warning from multiprocessing's
    tracker), or by SIGKILL (a crash: the server can do nothing, and its idle workers used
    to wait for work for ever)."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tapete", "serve", "--port", str(port), "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # (its own process group, as a terminal's job)
        env={**os.environ, "HOME": str(tmp_path)},
    )

    def group() -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.getpgid(int(entry.name)) == proc.pid:
                        pids.append(int(entry.name))
                except OSError:
                    pass
        return pids

    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "tapete serve did not start its hint worker"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=2):
                    pass
                if len(group()) >= 3:  # the server, multiprocessing's tracker, a worker
                    break
            except OSError:
                pass
            time.sleep(0.1)
        time.sleep(1.0)  # (the worker has imported what it runs)
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert "Tapete is running" in out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    # (a shell's codes for Ctrl-C and SIGTERM; killed: no code of its own)
    code = {"ctrl-c": 130, "sigterm": 143, "sigkill": -signal.SIGKILL}[how]
    assert proc.returncode == code, (proc.returncode, err)
    if how != "sigkill":  # (killed, it leaves its tracker the queues to clean up)
        assert "leaked" not in err, err
    deadline = time.monotonic() + 10
    while group():  # every worker gone with it (multiprocessing's tracker a moment after)
        assert time.monotonic() < deadline, f"processes left behind: {group()}"
        time.sleep(0.1)


@pytest.mark.parametrize("delay", ["-1", "60001", "x"])
def test_serve_refuses_a_computer_delay_out_of_range(
    delay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", "0", "--delay-ms", delay])
    assert stop.value.code == 2 and "--delay-ms" in capsys.readouterr().err


def test_the_port_is_held_from_the_check_to_the_serving() -> None:
    """``check_listen`` binds the socket the server then serves on: from the moment the
    banner can name the port, no other program can bind it (with --port 0 the system's
    choice was probed, let go and bound again, and could be taken in between)."""
    import socket

    from tapete.cli.serve import check_listen

    sock = check_listen("127.0.0.1", 0)
    assert not isinstance(sock, str), sock
    try:
        port = sock.getsockname()[1]
        assert port != 0
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))
    finally:
        sock.close()
    again = check_listen("127.0.0.1", port)  # (let go: free again)
    assert not isinstance(again, str), again
    again.close()


def test_serve_on_port_0_names_the_port_the_system_chose(tmp_path: Path) -> None:
    """``--port 0`` lets the system choose a free port: the banner names that port (it said
    0), at once even through a pipe, and the server answers there."""
    import os
    import re
    import signal
    import subprocess
    import sys
    import threading
    import urllib.request

    db = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tapete", "serve", "--port", "0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # (as a service manager or a script runs it: stdout a pipe, Python's buffering on)
        env={**os.environ, "HOME": str(tmp_path), "PYTHONUNBUFFERED": ""},
    )
    assert proc.stdout is not None
    banner: list[str] = []
    reader = threading.Thread(target=lambda: banner.append(proc.stdout.readline()), daemon=True)
    reader.start()
    try:
        reader.join(60)
        assert banner, "`tapete serve --port 0` printed no banner within 60 s"
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/ in your browser", banner[0])
        assert found, banner
        port = int(found.group(1))
        assert port != 0
        for _ in range(600):  # (the banner comes before the server listens on its socket)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=5) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert proc.poll() is None, proc.communicate()
                threading.Event().wait(0.1)
        else:
            raise AssertionError(f"nothing answered on port {port}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_stopped_simulation_leaves_no_file_behind(tmp_path: Path, stop: str) -> None:
    """Ctrl-C or a stop (``timeout``) ends ``simulate`` with "interrupted" and takes its
    temporary file away (it left ``FILE.jsonl.tmp``, megabytes of it)."""
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-c", "from tapete.cli import main; raise SystemExit(main())"]
    out = tmp_path / "games.jsonl"
    proc = subprocess.Popen(
        [*cmd, "simulate", "--game", "mil", "--games", "100000", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    tmp = tmp_path / "games.jsonl.tmp"
    while not (tmp.exists() and tmp.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tmp.exists(), "simulate wrote no game within 60 s"
    proc.send_signal(getattr(signal, stop))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and b"interrupted" in err and b"Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_command_imports_its_sub_commands_only_when_it_runs() -> None:
    """Importing ``tapete.cli`` (what the ``tapete`` script does first) stays light: the
    sub-commands are imported inside ``main``'s Ctrl-C handling, so a Ctrl-C in the first
    moments says "interrupted" instead of printing a traceback of the imports."""
    import subprocess
    import sys

    code = "import sys, tapete.cli; print('tapete.analysis.command' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert shown.stdout.strip() == "False", shown.stderr


def test_analyse_of_one_seat_sums_up_that_seat_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (with --seat 1 the closing lines also gave the other players "average loss per deal
    # 0.0": not judged at all, they read as having played perfectly)
    out = tmp_path / "m.jsonl"
    args = ["--game", "mariage", "--games", "1", "--players", "rules,rules", "--out", str(out)]
    assert main(["simulate", *args, "--max-deals", "1"]) == 0
    players = json.loads(out.read_text())["players"]
    capsys.readouterr()
    assert main(["analyse", str(out), "--deal", "0", "--seat", "1", "--quick"]) == 0
    text = capsys.readouterr().out
    summary = text.split(" deal(s) analysed")[1].splitlines()[1:]
    assert [line.split(":")[0].strip() for line in summary] == [players[1]], text


@pytest.mark.skipif(
    not Path("/proc/self").is_dir(), reason="needs /proc (a folder that refuses files)"
)
@pytest.mark.parametrize(
    "args",
    [
        ["arena", "--players", "rules,rules,rules", "--deals", "1", "--json", "/proc/x.json"],
        ["analyse", "{records}", "--game", "0", "--quick", "--json", "/proc/x.json"],
        ["simulate", "--games", "1", "--out", "/proc/x.jsonl"],
    ],
    ids=["arena", "analyse", "simulate"],
)
def test_an_output_that_cannot_be_written_is_one_line_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    # (arena --json and analyse --json in a folder that exists but refuses the file played
    # the whole run, then ended in a FileNotFoundError traceback)
    records = tmp_path / "m.jsonl"
    sim = ["--game", "mariage", "--games", "1", "--players", "rules,rules", "--max-deals", "2"]
    assert main(["simulate", *sim, "--out", str(records)]) == 0
    capsys.readouterr()
    assert main([a.format(records=records) for a in args]) == 2
    err = capsys.readouterr().err
    assert err == f"tapete {args[0]}: error: cannot write {args[-1]}: No such file or directory\n"


def test_checking_an_output_leaves_no_file_and_keeps_an_existing_one(tmp_path: Path) -> None:
    from tapete.cli.common import check_output

    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("kept")
    assert check_output(new, "--json") is None and not new.exists()
    assert check_output(old, "--json") is None and old.read_text() == "kept"


def test_analyse_shows_its_progress_without_a_terminal_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (its own bar was drawn only on a terminal: piped or logged, a job of minutes said
    # nothing until the end, unlike simulate, replay and arena)
    records = tmp_path / "m.jsonl"
    sim = ["--game", "mariage", "--games", "1", "--players", "rules,rules", "--max-deals", "3"]
    assert main(["simulate", *sim, "--out", str(records)]) == 0
    capsys.readouterr()
    assert main(["analyse", str(records), "--quick", "--json", "-"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("analyse [") for line in err), err
    assert err[-1].split("] ")[1].startswith("3/3 ")


def test_replay_reads_a_large_file_a_record_at_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], read_reference: Callable[[str], list[str]]
) -> None:
    # (the whole file was read and parsed before the first replay: a 60 MB file of records
    # took 640 MB; now the memory of one record, whatever the file's size)
    import tracemalloc

    good = read_reference("mariage.jsonl")[0]
    path = tmp_path / "many.jsonl"
    path.write_text((good + "\n") * 40)  # 330 KB of text, about 4 MB parsed
    tracemalloc.start()
    try:
        assert main(["replay", str(path)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "OK" in capsys.readouterr().out
    assert peak < 2_000_000, f"replay held {peak:,} bytes at its peak"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_replay_reads_its_file_once_and_shows_the_bytes_read(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    read_reference: Callable[[str], list[str]],
    monkeypatch: pytest.MonkeyPatch,
    newline: str,
) -> None:
    # (the file was read a first time to count its records for the bar, by a second reader
    # that copied the first's line cap and pretty-record test)
    good = read_reference("mariage.jsonl")[0]
    path = tmp_path / "many.jsonl"
    path.write_bytes(("\ufeff" + (good + newline) * 20).encode("utf-8"))
    opened: list[str] = []
    real_open = Path.open

    def counting_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(self.name)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_open)
    assert main(["replay", str(path)]) == 0
    assert opened == ["many.jsonl"]
    err = capsys.readouterr().err.splitlines()
    size = size_text(path.stat().st_size)
    assert err and all(line.startswith("replay [") for line in err), err
    # the bar grows with the bytes read and ends full, with the games replayed so far
    assert err[-1].startswith("replay [" + "#" * 30 + f"] {size}/{size} "), err
    assert err[-1].endswith(" 20 games") and len(err) >= 5, err


def test_a_record_file_counts_what_it_read_never_past_its_size(
    tmp_path: Path, read_reference: Callable[[str], list[str]]
) -> None:
    from tapete.cli.common import RecordFile

    good = json.loads(read_reference("mariage.jsonl")[0])
    good["players"][0] = "Iñés"  # (two characters of two bytes each)
    line = json.dumps(good, ensure_ascii=False)
    path = tmp_path / "r.jsonl"
    path.write_bytes(("\ufeff" + line + "\r\n\r\n" + line + "\n").encode("utf-8"))
    file = RecordFile(path)
    size = 3 + 2 * (len(line) + 2) + 2 + 2 + 1  # (BOM, two records of two 2-byte letters)
    assert (file.size, file.read_so_far()) == (size, 0)
    seen = [(number, record["players"][0], file.read_so_far()) for number, record in file]
    # lines 1 and 3 (line 2 is blank); the bytes, not the characters, to the file's end
    assert [(n, name) for n, name, _ in seen] == [(1, "Iñés"), (3, "Iñés")]
    assert 0 < seen[0][2] <= seen[1][2] == file.read_so_far() == file.size
    # a file of many blocks: the count grows with the reading, never past the size
    path.write_text(("\n".join([line] * 200)) + "\n", encoding="utf-8")
    big = RecordFile(path)
    counts = [big.read_so_far() for _ in big]
    assert counts == sorted(counts) and counts[0] < big.size == counts[-1]
    assert len(set(counts)) > 10 and big.size > len(line) * 200
    assert RecordFile(tmp_path).size == 0 and RecordFile(tmp_path / "nope").size == 0


def test_a_progress_in_bytes_says_sizes_as_people_read_them() -> None:
    from tapete.cli.common import Progress

    assert [size_text(n) for n in (0, 999, 1_000, 12_345, 3_210_000, 1_100_000_000)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "12.3 kB",
        "3.2 MB",
        "1.1 GB",
    ]
    stream = io.StringIO()
    with Progress(3_210_000, "replay", stream=stream, in_bytes=True) as progress:
        progress.update(1_605_000, "7 games")
    line = stream.getvalue().splitlines()[-1]
    assert line.startswith("replay [" + "#" * 15 + " " * 15 + "] 1.6 MB/3.2 MB ")
    assert line.endswith("/s 7 games"), line


def test_a_progress_of_nothing_known_shows_no_bar_on_a_terminal() -> None:
    """``tapete replay`` of a pipe (its size unknown, 0): no bar, also on a terminal, where
    an empty bar without a count stood until the end."""
    from tapete.cli.common import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream in (Terminal(), io.StringIO()):
        with Progress(0, "replay", stream=stream, in_bytes=True) as progress:
            progress.update(4096, "3 games")
        assert stream.getvalue() == ""
    shown = Terminal()
    with Progress(8192, "replay", stream=shown, in_bytes=True) as progress:
        progress.update(4096, "3 games")
    assert "4.1 kB/8.2 kB" in shown.getvalue()


LONG = "x" * 5000


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "mil", "--profile", LONG], "argument --profile: unknown Mil profile "),
        (["play", "mil", "--level", LONG], "argument --level: invalid choice: "),
        (["play", LONG], "argument game: invalid choice: "),
        (["play", "mil", "--seed", LONG], "argument --seed: expected a whole number, got "),
        (["arena", "--players", "rules,rules,rules", "--seed", LONG], "expected a whole number"),
        (["solve", "a.jsonl", "--deal", LONG], "argument --deal: expected a whole number, got "),
        (["analyse", "a.jsonl", "--seat", LONG], "argument --seat: expected a whole number, got "),
    ],
)
def test_a_long_argument_is_cut_in_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    # (argparse, and the checks after it, quoted a 5,000-character argument whole)
    last = _usage_error(tmp_path, capsys, args).splitlines()[-1]
    assert said in last and "... (5,000 characters)" in last and len(last) < 250, last


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "mil", "--seed", "9" * 5000], "expected a whole number, got a number of 5,000"),
        (["serve", "--port", "9" * 5000], "expected a port number, got a number of 5,000 digits"),
        (["serve", "--port", "9" * 50], "a port is 0 to 65535, got a number of 50 digits"),
    ],
)
def test_a_number_too_long_for_python_is_described(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    # (int() refuses over 4,300 digits: the line quoted them all)
    assert said in _usage_error(tmp_path, capsys, args).splitlines()[-1]


def test_checks_after_argparse_cut_a_long_value_but_not_an_apostrophe(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tapete.cli.common import cut_quotes

    assert main(["serve", "--db", LONG]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tapete serve: error: --db 'xxx") and "(5,000 characters)" in err
    assert len(err) < 300, err
    apostrophes = "the record's players and the action's " + "y" * 80 + " 'type'"
    assert cut_quotes(apostrophes) == apostrophes


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "{long}"],
        ["solve", "{long}"],
        ["analyse", "{long}"],
        ["simulate", "--games", "1", "--out", "{long}"],
        ["arena", "--players", "rules,rules,rules", "--deals", "1", "--json", "{long}"],
    ],
    ids=["replay", "solve", "analyse", "simulate", "arena"],
)
def test_a_file_name_too_long_for_the_system_is_an_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    # (Path.is_dir raised ENAMETOOLONG: each ended in a traceback)
    long = str(tmp_path / ("n" * 300))
    assert main([a.replace("{long}", long) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tapete {args[0]}: error: cannot ") and "File name too long" in err
    assert "Traceback" not in err


def test_serve_says_when_the_sqlite_folder_cannot_be_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    url = f"sqlite:///{blocked}/games/tapete.db"
    assert main(["serve", "--port", "0", "--db", url]) == 2
    err = capsys.readouterr()
    assert err.err == (
        f"tapete serve: error: cannot make the folder of the database {url}: "
        f"{blocked} is a file, not a folder\n"
    )
    assert "Tapete is running" not in err.out
