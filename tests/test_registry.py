"""The game registry: every registered kind is complete and consistent with its engine, and
generic code (outside the game packages and games.py) names no game.

A module that belongs to one game may know its own name: a path with a folder or a file
named after a registered game (``mil/``, ``mariage/``, ``terminal/mil.py``, ``bots/mariage/``)
is the game's, as is ``games.py``, the registry itself. Everything else reads the kinds.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import random
import re
from pathlib import Path

import pytest

import tapete
from tapete.analysis.core import LABELS, GameAnalysis
from tapete.errors import RecordError
from tapete.game import GameKind
from tapete.games import game_from_record, kind, kinds, new_game

#: the package as imported (the worktree's src/tapete, or an installed copy)
SRC = Path(tapete.__file__).resolve().parent
NAMES = frozenset(k.name for k in kinds())
#: the issue's bound: "at most 3 comparisons against game names remain outside the registry
#: and the game packages"
MAX_GAME_NAMES = 3


def _generic(path: Path) -> bool:
    """Whether ``path`` (a source file under src/tapete) is generic code."""
    rel = path.relative_to(SRC)
    if rel == Path("games.py"):
        return False
    return not any(part in NAMES for part in (*rel.parts[:-1], rel.stem))


def _python_literals(path: Path) -> list[int]:
    """Lines of the string constants in a Python file that are a game's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES
    ]


_JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _js_literals(path: Path) -> list[int]:
    """Lines of the string literals in a JavaScript file that are a game's name ("mil",
    'mil' or `mil`; comments are skipped)."""
    text = path.read_text(encoding="utf-8")
    # blank the comments out, keeping the line breaks, so that line numbers stay right
    text = _JS_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    names = "|".join(map(re.escape, sorted(NAMES)))
    found = re.finditer(rf"([\"'`])({names})\1", text)
    return [text.count("\n", 0, m.start()) + 1 for m in found]


def game_name_literals() -> list[str]:
    """``file:line: 'name'`` for every game name written in generic code."""
    out = []
    for path in sorted(SRC.rglob("*")):
        if path.suffix not in (".py", ".js") or not _generic(path):
            continue
        lines = _python_literals(path) if path.suffix == ".py" else _js_literals(path)
        out += [f"{path.relative_to(SRC.parent)}:{n}" for n in sorted(lines)]
    return out


def test_the_scan_finds_a_game_name_in_either_language(tmp_path: Path) -> None:
    name = sorted(NAMES)[0]
    py = tmp_path / "x.py"
    py.write_text(f'"""Docs that say {name!r} are not code."""\nif g == {name!r}:\n    pass\n')
    js = tmp_path / "x.js"
    js.write_text(f'// "{name}" in a comment\nconst a = v.game === "{name}";\nb = `{name}`;\n')
    assert _python_literals(py) == [2]
    assert _js_literals(js) == [2, 3]


def test_generic_code_names_at_most_three_games() -> None:
    assert (SRC / "games.py").is_file() and (SRC / "web").is_dir()  # scanning the real tree
    found = game_name_literals()
    assert len(found) <= MAX_GAME_NAMES, (
        f"{len(found)} game names in generic code (at most {MAX_GAME_NAMES}); read the game's "
        "kind (tapete.games.kind) instead:\n" + "\n".join(found)
    )


# ---------------------------------------------------------------- the kinds themselves
@pytest.mark.parametrize("k", kinds(), ids=lambda k: k.name)
def test_every_kind_builds_its_games_with_its_seats_and_targets(k: GameKind) -> None:
    assert k.profiles and set(k.targets) == set(k.profiles), "every profile has a target"
    assert len(k.default_players) == k.seats and k.max_deals >= 1
    for profile in k.profiles:
        assert isinstance(k.targets[profile], int) and k.targets[profile] > 0
        game = k.new(profile, seed=5)
        assert (game.name, game.profile_name) == (k.name, profile)
        assert len(game.players) == k.seats == len(game.scores)
        assert game.players == list(k.default_players)
        view = game.view(None)
        assert view["target"] == k.target(profile)
        assert view[k.score_key] == game.scores
        assert game.to_record()[k.score_key] == game.scores
    assert k.target() == k.targets[k.profiles[0]]
    assert kind(k.name) is k


