"""Mil in the terminal, driven by scripted input."""

from __future__ import annotations

import random

from tapete.terminal_mil import parse_command, play_mil_terminal


def _scripted(rng: random.Random, out: list[str], limit: int):  # type: ignore[no-untyped-def]
    def answer(_prompt: str) -> str:
        if len(out) > limit:
            return "quit"
        for line in reversed(out):
            if line.startswith("legal: "):
                choice = rng.choice(line[len("legal: ") :].split(", "))
                return choice.replace("redeal (", "redeal ").rstrip(")")
        return "quit"

    return answer


def test_a_person_plays_whole_deals_against_the_computer() -> None:
    out: list[str] = []
    answer = _scripted(random.Random(1), out, 1500)
    assert play_mil_terminal("club", "random", 4, input_fn=answer, output_fn=out.append) == 0
    text = "\n".join(out)
    assert "deal 1 over" in text and "your hand:" in text and "scores:" in text


def test_illegal_input_reprompts_with_the_reason() -> None:
    script = iter(["bid 500", "dance", "help", "quit"])
    out: list[str] = []
    play_mil_terminal("casa", "random", 2, input_fn=lambda _p: next(script), output_fn=out.append)
    text = "\n".join(out)
    assert "I did not understand" in text
    assert "commands:" in text
    assert "not allowed: seat 0 cannot" in text or "not allowed" in text


def test_given_cards_of_the_opponents_stay_hidden() -> None:
    out: list[str] = []
    answer = _scripted(random.Random(7), out, 3000)
    play_mil_terminal("club", "random", 9, input_fn=answer, output_fn=out.append)
    gives = [ln for ln in out if ": give " in ln and not ln.startswith("legal")]
    assert gives
    for line in gives:
        to = line.rsplit(" ", 1)[1]
        assert ("??" in line) == (to != "0"), line


def test_parse_command_announces_automatically_when_the_only_choice() -> None:
    legal = [{"type": "play", "card": "KH", "marriage": True}]
    assert parse_command("play kh", legal) == {"type": "play", "card": "KH", "marriage": True}
    assert parse_command("give 9c 2", []) == {"type": "give", "card": "9C", "to": 2}
    assert parse_command("bid 120", []) == {"type": "bid", "value": 120}
