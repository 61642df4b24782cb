"""Terminal play driven by scripted input."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tapete.cards import InvalidNotationError, parse_card
from tapete.mariage import Claim, Marriage, Play
from tapete.terminal.mariage import parse_command, play_match


class FirstLegalBot:
    def act(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        assert view["legal"], "the bot is asked only on its turn"
        assert len(view["hand"]) == view["hand_counts"][view["seat"]]
        return dict(view["legal"][0])


class Script:
    """Feeds ``first`` commands, then answers every prompt with the first legal command."""

    def __init__(self, first: list[str], limit: int = 2000) -> None:
        self.first: Iterator[str] = iter(first)
        self.lines: list[str] = []
        self.prompts = 0
        self.limit = limit

    def output(self, text: str = "") -> None:
        self.lines.extend(str(text).splitlines() or [""])

    def input(self, prompt: str) -> str:
        self.prompts += 1
        if self.prompts > self.limit:
            raise EOFError
        scripted = next(self.first, None)
        if scripted is not None:
            return scripted
        offers = [ln for ln in self.lines if ln.startswith("you may: ")]
        return offers[-1].removeprefix("you may: ").split(" | ")[0]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def run(script: Script, seat: int = 0, seed: int = 3, show_points: bool = True) -> None:
    factory: Callable[[], FirstLegalBot] = FirstLegalBot
    play_match(seat, factory, seed, show_points, input_fn=script.input, output_fn=script.output)


def test_a_whole_match_to_the_end() -> None:
    script = Script([])
    run(script)
    assert "Match over:" in script.text
    assert "== Hand 1" in script.text and "your hand: " in script.text
    assert "points: you" in script.text and "Hand over:" in script.text


def test_points_can_be_hidden() -> None:
    script = Script([])
    run(script, seat=1, show_points=False)
    assert "Match over:" in script.text
    assert "points: you" not in script.text and "(points:" not in script.text
    assert "tricks: you" in script.text


def test_illegal_input_re_prompts_with_the_reason() -> None:
    script = Script(["play ZZ", "claim", "marriage X", "dance", "help", "quit"])
    run(script, seat=0, seed=4000)  # seat 1 deals: seat 0 leads first
    text = script.text
    assert "'ZZ' is not a card (expected rank A T K Q J 9 8 7 then suit S C D H" in text
    assert "Not allowed: you cannot claim 66: no claim before the first trick" in text
    assert "'X' is not a suit" in text
    assert "'dance' is not a command" in text
    assert "exchange      swap the trump 7" in text
    assert text.endswith("You leave the match.")
    assert script.prompts == 6


def test_end_of_input_leaves() -> None:
    script = Script([], limit=0)
    run(script)
    assert script.text.endswith("You leave the match.")


def test_card_not_in_hand_names_the_reason() -> None:
    script = Script(["AS", "quit"])  # seed 4000: seat 0 holds AH JS KD QH JD 9C
    run(script, seat=0, seed=4000)
    assert "Not allowed: you cannot play AS: not in hand" in script.text


def test_parse_command() -> None:
    assert parse_command("play KH") == Play(parse_card("KH"))
    assert parse_command("10h") == Play(parse_card("TH"))
    assert parse_command("K♥") == Play(parse_card("KH"))
    assert parse_command("marriage h") == Marriage(3)
    assert parse_command(" claim ") == Claim()
    assert parse_command("HELP") == "help" and parse_command("q") == "quit"
    with pytest.raises(InvalidNotationError):
        parse_command("")


def test_half_typed_commands_say_what_they_need() -> None:
    # (they all said "'marriage' is not a command", though it is one)
    for text, said in (
        ("marriage", "marriage needs one suit: for example 'marriage H'"),
        ("marriage H S", "marriage needs one suit"),
        ("play", "play needs one card: for example 'play TD'"),
        ("play td extra", "play needs one card"),
        ("close now", "'close' takes nothing after it"),
    ):
        with pytest.raises(InvalidNotationError, match=said):
            parse_command(text)


def test_the_engines_reasons_are_said_to_the_person() -> None:
    from tapete.terminal.common import to_person
    from tapete.terminal.mariage import YOURS

    def said(reason: str, seat: int) -> str:
        return to_person(reason, seat, YOURS)

    assert (
        said("seat 0 cannot declare the hearts marriage: does not hold both KH and QH", 0)
        == "you cannot declare the hearts marriage: you do not hold both KH and QH"
    )
    assert said("seat 1 cannot play 9S: must follow hearts (holds KH)", 1) == (
        "you cannot play 9S: must follow hearts (you hold KH)"
    )
    assert said("seat 0 cannot play 9S: has no hearts and must trump with clubs", 0).startswith(
        "you cannot play 9S: you have no hearts"
    )
    assert said("nobody can claim 66: the hand is over", 0) == (
        "nobody can claim 66: the hand is over"
    )


def test_hidden_points_hide_each_tricks_worth_too() -> None:
    shown, hidden = Script([]), Script([])
    run(shown, seat=1, show_points=True)
    run(hidden, seat=1, show_points=False)
    tricks = [ln for ln in hidden.lines if ln.startswith("trick: ")]
    assert tricks and not any("points)" in ln for ln in tricks)
    assert any(ln.startswith("trick: ") and ln.endswith(" points)") for ln in shown.lines)


def test_a_bare_word_that_is_not_a_card_is_told_the_ranks() -> None:
    # (docs/cli.md promised it, but 'ZZ' alone got "'ZZ' is not a command")
    script = Script(["ZZ", "1H", "dance", "quit"])
    run(script, seat=0, seed=4000)
    ranks = "(expected rank A T K Q J 9 8 7 then suit S C D H, e.g. 'KH'), nor a command"
    assert f"'ZZ' is not a card {ranks} (help lists them)" in script.lines
    assert f"'1H' is not a card {ranks} (help lists them)" in script.lines
    assert "'dance' is not a command (help lists them)" in script.lines


def test_the_computers_moves_are_said_as_sentences() -> None:
    # (they were command syntax: "The computer: play 9S")
    script = Script([])
    run(script)
    moves = [ln for ln in script.lines if ln.startswith("The computer")]
    assert moves and all(not ln.startswith("The computer:") for ln in moves)
    assert any(re.fullmatch(r"The computer plays [AKQJT987][SCDH]", ln) for ln in moves)
    from tapete.mariage.actions import CLOSE, EXCHANGE, MARRIAGES
    from tapete.terminal.mariage import _move

    assert _move(MARRIAGES[3]) == "shows the marriage in hearts ♥"
    assert _move(CLOSE) == "closes the stock"
    assert _move(EXCHANGE) == "exchanges the trump 7 for the indicator"


def test_an_output_that_cannot_show_the_symbols_gets_letters() -> None:
    # (PYTHONIOENCODING=latin-1: a UnicodeEncodeError at "trump spades ♠ · ...")
    from tapete.terminal.common import printer

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", newline="\n")
    script = Script([], limit=40)
    write = printer(stream)

    def output(text: str = "") -> None:
        write(text)
        script.output(text)  # (what the script answers from)

    play_match(0, FirstLegalBot, 3, True, input_fn=script.input, output_fn=output)
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "trump " in text and " - indicator " in text and " -> " in text