@pytest.mark.parametrize("k", kinds(), ids=lambda k: k.name)
def test_every_kind_parses_and_replays_its_own_games(k: GameKind) -> None:
    game = k.new(seed=7, max_deals=2)
    rng = random.Random(3)
    while not game.over:
        actions = game.legal_actions()
        action = rng.choice(actions)
        assert k.parse_action(action.to_json()) == action
        game.apply(action)
    record = game.to_record()
    assert len(game.finished_deals) == len(record["deals"]) == 2
    assert k.replay(record, check_results=True).to_record() == record
    assert game_from_record(record).to_record() == record


def test_an_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ValueError) as exc:
        kind("nope")
    message = str(exc.value)
    assert "unknown game 'nope'" in message
    assert all(k.name in message for k in kinds())
    with pytest.raises(ValueError, match="unknown profile"):
        kinds()[0].new("nope")


@pytest.mark.parametrize("k", kinds(), ids=lambda k: k.name)
@pytest.mark.parametrize("seed", ["abc", 1.5, True, 7.0, b"7"])
def test_a_seed_a_record_cannot_hold_is_refused_in_the_record_readers_words(
    k: GameKind, seed: object
) -> None:
    # (new_game(seed="abc") played, and its record did not replay: "seed must be ...")
    with pytest.raises(ValueError) as exc:
        new_game(k.name, seed=seed)  # type: ignore[arg-type]
    assert str(exc.value) == f"seed must be an integer or null, got {seed!r}"
    record = new_game(k.name, seed=7).to_record()
    record["seed"] = "abc"
    with pytest.raises(RecordError, match="seed must be an integer or null, got 'abc'"):
        game_from_record(record)
    for good in (None, 0, 2**70):
        assert game_from_record(new_game(k.name, seed=good).to_record()).seed == good
    # (new_game refuses a negative seed, which deals as its positive; the game classes take
    # one, so that a record written with one before still replays)
    assert game_from_record(k.new(seed=-3).to_record()).seed == -3


# ---------------------------------------------------------------- front-ends found by kind
@pytest.mark.parametrize("k", kinds(), ids=lambda k: k.name)
def test_every_kind_has_a_terminal_with_the_shared_entry_point(k: GameKind) -> None:
    def shape(module: object) -> list[tuple[str, object, object]]:
        signature = inspect.signature(module.play_terminal)  # type: ignore[attr-defined]
        return [(p.name, p.kind, p.default) for p in signature.parameters.values()]

    terminal = importlib.import_module(k.terminal)
    reference = shape(importlib.import_module(kinds()[0].terminal))
    assert shape(terminal) == reference
    optional = {name for name, _, _ in reference[3:]}
    assert terminal.OPTIONS.issubset(optional)

    def leave(_prompt: str) -> str:
        raise EOFError  # the person closes the input at the first prompt

    out: list[str] = []
    code = terminal.play_terminal(k.profiles[0], "random", 1, input_fn=leave, output_fn=out.append)
    assert code == 0
    assert "seed 1" in out[0]


@pytest.mark.parametrize("k", kinds(), ids=lambda k: k.name)
def test_every_kind_has_an_analysis_module_with_the_shared_hooks(k: GameKind) -> None:
    module = importlib.import_module(k.analysis)
    hooks = [name for name in vars(GameAnalysis) if not name.startswith("_")]
    assert hooks and all(hasattr(module, name) for name in hooks)
    assert len(module.THRESHOLDS) == len(LABELS)
    assert list(module.THRESHOLDS) == sorted(module.THRESHOLDS) and module.THRESHOLDS[0] > 0
    assert 0 < module.LEAST < module.THRESHOLDS[0]
    assert module.amount(2.0).startswith("about 2")
