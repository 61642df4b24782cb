"""What the terminals share: output fitted to its encoding, the engine's sentences said to
the person."""

from __future__ import annotations

import io

from tapete.cards import MARIAGE_DECK, MIL_DECK
from tapete.terminal.common import fit, not_understood, printer, to_person


def test_symbols_an_encoding_cannot_show_fall_back_to_letters_and_ascii() -> None:
    assert fit("10♥ K♠ Q♦ 9♣ · → ok", "latin-1") == "10H KS QD 9C · -> ok"
    assert fit("10♥ · →", "ascii") == "10H - ->"
    assert fit("10♥ · →", "cp1252") == "10H · ->"  # (cp1252 has the middle dot)
    assert fit("10♥ · →", "utf-8") == "10♥ · →"
    assert fit("Ana 🙂 10♥", "latin-1") == "Ana ? 10H"  # (no letter for it: a '?')
    assert fit("10♥", None) == "10♥"  # (a list in a test: nothing to fit)
    assert fit("10♥ é", "no-such-encoding") == "10H ?"


def test_the_printer_writes_lines_the_stream_can_encode() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="latin-1", newline="\n")
    out = printer(stream)
    out("your hand: A♥ 10♥")
    out("trump spades ♠ · stock 10 cards")
    stream.flush()
    assert raw.getvalue() == b"your hand: AH 10H\ntrump spades S \xb7 stock 10 cards\n"


def test_the_engines_sentences_about_seats_are_said_to_the_person() -> None:
    yours = (("its hand", "your hand"), ("you enters", "you enter"))
    theirs = (("its contract", "the contract"),)
    names = ["Ana", "Bruno", "Carla"]
    assert to_person("seat 0 cannot play JD: JD is not in its hand", 0, yours) == (
        "you cannot play JD: JD is not in your hand"
    )
    assert to_person("seat 0 enters the barrel", 0, yours, names=names) == "you enter the barrel"
    assert to_person("seat 2 enters the barrel", 0, yours, names=names) == "Carla enters the barrel"
    assert to_person("seat 1 fails its contract", 0, yours, names=names, theirs=theirs) == (
        "Bruno fails the contract"
    )
    # (a sentence about seat 1 said at seat 0: not "you"; seat 10 is not seat 1)
    assert to_person("seat 10 x", 1, yours) == "seat 10 x"
    assert to_person("the next card goes to seat 2", 0, yours, names=names) == (
        "the next card goes to Carla"
    )


def test_a_huge_line_is_not_echoed_whole() -> None:
    # (a pasted page, 100,000 characters, was said back whole: "'xxx...x' is not a command")
    for deck in (MIL_DECK, MARIAGE_DECK):
        said = not_understood("x" * 100_000, deck)
        assert said.startswith("'xxx") and said.endswith("... is not a command (help lists them)")
        assert len(said) < 300
    assert not_understood("dance", MIL_DECK) == "'dance' is not a command (help lists them)"
