"""Play Mariage in a terminal: one person against the computer.

``tapete play mariage`` (src/tapete/cli/play.py) calls :func:`play_terminal`; :func:`play_match`
takes any bot and either seat. Input and output go through ``input_fn``/``output_fn`` so that
tests can script a whole match.

Commands: ``play KH`` (or just ``KH``), ``exchange``, ``marriage H``, ``close``, ``claim``,
``decline`` (only after the last trick of a closed hand), ``help``, ``quit``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from tapete.bots import make_bot
from tapete.cards import (
    CARD_NAMES,
    MARIAGE_DECK,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUITS,
    InvalidNotationError,
    Suit,
    card_points,
    parse_card,
    parse_suit,
)
from tapete.errors import IllegalActionError
from tapete.game import JSON
from tapete.mariage.actions import (
    CLAIM,
    CLOSE,
    DECLINE,
    EXCHANGE,
    MARRIAGES,
    PLAYS,
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    action_from_json,
)
from tapete.mariage.game import TARGET, MariageGame
from tapete.mariage.kind import KIND
from tapete.mariage.state import Reason, State
from tapete.terminal.common import not_understood, say, to_person

__all__ = ["HELP", "OPTIONS", "TerminalBot", "parse_command", "play_match", "play_terminal"]

#: the optional arguments of :func:`play_terminal` this front-end honours
OPTIONS = frozenset({"show_points"})

SUIT_WORDS = tuple(f"{SUIT_NAMES[s]} {Suit(s).symbol}" for s in SUITS)

HELP = """Commands:
  play KH       play a card (or just type KH; 10H and K♥ work too)
  exchange      swap the trump 7 for the face-up indicator (after winning a trick)
  marriage H    show king and queen of a suit (20, or 40 in trumps), then lead one or claim
  close         close the stock: you must then reach 66 and claim
  claim         claim 66 (a false claim loses the hand)
  decline       after the last trick of a closed hand: do not claim
  help          this list
  quit          leave the match
