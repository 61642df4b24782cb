"""The stronger computer players by name (``rules``, ``search``) and :func:`suggest`.

Every bot made here is wrapped in :class:`SafeBot`: if its decision raises, runs past its
hard time limit, or returns something that is not in ``view["legal"]``, the wrapper logs the
fault (``logging``, logger ``tapete.bots``) and plays the rules player's choice instead (or,
if that fails too, the first legal action). A bot never stalls a game.
"""

from __future__ import annotations

import importlib
import logging
import os
import random
import signal
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast

from tapete.bots.base import Bot, parse_action
from tapete.bots.reasons import Reason
from tapete.cards import shown
from tapete.game import JSON
from tapete.games import kind

__all__ = [
    "BotTimeout",
    "FaultCount",
    "GameBots",
    "SafeBot",
    "bot_options",
    "check_bot",
    "game_bots",
    "make_safe_bot",
    "make_strong_bot",
    "make_user_bot",
    "suggest",
]

log = logging.getLogger("tapete.bots")


class BotTimeout(Exception):
    """A decision ran past its hard time limit."""


class _WrongAnswer(ValueError):
    """A decision that is no legal action of the view (the wrapper's own check: its
    traceback would show only the wrapper, so the log gives the sentence alone)."""


def _checked_answer(game: str, action: object, legal: list[Any]) -> None:
    """Raise :class:`_WrongAnswer` unless ``action`` is an action object of ``game`` whose
    JSON is one of the view's ``legal`` entries. The entry itself (a dict) or None got
    "'dict' object has no attribute 'to_json'"; the sentence is ``game.apply``'s."""
    to_json = getattr(action, "to_json", None)
    if not callable(to_json):
        title = kind(game).title
        if isinstance(action, dict):
            raise _WrongAnswer(
                f"it returned {shown(action)}, not a {title} action object: to play an entry "
                "of the view's 'legal' list, return parse_action(view['game'], entry) "
                "(tapete.bots.parse_action)"
            )
        raise _WrongAnswer(
            f"it returned {shown(action)}, not a {title} action object (return "
            "tapete.bots.parse_action(view['game'], entry) for an entry of the view's 'legal' "
            "list)"
        )
    if to_json() not in legal:
        raise _WrongAnswer(f"{action} is not one of the legal actions")


class _Inner(Protocol):
    name: str

    def act(self, view: JSON, rng: random.Random) -> Any: ...


@contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`BotTimeout` in the calling code after ``seconds`` (main thread on Unix;
    elsewhere the bots' own time budgets are the only limit)."""
    usable = (
        seconds is not None
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert seconds is not None

    def _alarm(signum: int, frame: Any) -> None:
        raise BotTimeout(f"no decision within {seconds:.2f} s")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class GameBots(Protocol):
    """What a game's bot package (``kind(game).bots``, e.g. :mod:`tapete.bots.mil`) exports."""

    LEVELS: tuple[str, ...]
    #: level -> the options its players take
    OPTIONS: dict[str, tuple[str, ...]]

    def make_bot(self, level: str, profile: str | None = None, **options: Any) -> Any: ...

    def fallback(self, view: JSON, rng: random.Random) -> Any: ...


def game_bots(game: str) -> GameBots:
    """The bot package of ``game``, named by its registry entry (``ValueError`` for an
    unknown game)."""
    module: Any = importlib.import_module(kind(game).bots)
    return cast(GameBots, module)


def _fallback(game: str, view: JSON, rng: random.Random) -> Any:
    legal = view.get("legal") or []
    try:
        return game_bots(game).fallback(view, rng)
    except Exception:
        log.exception("the rules fallback failed too; playing the first legal action")
        return parse_action(game, legal[0])


class FaultCount:
    """The faults of one player over a run, shared by all the :class:`SafeBot` made for it:
    the arena and ``simulate`` make new bots for every game (and seat rotation), and a count
    of each bot's own faults logged a full traceback per game (58 in a run of 60 one-deal
    games), where the log is meant to hold one per run (:meth:`SafeBot._log_fault`)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def add(self) -> int:
        """Count one fault more; the count so far, this one included."""
        with self._lock:
            self.count += 1
            return self.count


class SafeBot:
    """Wraps a bot: faults and timeouts fall back to a legal action and are logged.

    One thread at a time: a bot keeps a memory between decisions (the Mariage tracker, the
    Mil search player's plan for its second gift), so each call holds the wrapper's lock and
    a second thread asking the same bot waits for the first (a server thread still thinking
    after its timeout, two hints at once for one seat) instead of mixing the two memories.

    ``faults`` counts this bot's own faults; ``fault_count`` (a :class:`FaultCount`, by
    default one of its own) is the count the log goes by, shared by the bots of one player
    over a run.
    """

    def __init__(
        self,
        game: str,
        inner: _Inner,
        *,
        hard_limit: float | None,
        name: str | None = None,
        fault_count: FaultCount | None = None,
    ) -> None:
        self.game = game
        self.inner = inner
        self.name: str = inner.name if name is None else name
        self.hard_limit = hard_limit
        self.faults = 0
        self.fault_count = FaultCount() if fault_count is None else fault_count
        self._lock = threading.RLock()

    def act(self, view: JSON, rng: random.Random) -> Any:
        legal = view.get("legal") or []
        if not legal:
            raise ValueError(f"seat {view.get('seat')} has no legal action in this view")
        with self._lock:
            return self._act(view, rng)

    def _act(self, view: JSON, rng: random.Random) -> Any:
        legal = view["legal"]
        try:
            with _deadline(self.hard_limit):
                action = self.inner.act(view, rng)
            _checked_answer(self.game, action, legal)
            return action
        except Exception as exc:
            self.faults += 1
            self._log_fault(view, exc, self.fault_count.add())
        return _fallback(self.game, view, rng)

    def _log_fault(self, view: JSON, exc: Exception, n: int) -> None:
        """The first fault in full (its traceback), then one line at the 10th, 100th, ...
        (``n``: the player's count over the run, :class:`FaultCount`): a bot that fails at
        every decision wrote a traceback each time, thousands in an arena (``faults`` counts
        them all; the arena's table says how many)."""
        if n == 1:
            log.warning(
                "bot %s (%s, seat %s) failed: %s; falling back to a legal action",
                self.name,
                self.game,
                view.get("seat"),
                exc,
                exc_info=not isinstance(exc, BotTimeout | _WrongAnswer),
            )
        elif n == 10 ** (len(str(n)) - 1):  # (10, 100, 1000, ...)
            log.warning(
                "bot %s (%s) has failed %d times, the last: %s; each time a legal action "
                "was played instead",
                self.name,
                self.game,
                n,
                exc,
            )

    def explain(self, view: JSON, rng: random.Random) -> tuple[Any, Reason]:
        """The inner bot's action and :class:`Reason`; on a fault or timeout, a legal action
        and the reason ``safe_legal``."""
        with self._lock:
            return self._explain(view, rng)

    def _explain(self, view: JSON, rng: random.Random) -> tuple[Any, Reason]:
        fn: Callable[[JSON, random.Random], tuple[Any, Reason]] | None = getattr(
            self.inner, "explain", None
        )
        try:
            if fn is None:
                raise AttributeError("no explain")
            with _deadline(self.hard_limit):
                action, reason = fn(view, rng)
            if not isinstance(reason, Reason):
                raise TypeError(f"{reason!r} is not a Reason")
            _checked_answer(self.game, action, view.get("legal") or [])
            return action, reason
        except Exception as exc:
            log.warning("suggestion by %s failed: %s", self.name, exc)
        return self.act(view, rng), Reason("safe_legal")

    @property
    def remember(self) -> Callable[[JSON], None] | None:
        """The inner bot's ``remember(view)``, or None when it has no memory to rebuild."""
        fn: Callable[[JSON], None] | None = getattr(self.inner, "remember", None)
        if fn is None:
            return None
        inner_remember = fn

        def remember(view: JSON) -> None:
            with self._lock:
                inner_remember(view)

        return remember


#: the option of every bot that :class:`SafeBot` wraps: seconds before it gives up
_SAFE_OPTIONS = ("hard_limit",)


def bot_options(game: str, name: str) -> tuple[str, ...]:
    """The options :func:`tapete.bots.make_bot` takes for the bot ``name`` of ``game``
    (``random`` takes none); ``ValueError`` for an unknown game or bot."""
    if name == "random":
        kind(game)  # (a known game all the same)
        return ()
    levels = game_bots(game).OPTIONS
    if name not in levels:
        raise ValueError(
            f"unknown bot {name!r} for {game} (expected one of: random, {', '.join(levels)})"
        )
    return (*levels[name], *_SAFE_OPTIONS)


def check_bot(game: str, name: str, profile: str | None, options: dict[str, Any]) -> None:
    """Refuse (``ValueError``) a bot that would be built with a profile its game does not
    have or with options it does not take, naming the accepted ones: a misspelt option
    (``sampels=3``) was ignored, and the bot played with its defaults."""
    accepted = bot_options(game, name)
    profiles = kind(game).profiles
    if profile is not None and profile not in profiles:
        raise ValueError(
            f"unknown profile {profile!r} for {game} (expected one of: {', '.join(profiles)})"
        )
    unknown = [key for key in options if key not in accepted]
    if unknown:
        takes = f"it takes {', '.join(accepted)}" if accepted else "it takes none"
        raise ValueError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for the "
            f"{game} {name} bot ({takes})"
        )


#: the longest a bot of your own may think over one decision before a legal action is played
#: for it (a fault): a bot that never answered held the whole arena
USER_BOT_LIMIT_S = 30.0


def make_user_bot(game: str, spec: str, *, fault_count: FaultCount | None = None) -> SafeBot:
    """The bot a ``module:name`` player names (``mybots:HighCardBot``, as ``tapete arena
    --players`` takes it): ``module`` is imported (from the current folder too, as
    ``python -m`` would), and ``name``, a class or a function, is called with no argument;
    what it returns must have ``act(view, rng)``. It is wrapped in :class:`SafeBot`, as the
    built-in players are: a fault, an illegal action or a decision longer than
    :data:`USER_BOT_LIMIT_S` falls back to a legal one and counts in ``faults`` (and in
    ``fault_count``, shared by the player's bots over a run: :class:`FaultCount`).
    ``ValueError`` with a sentence when the player cannot be made."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr or ":" in attr:
        raise ValueError(f"player {spec!r} must be module:name (e.g. mybots:HighCardBot)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # (a missing module, or one whose code fails as it loads)
        raise ValueError(f"player {spec!r}: cannot import {module_name}: {exc}") from None
    if not hasattr(module, attr):
        raise ValueError(f"player {spec!r}: {module_name} has no {attr}")
    factory = getattr(module, attr)
    if not callable(factory):
        raise ValueError(f"player {spec!r}: {module_name}.{attr} is not a class or a function")
    try:
        bot = factory()
    except Exception as exc:
        raise ValueError(f"player {spec!r}: {attr}() failed: {exc}") from None
    if not callable(getattr(bot, "act", None)):
        raise ValueError(f"player {spec!r}: {attr}() gave no bot (it has no act(view, rng))")
    return SafeBot(game, bot, hard_limit=USER_BOT_LIMIT_S, name=spec, fault_count=fault_count)


def make_strong_bot(game: str, name: str, *, profile: str | None = None, **options: Any) -> Bot:
    """The ``rules`` or ``search`` player of ``game`` (see :func:`make_safe_bot`)."""
    return make_safe_bot(game, name, profile=profile, **options)


def make_safe_bot(game: str, name: str, *, profile: str | None = None, **options: Any) -> SafeBot:
    """The ``rules`` or ``search`` player of ``game`` (any registered game: its bot package
    is ``kind(game).bots``), wrapped in :class:`SafeBot`.

    Options (:func:`bot_options`; ``ValueError`` for another option or an unknown profile):
    ``budget`` (seconds per decision for ``search``), ``samples`` (hidden deals per
    decision), ``hard_limit`` (seconds before the wrapper gives up; default 4 x the bot's
    budget + 1, with 0.5 s standing in for the budget of a bot without one).
    ``fault_count``: the count of faults its log goes by (:class:`FaultCount`; default:
    the bot's own).
    """
    fault_count: FaultCount | None = options.pop("fault_count", None)
    check_bot(game, name, profile, options)
    inner: _Inner = game_bots(game).make_bot(name, profile, **options)
    budget = float(getattr(inner, "budget", 0.5))
    hard = options.get("hard_limit", 4 * budget + 1.0)
    return SafeBot(
        game, inner, hard_limit=None if hard is None else float(hard), fault_count=fault_count
    )


#: one suggesting bot per (game, table, seat), least recently used first: a Mariage bot
#: remembers the tricks it saw, so two tables must never share one
_SUGGESTERS: OrderedDict[tuple[Any, ...], SafeBot] = OrderedDict()
_SUGGESTERS_MAX = 256
_SUGGESTERS_LOCK = threading.Lock()


def _suggester(game: str, view: JSON, key: Hashable | None, **options: Any) -> SafeBot:
    table = ("players", tuple(view.get("players") or ())) if key is None else ("key", key)
    k = (game, view.get("profile"), table, view.get("seat"))
    with _SUGGESTERS_LOCK:
        bot = _SUGGESTERS.get(k)
        if bot is not None:
            _SUGGESTERS.move_to_end(k)
            return bot
        bot = make_safe_bot(game, "search", profile=view.get("profile"), **options)
        _SUGGESTERS[k] = bot
        while len(_SUGGESTERS) > _SUGGESTERS_MAX:
            _SUGGESTERS.popitem(last=False)
        return bot


def suggest(
    game: str, view: JSON, *, key: Hashable | None = None, **options: Any
) -> tuple[Any, Reason]:
    """The ``search`` player's action for ``view`` and why (:class:`Reason`: ``str()`` is a
    one-line English sentence for a person, ``key`` and ``wire_args()`` its neutral form).

    ``key`` (any hashable, e.g. the table id) names the table asking: the suggesting bot is
    kept per (game, profile, key, seat), so tables never share one. Without it the players'
    names stand in for the table (two tables with the same names would share a bot). The
    bot serves one thread at a time (see :class:`SafeBot`). ``options`` (``budget``,
    ``samples``, ...) go to :func:`make_safe_bot` when the table's bot is first made.
    """
    bot = _suggester(game, view, key, **options)
    seed = hash((view.get("seat"), view.get("deal_number"), len(view.get("legal") or ()))) & 0xFFFF
    t0 = time.perf_counter()
    action, reason = bot.explain(view, random.Random(seed))
    log.debug("suggestion in %.0f ms", 1000 * (time.perf_counter() - t0))
    return action, reason
