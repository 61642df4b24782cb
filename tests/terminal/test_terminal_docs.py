"""The terminal's messages that docs/cli.md quotes ("play") are the ones the program prints.

The section said Mil's "not in your hand" had "the same form as in Mariage", which says
"not in hand", and quoted bare 'ZZ' without the ", nor a command (help lists them)" it
gets: each quote here is looked up in the section and in what the terminal writes for the
lines typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from terminal_helpers import scripted

from tapete.terminal import mariage, mil

CLI_MD = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

#: the moves that take Mil's seed 1 (club, rules players) to the person's first card
_TO_THE_PLAY = ["bid 120", "give QS 1", "give 9H 2", "contract 120"]

#: (game, seed, lines typed, a quote of docs/cli.md's "play"; "..." in it stands for text
#: the section leaves out)
QUOTES = [
    ("mil", 1, [*_TO_THE_PLAY, "play JD"],
     "Not allowed: you cannot play JD: JD is not in your hand (you hold AH, TH, ...)"),
    ("mil", 1, ["bid 120", "give JD 1"],
     "Not allowed: you cannot give JD 1: JD is not in your hand (you hold AH, TH, ...)"),
    ("mariage", 4000, ["AS"], "Not allowed: you cannot play AS: not in hand"),
    ("mil", 1, ["bid 120", "redeal"],
     "Not allowed: you cannot redeal: no redeal is possible now"),
    ("mil", 1, ["bid 9999999999"], "9999999999 is too large for a bid"),
    ("mil", 1, ["bid 100 200"], "bid takes one number: for example 'bid 120'"),
    ("mil", 1, [*_TO_THE_PLAY, "play KC marriage extra"],
     "nothing may follow 'play KC marriage', not 'extra'"),
    ("mil", 1, ["give 9H 3"], "give goes to seat 1 or 2, not 3"),
    ("mil", 1, ["play ZZ"],
     "'ZZ' is not a card (expected rank A T K Q J 9 then suit S C D H, e.g. 'KH')"),
    ("mil", 1, ["ZZ"],
     "'ZZ' is not a card (expected rank A T K Q J 9 then suit S C D H, e.g. 'KH'), "
     "nor a command (help lists them)"),
    ("mariage", 4000, ["ZZ"], "A T K Q J 9 8 7"),
    ("mil", 1, ["dance"], "'dance' is not a command (help lists them)"),
    ("mil", 1, [f"bid {'9' * 6000}"], "... is too large for a bid"),
    ("mil", 1, ["pass"], "Bruno bids 100"),
    ("mil", 1, ["pass"], "Carla passes"),
    ("mil", 1, ["pass"], "Bruno gives you 9♠"),
    ("mil", 1, ["pass"], "Bruno gives Carla a card"),
    ("mil", 1, ["pass"], "Bruno fixes the contract at 105"),
    ("mil", 1, ["pass"], "Bruno plays A♦"),
    ("mariage", 4039, ["AS"], "The computer plays 9S"),
]  # fmt: skip

TERMINALS: dict[str, Callable[..., int]] = {
    "mil": lambda seed, **io: mil.play_terminal("club", "rules", seed, **io),
    "mariage": lambda seed, **io: mariage.play_terminal("mariage", "rules", seed, **io),
}


def _play_section() -> str:
    """docs/cli.md's "play", its runs of spaces and line ends one space (a quote may wrap)."""
    text = CLI_MD.read_text(encoding="utf-8")
    section = text[text.index("\n## play\n") :]
    section = section[: section.index("\n## ", 1)]
    return " ".join(section.split())


def _written(game: str, seed: int, typed: list[str]) -> list[str]:
    """What the terminal of ``game`` writes for ``typed``, then the end of input."""
    out: list[str] = []
    TERMINALS[game](seed, input_fn=scripted(typed), output_fn=out.append)
    return [line for text in out for line in text.splitlines()]


@pytest.mark.parametrize(("game", "seed", "typed", "quote"), QUOTES)
def test_a_message_the_docs_quote_is_the_one_printed(
    game: str, seed: int, typed: list[str], quote: str
) -> None:
    assert f"`{quote}`" in _play_section(), f"docs/cli.md no longer quotes {quote!r}"
    pattern = ".*".join(map(re.escape, quote.split("...")))
    written = _written(game, seed, typed)
    assert any(re.search(pattern, line) for line in written), (quote, written[-5:])
