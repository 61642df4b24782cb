"""docs/bots.md, "Write your own bot": its code runs as written, through the documented
interface only (a seat's view, its legal entries, ``parse_action``), and its duplicate loop
serves both games."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tapete.bots import make_bot
from tapete.games import new_game

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bots.md"
SECTION = "## Write your own bot"


def _example() -> str:
    """The section's Python blocks, in order, as one program."""
    text = PAGE.read_text(encoding="utf-8")
    assert SECTION in text, f"{PAGE} has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the bot, then the duplicate match"
    return "\n".join(blocks)


@pytest.fixture(scope="module")
def example() -> dict[str, Any]:
    """The names the page's code defines, once it ran (it prints the Mil match)."""
    names: dict[str, Any] = {"__name__": "bots_md"}
    exec(compile(_example(), str(PAGE), "exec"), names)
    return names


def test_the_pages_mil_match_runs_and_scores_every_player(example: dict[str, Any]) -> None:
    totals = example["duplicate"]("mil", "club", example["players"], seed=2, max_deals=2)
    assert set(totals) == {"highcard", "rules", "random"}
    assert all(isinstance(points, int | float) for points in totals.values())
    assert totals != dict.fromkeys(totals, 0), "deals were played and scored"


def test_the_pages_bot_and_loop_play_mariage_too(example: dict[str, Any]) -> None:
    players = {
        "highcard": example["HighCardBot"],
        "rules": lambda: make_bot("mariage", "rules", profile="mariage"),
    }
    totals = example["duplicate"]("mariage", "mariage", players, seed=3, max_deals=2)
    assert set(totals) == {"highcard", "rules"} and sum(totals.values()) > 0


def test_the_pages_bot_never_concedes_nor_asks_for_a_redeal(example: dict[str, Any]) -> None:
    """As a Mil declarer it took ``legal[0]``, which is ``rospis`` where conceding is
    allowed (club): it conceded every contract it won ("decl ok 0.000 0/16" in the page's
    arena run). Played in every seat of club deals, it gives, fixes a contract and plays."""
    bot = example["HighCardBot"]()
    chosen = []
    for seed in range(40):
        game: Any = new_game("mil", "club", seed=seed, max_deals=1)
        while not game.over:
            view = game.view(game.turn)
            action = bot.act(view, random.Random(seed))
            types = {entry["type"] for entry in view["legal"]}
            if types & {"rospis", "redeal"}:
                chosen.append(action.to_json()["type"])
            game.apply(action)
    assert chosen and "give" in chosen and "keep" in chosen, chosen
    assert not {"rospis", "redeal"} & set(chosen), chosen