Cards: rank A T K Q J 9 8 7 then suit S C D H (spades, clubs, diamonds, hearts)."""


class TerminalBot(Protocol):
    """What :func:`play_terminal` needs from a bot: an action (or its JSON) from a view."""

    def act(self, view: JSON, rng: random.Random) -> Any: ...


class _Quit(Exception):
    pass


def parse_command(text: str) -> Action | str:
    """A typed command as an action, or ``"help"``/``"quit"``; raises InvalidNotationError."""
    words = text.strip().split()
    if not words:
        raise InvalidNotationError("type a command (help lists them)")
    verb = words[0].lower()
    if verb in ("help", "?", "h"):
        return "help"
    if verb in ("quit", "exit", "q"):
        return "quit"
    simple: dict[str, Action] = {
        "exchange": EXCHANGE,
        "close": CLOSE,
        "claim": CLAIM,
        "decline": DECLINE,
    }
    if verb in simple:
        if len(words) == 1:
            return simple[verb]
        raise InvalidNotationError(f"'{verb}' takes nothing after it: type just '{verb}'")
    if verb == "play" and len(words) == 2:
        return PLAYS[parse_card(words[1])]
    if verb == "play":
        raise InvalidNotationError("play needs one card: for example 'play TD' (ten of diamonds)")
    if verb == "marriage" and len(words) == 2:
        return MARRIAGES[parse_suit(words[1])]
    if verb == "marriage":
        raise InvalidNotationError("marriage needs one suit: for example 'marriage H' (hearts)")
    if len(words) == 1:
        try:
            return PLAYS[parse_card(words[0])]
        except InvalidNotationError:
            pass
    raise InvalidNotationError(not_understood(text, MARIAGE_DECK))


def _move(a: Action) -> str:
    """What the computer did, said at the table: ``plays 9S``, ``closes the stock``."""
    if isinstance(a, Play):
        return f"plays {CARD_NAMES[a.card]}"
    if isinstance(a, Marriage):
        return f"shows the marriage in {SUIT_WORDS[a.suit]}"
    if isinstance(a, Exchange):
        return "exchanges the trump 7 for the indicator"
    if isinstance(a, Close):
        return "closes the stock"
    if isinstance(a, Claim):
        return "claims 66"
    return "does not claim"  # (Decline)


def _command(a: Action) -> str:
    if isinstance(a, Play):
        return f"play {CARD_NAMES[a.card]}"
    if isinstance(a, Marriage):
        return f"marriage {SUIT_LETTERS[a.suit]}"
    return str(a)


class _Table:
    def __init__(self, game: MariageGame, seat: int, show_points: bool, out: Callable[[str], Any]):
        self.game = game
        self.seat = seat
        self.show_points = show_points
        self.out = out

    def who(self, s: int) -> str:
        return "you" if s == self.seat else "the computer"

    def verb(self, s: int, verb: str) -> str:
        """``verb`` agreeing with :meth:`who` (take / takes)."""
        return verb if s == self.seat else verb + "s"

    def score_line(self) -> str:
        m = self.game.match
        return f"match: you {m[self.seat]}, computer {m[1 - self.seat]} (first to {TARGET})"

    def new_hand(self) -> None:
        st = self.game.state
        self.out("")
        self.out(
            f"== Hand {self.game.deal_number} · {self.who(st.dealer)} deal"
            f"{'' if st.dealer == self.seat else 's'} · {self.score_line()}"
        )

    def status(self) -> None:
        st = self.game.state
        me, other = self.seat, 1 - self.seat
        trump = f"trump {SUIT_WORDS[st.trump]}"
        if st.indicator is not None:
            stock = f"indicator {CARD_NAMES[st.indicator]}, stock {st.stock_count} cards"
        elif st.closed:
            stock = f"stock closed by {self.who(st.closed_by or 0)}"
        else:
            stock = "stock exhausted"
        self.out(f"{trump} · {stock}")
        tricks = f"tricks: you {st.tricks[me]}, computer {st.tricks[other]}"
        if self.show_points:
            self.out(f"points: you {st.points[me]}, computer {st.points[other]} · {tricks}")
        else:
            self.out(tricks)
        for ms, su, value in st.marriages:
            self.out(f"marriage: {self.who(ms)} {value} in {SUIT_WORDS[su]}")
        if st.lead_card is not None:
            self.out(f"on the table: {self.who(st.leader)} led {CARD_NAMES[st.lead_card]}")
        hand = " ".join(CARD_NAMES[c] for c in sorted(st.hand_cards(me), key=_hand_order))
        self.out(f"your hand: {hand or '(empty)'}")
        legal = " | ".join(_command(a) for a in st.legal_actions())
        self.out(f"you may: {legal}")

    def after(self, st: State, trick_before: object, actor: int, action: Action) -> None:
        """Report what ``action`` (already applied to ``st``) did."""
        if isinstance(action, Exchange):  # either player: the indicator changed
            who = self.who(actor).capitalize()
            self.out(
                f"{who} {self.verb(actor, 'exchange')}: the indicator is now "
                f"{CARD_NAMES[st.stock[-1]]}"
            )
        elif actor != self.seat:
            self.out(f"The computer {_move(action)}")
        if st.last_trick is not trick_before and st.last_trick is not None:
            leader, lead, follow, winner = st.last_trick
            pts = card_points(lead) + card_points(follow)
            # with the points hidden, counting them (trick by trick too) is the player's job
            worth = f" ({pts} points)" if self.show_points else ""
            self.out(
                f"trick: {self.who(leader)} {CARD_NAMES[lead]}, {self.who(1 - leader)} "
                f"{CARD_NAMES[follow]} → {self.who(winner)} {self.verb(winner, 'take')} it"
                f"{worth}"
            )
        if st.done:
            self.result(st)

    def result(self, st: State) -> None:
        r = st.result
        assert r is not None
        pts = (
            f" (points: you {r.points[self.seat]}, computer {r.points[1 - self.seat]})"
            if self.show_points
            else ""
        )
        why = {
            Reason.CLAIM: "a correct claim of 66",
            Reason.FALSE_CLAIM: "a false claim",
            Reason.CLOSER_FAILED: "the closer failed",
            Reason.OPPONENT_CLAIMED_AFTER_CLOSE: "the closer's opponent claimed first",
            Reason.EXHAUSTED: "the cards ran out (+10 for the last trick)",
            Reason.TIE: "the cards ran out with equal points",
        }[r.reason]
        if r.winner is None:
            self.out(f"Hand over: {why}: nobody scores{pts}.")
        else:
            gp = r.game_points
            self.out(
                f"Hand over: {why}: {self.who(r.winner)} {self.verb(r.winner, 'score')} "
                f"{gp} game point{'s' if gp > 1 else ''}{pts}."
            )
        self.out(self.score_line())


def _hand_order(c: int) -> tuple[int, int]:
    return (c >> 3, -(c & 7))


def play_terminal(
    profile: str,
    level: str,
    seed: int,
    *,
    name: str = "You",
    show_points: bool = True,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = say,
) -> int:
    """Play a Mariage match at seat 0 against the ``level`` computer player; returns the exit
    code. ``profile`` is Mariage's one rule set; ``name`` is not an option here (the table
    says "you" and "the computer")."""
    if profile not in KIND.profiles:
        raise ValueError(
            f"unknown profile {profile!r} for {KIND.name} (expected one of: "
            f"{', '.join(KIND.profiles)})"
        )
    play_match(
        0,
        lambda: make_bot(KIND.name, level),
        seed,
        show_points,
        input_fn=input_fn,
        output_fn=output_fn,
    )
    return 0


def play_match(
    seat: int,
    bot_factory: Callable[[], TerminalBot],
    seed: int | None,
    show_points: bool,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], Any] = say,
) -> None:
    """Play a Mariage match in the terminal: you are ``seat`` (0 or 1), the computer the other.

    ``show_points`` False hides the card points (counting them is part of the game).
    """
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    players = ["Computer", "Computer"]
    players[seat] = "You"
    game = MariageGame(seed=seed, players=players)
    bot = bot_factory()
    bot_rng = random.Random(None if seed is None else seed + 1)
    table = _Table(game, seat, show_points, output_fn)
    seed_text = "" if seed is None else f", seed {seed}"
    output_fn(f"Mariage: you are seat {seat}{seed_text}; type help for the commands.")
    table.new_hand()
    try:
        while not game.over:
            st = game.state
            turn = game.turn
            assert turn is not None
            if turn == seat:
                action = _ask(table, input_fn, output_fn)
            else:
                action = _bot_action(bot, game, turn, bot_rng, output_fn)
            before = st.last_trick
            game.apply(action)
            table.after(st, before, turn, action)
            if game.state is not st and not game.over:
                table.new_hand()
    except _Quit:
        output_fn("You leave the match.")
        return
    w = game.winner
    if w is None:
        output_fn(f"Match over: no winner ({table.score_line()}).")
    else:
        output_fn(f"Match over: {table.who(w)} {table.verb(w, 'win')}! {table.score_line()}")


def _ask(table: _Table, input_fn: Callable[[str], str], output_fn: Callable[[str], Any]) -> Action:
    table.status()
    st = table.game.state
    while True:
        try:
            text = input_fn("> ")
        except EOFError:
            raise _Quit from None
        try:
            cmd = parse_command(text)
        except InvalidNotationError as exc:
            output_fn(str(exc))
            continue
        if cmd == "help":
            output_fn(HELP)
            continue
        if cmd == "quit":
            raise _Quit
        assert not isinstance(cmd, str)
        try:
            st.check(cmd)
        except IllegalActionError as exc:
            output_fn("Not allowed: " + to_person(str(exc), table.seat, YOURS))
            continue
        return cmd


#: the Mariage engine's phrases about the seat to play (``MariageState.why_illegal``),
#: said to the person at it (:func:`~tapete.terminal.common.to_person`)
YOURS = (
    (": does not hold", ": you do not hold"),
    ("(holds ", "(you hold "),
    (": has no ", ": you have no "),
)


def _bot_action(
    bot: TerminalBot,
    game: MariageGame,
    seat: int,
    rng: random.Random,
    output_fn: Callable[[str], Any],
) -> Action:
    choice = bot.act(game.view(seat), rng)
    action: Action
    if isinstance(choice, Play | Exchange | Marriage | Close | Claim | Decline):
        action = choice
    else:
        action = action_from_json(choice)
    if not game.state.can_apply(action):
        output_fn(f"(the computer chose an illegal action, {_command(action)}; it plays another)")
        action = game.legal_actions()[0]
    return action
