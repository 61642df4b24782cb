"""Mil in the terminal: a person at seat 0 against two computer players.

Everything shown comes from the person's view (``game.view(0)``); every typed action goes
through the engine, which explains what is wrong when it is illegal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tapete.bots import make_bot
from tapete.cards import (
    MIL_DECK,
    SUITS,
    InvalidNotationError,
    Suit,
    card_name,
    card_points,
    parse_card,
    shown,
)
from tapete.errors import IllegalActionError
from tapete.mil.game import MilGame
from tapete.mil.kind import KIND
from tapete.mil.state import State, contract_made
from tapete.terminal.common import not_understood, say, to_person

__all__ = ["OPTIONS", "format_view", "parse_command", "play_terminal"]

#: the optional arguments of :func:`play_terminal` this front-end honours
OPTIONS = frozenset({"name"})

#: a suit letter of the views -> its symbol
SUIT_SYMBOLS = {Suit(s).letter: Suit(s).symbol for s in SUITS}
HELP = """commands:
  bid 120 | pass                 auction
  redeal | keep                  ask for a redeal when offered / keep the cards
  rospis                         concede (club, before giving)
  give 9C 1                      give a card to seat 1 (or 2)
  contract 140                   fix the contract
  play KH | play KH marriage     play a card (announce the marriage when leading K or Q);
                                 a card alone (KH, 10H, K♥) plays it too
  help | quit
cards: rank A T K Q J 9 (T is the ten; 10 works too) then suit S C D H (♠ ♣ ♦ ♥)
seats: 0 is you, 1 sits on your left (plays after you), 2 on your right"""


#: the Mil engine's phrases about the seat a sentence is about (the reasons of
#: ``State.why_illegal``, the notes of ``settle``), said to the person at it: after
#: :func:`~tapete.terminal.common.to_person` made the subject ``you``
YOURS = (
    (" is not in its hand", " is not in your hand"),
    ("(holds ", "(you hold "),
    ("its hand does not allow", "your hand does not allow"),
    ("it must first say whether it asks", "you must first say whether you ask"),
    (
        "the declarer gives to the opponents, not to itself",
        "you give to the opponents, not to yourself",
    ),
    ("already got its card", "already got a card"),
    ("you makes ", "you make "),
    (" and wins", " and win"),
    ("you fails its contract", "you fail your contract"),
    ("you is ", "you are "),
    ("you arrives ", "you arrive "),
    (" and scores ", " and score "),
    ("you enters ", "you enter "),
)
#: and about the other seats, who are people too
THEIRS = ((" fails its contract", " fails the contract"),)


def pretty(card: str | None) -> str:
    if card is None:
        return "??"
    return card[0].replace("T", "10") + SUIT_SYMBOLS[card[1]]


def _deal_header(v: dict[str, Any]) -> str:
    """``--- deal 3 (club), dealer Bruno ---``"""
    return f"--- deal {v['deal_number']} ({v['profile']}), dealer {v['players'][v['dealer']]} ---"


def format_view(v: dict[str, Any]) -> str:
    """A few lines describing the table from one seat's view."""
    names = v["players"]
    lines = [
        _deal_header(v),
        "scores: "
        + ", ".join(
            f"{names[s]} {v['scores'][s]}"
            + (
                " [barrel"
                + (f" {v['barrel_attempts'][s]}/3" if v["profile"] == "club" else "")
                + "]"
                if v["in_barrel"][s]
                else ""
            )
            + (f" bolts {v['bolts'][s]}" if v["bolts"][s] else "")
            for s in range(3)
        ),
    ]
    if v["bids"]:
        lines.append(
            "auction: "
            + ", ".join(f"{names[b['seat']]} {b.get('value', 'pass')}" for b in v["bids"])
        )
    if v["talon"]:
        lines.append("talon: " + " ".join(pretty(c) for c in v["talon"]))
    if v["declarer"] is not None:
        lines.append(
            f"declarer {names[v['declarer']]}, bid {v['bid']}"
            + (f", contract {v['contract']}" if v["contract"] else "")
        )
    if v["trump"]:
        lines.append(f"trump: {SUIT_SYMBOLS[v['trump']]}")
    for m in v["marriages"]:
        lines.append(f"marriage: {names[m['seat']]} {SUIT_SYMBOLS[m['suit']]} +{m['value']}")
    if v["tricks"]:
        last = v["tricks"][-1]
        lines.append(
            "last trick: "
            + " ".join(f"{names[c['seat']]}:{pretty(c['card'])}" for c in last["cards"])
            + f" -> {names[last['winner']]}"
        )
    if v["trick"]:
        lines.append(
            "on the table: "
            + " ".join(f"{names[c['seat']]}:{pretty(c['card'])}" for c in v["trick"])
        )
    if v["phase"] == "play":
        lines.append(
            "tricks won: " + ", ".join(f"{names[s]} {v['tricks_won'][s]}" for s in range(3))
        )
    lines.append("your hand: " + " ".join(pretty(c) for c in v["hand"]))
    if v["held_marriages"]:
        lines.append("pairs held: " + " ".join(SUIT_SYMBOLS[s] for s in v["held_marriages"]))
    return "\n".join(lines)


_MARRIAGE_WORDS = ("marriage", "m", "cante")


def _card_text(word: str) -> str:
    """``kh``, ``10h``, ``K♥`` -> ``KH``; text that is not a card is passed on as typed, so
    that the reader's message quotes what the person typed."""
    try:
        return card_name(parse_card(word))
    except InvalidNotationError:
        return word


def _is_card(word: str) -> bool:
    try:
        parse_card(word)
    except InvalidNotationError:
        return False
    return True


def _not_a_card(word: str) -> str:
    """What the card parser says of ``word``, which is no card: ``'ZZ' is not a card
    (expected rank A T K Q J 9 ...)``, with the ranks of Mil's deck."""
    try:
        parse_card(word, MIL_DECK)
    except InvalidNotationError as exc:
        return str(exc)
    raise ValueError(f"{word!r} is a card")


def _is_number(word: str) -> bool:
    """A number as typed: ASCII digits only (``str.isdigit`` takes "²" too, which ``int``
    refuses), and short (a thousand digits would only slow ``int`` down to refuse it later;
    :func:`_is_long_number` tells the longer ones)."""
    return word.isascii() and word.isdigit() and len(word) <= 9


def _is_long_number(word: str) -> bool:
    return word.isascii() and word.isdigit() and len(word) > 9


def _is_whole(word: str) -> bool:
    """A whole number as typed, of any length: ASCII digits, perhaps after a minus sign."""
    digits = word.removeprefix("-")
    return digits.isascii() and digits.isdigit()


def _said(number: str) -> str:
    """A number the person typed, said back as typed but cut short as
    :func:`~tapete.cards.shown` cuts a word (6,000 nines were said back whole), without the
    quotes a word gets."""
    return shown(number).strip("'")


def _too_large(kind: str, number: str) -> str:
    """What a bid or contract far beyond any the engine reads is told."""
    return f"{_said(number)} is too large for a {kind} ('legal:' says what you may do)"


def _give_seats(legal: list[dict[str, Any]]) -> str:
    """``1 or 2``: the seats a card may be given to now (those of the opponents when no give
    is legal now)."""
    seats = sorted({a["to"] for a in legal if a["type"] == "give"}) or [1, 2]
    return " or ".join(map(str, seats))


def parse_command(text: str, legal: list[dict[str, Any]]) -> dict[str, Any] | str:
    """A typed command as an action dict; else "help", "quit", "empty", or what to tell the
    person: how to complete a half-typed command, or that the text is no command."""
    words = text.strip().split()
    if not words:
        return "empty"
    head = words[0].lower()
    if head in ("help", "?", "h"):
        return "help"
    if head in ("quit", "exit", "q"):
        return "quit"
    if head in ("bid", "contract") and len(words) == 2 and _is_number(words[1]):
        return {"type": head, "value": int(words[1])}
    if head in ("bid", "contract") and len(words) == 2 and _is_long_number(words[1]):
        return _too_large(head, words[1])
    if head in ("pass", "rospis", "keep"):
        return {"type": head}
    if head == "redeal":
        reasons = [a["reason"] for a in legal if a["type"] == "redeal"]
        if len(words) == 1 and not reasons:
            # (a reason chosen here was refused as if typed: "you cannot redeal low_points:
            # no redeal for low_points after the auction")
            return (
                "Not allowed: you cannot redeal: no redeal is possible now "
                "('legal:' says what you may do)"
            )
        # (the 'legal:' line shows "redeal (low_talon)": typed as shown, it is accepted)
        reason = words[1].strip("()") if len(words) > 1 else reasons[0]
        return {"type": "redeal", "reason": reason}
    if head == "give" and len(words) == 3 and _is_whole(words[2]):
        # (no such seat, negative or too long for a seat; 0, the person's own, is the
        # engine's to refuse)
        if not _is_number(words[2]) or int(words[2]) > 2:
            return f"give goes to seat {_give_seats(legal)}, not {_said(words[2])}"
        return {"type": "give", "card": _card_text(words[1]), "to": int(words[2])}
    if len(words) == 1 and _is_card(head):
        words = ["play", head]  # a card alone plays it, as in the Mariage terminal
    if head == "play" and len(words) >= 3:
        if not _is_card(words[1]):  # (the card parser's sentence, its quote cut short)
            return _not_a_card(words[1])
        card = words[1].upper()
        if words[2].lower() not in _MARRIAGE_WORDS:
            return f"after the card only 'marriage' may follow: 'play {card} marriage'"
        if len(words) > 3:  # (it got "play needs a card", which it had)
            return f"nothing may follow 'play {card} marriage', not {shown(' '.join(words[3:]))}"
    if words[0].lower() == "play" and len(words) in (2, 3):
        action: dict[str, Any] = {"type": "play", "card": _card_text(words[1])}
        if len(words) == 3:
            action["marriage"] = True
        elif {**action, "marriage": True} in legal and action not in legal:
            action["marriage"] = True  # casa announces by itself
        return action
    if head == "play":
        return "play needs a card: for example 'play KH' (or 'play KH marriage')"
    if head in ("bid", "contract") and len(words) > 2:  # (it got "needs a number")
        return f"{head} takes one number: for example '{head} 120'"
    if head in ("bid", "contract"):
        return f"{head} needs a number: for example '{head} 120'"
    if head == "give" and len(words) > 3:
        return "give takes a card and a seat: for example 'give 9C 1'"
    if head == "give":
        return "give needs a card and a seat: for example 'give 9C 1'"
    return not_understood(text, MIL_DECK)  # ('ZZ' is told the ranks of Mil's deck)


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
    """Play one game of Mil at seat 0 against two ``level`` computer players; returns the exit
    code. ``show_points`` is not an option here (this front-end shows no card points)."""
    others = [n for n in ("Bruno", "Carla", "Dora") if n.casefold() != name.casefold()][:2]
    game = MilGame(profile, seed=seed, players=[name, *others])
    bots = {s: make_bot(KIND.name, level, profile=profile) for s in (1, 2)}
    rngs = {s: random.Random(seed * 7 + s) for s in (1, 2)}
    output_fn(
        f"Mil, profile {profile}, seed {seed}. You are seat 0; {game.players[1]} (seat 1) "
        f"sits on your left and plays after you, {game.players[2]} (seat 2) on your right. "
        "Type 'help' for the commands."
    )
    reported = [0]

    def report_deals() -> None:
        while len(game.deals) > reported[0]:
            st, res = game.deals[reported[0]]
            reported[0] += 1
            row = res.to_json(game.profile)
            # (the scores named, as the state lines name them: a bare list left the reader
            # to count seats)
            scores = ", ".join(f"{n} {x}" for n, x in zip(game.players, row["scores"], strict=True))
            output_fn(
                f"deal {reported[0]} over: {_deal_outcome(st, row, game.players)}; scores {scores}"
            )
            for note in res.notes:
                output_fn("  " + _note(note, game.players))

    shown_deal = 0  # the deal whose header was printed last

    while not game.over:
        report_deals()
        seat = game.turn
        if seat is None:
            break
        if seat != 0 and game.deal_number != shown_deal:
            # the computers' first moves of a deal come after its header, not before it
            shown_deal = game.deal_number
            output_fn("\n" + _deal_header(game.view(None)))
        if seat != 0:
            action = bots[seat].act(game.view(seat), rngs[seat])
            # what the person may see of it: the engine's events as seat 0 receives them (a
            # card given to the other opponent stays hidden)
            seen = [e.for_viewer(0) for e in game.apply(action)]
            output_fn(_move(seen, game.players))
            if "shown" in seen[0]:
                output_fn(f"  {game.players[seat]} shows {_redeal_proof(seen[0])}")
            continue
        view = game.view(0)
        shown_deal = game.deal_number
        output_fn("\n" + format_view(view))
        output_fn("legal: " + _legal_line(view["legal"]))
        while True:
            try:
                text = input_fn("> ")
            except EOFError:
                output_fn("You leave the game.")  # (as Mariage says it)
                return 0
            cmd = parse_command(text, view["legal"])
            if cmd == "quit":
                output_fn("You leave the game.")  # (as Mariage says it)
                return 0
            if cmd == "help":
                output_fn(HELP)
                continue
            if cmd == "empty":
                output_fn("I did not understand that; type 'help'.")
                continue
            if isinstance(cmd, str):
                output_fn(cmd)
                continue
            if view["phase"] == "play" and cmd["type"] != "play":
                output_fn("Not now: the cards are being played; type 'play' and a card")
                continue
            try:
                action = game.parse_action(cmd)
            except InvalidNotationError as exc:
                # (a card that is none; a bid beyond any number the engine reads)
                kind = cmd["type"]
                output_fn(
                    _too_large(kind, str(cmd["value"])) if kind in ("bid", "contract") else str(exc)
                )
                continue
            try:
                game.apply(action)
            except IllegalActionError as exc:
                said = to_person(str(exc), 0, YOURS, names=game.players)
                if cmd["type"] == "give" and said.endswith(" is not in your hand"):
                    # (the engine names the hand for a card played, not for one given:
                    # named here in its order, strongest suit and card first)
                    held = sorted(map(parse_card, view["hand"]), reverse=True)
                    said += f" (you hold {', '.join(map(card_name, held))})"
                output_fn("Not allowed: " + said)
                continue
            break
    report_deals()  # the deal that ended the game
    if game.winner == 0:
        output_fn(f"You win with {game.scores[0]:g}!")
    elif game.winner is not None:
        output_fn(f"{game.players[game.winner]} wins with {game.scores[game.winner]:g}!")
    else:
        output_fn("game over")
    return 0


def _note(note: str, names: list[str]) -> str:
    """An end-of-deal note of the engine said at the table: ``Bruno enters the barrel``,
    ``You fail your contract in the barrel``."""
    said = to_person(note, 0, YOURS, names=names, theirs=THEIRS)
    return said[:1].upper() + said[1:]


def _deal_outcome(st: State, row: dict[str, Any], names: list[str]) -> str:
    """``raw [164, 23, 13], contract 160: Ana made it`` (or failed, conceded, annulled)."""
    if row["annulled"]:
        reason = _REDEAL_WORDS.get(st.redeal_reason or "", st.redeal_reason)
        return f"annulled ({reason}), same dealer"
    who = names[row["declarer"]]
    if row["rospis"]:
        return f"rospis: {who} conceded at {row['bid']}"
    made = contract_made(row["raw"][row["declarer"]], row["contract"])
    return f"raw {row['raw']}, contract {row['contract']}: {who} {'made' if made else 'failed'} it"


def _redeal_proof(event: dict[str, Any]) -> str:
    """The cards that justify a redeal, as the engine's event shows them to everyone: the
    four 9s, or the whole low hand or the talon with their points."""
    cards = event["shown"]
    shown = " ".join(pretty(c) for c in cards)
    if event["action"]["reason"] == "four_nines":
        return shown
    return f"{shown} ({sum(card_points(parse_card(c)) for c in cards)} points)"


#: a redeal's reason in words (the engine's keys, ``low_points``, are not for the table)
_REDEAL_WORDS = {
    "four_nines": "four nines",
    "low_points": "too few points in hand",
    "low_talon": "too few points in the talon",
}

#: the moves said in one sentence from the action's fields (``give`` and ``play`` say more)
_SAID = {
    "bid": "{who} bids {value}",
    "pass": "{who} passes",
    "keep": "{who} keeps the cards",
    "redeal": "{who} asks for a redeal ({reason})",
    "rospis": "{who} concedes (rospis)",
    "contract": "{who} fixes the contract at {value}",
}


def _move(seen: list[dict[str, Any]], names: list[str]) -> str:
    """A computer player's move in the table's words, from the events of it the person may
    see (``seen``: the action first, then what it caused): ``Bruno plays A♦``, ``Bruno gives
    you 9♠``, ``Bruno gives Carla a card``."""
    who = names[seen[0]["seat"]]
    a = seen[0]["action"]
    kind = a["type"]
    if kind == "redeal":
        return _SAID[kind].format(who=who, reason=_REDEAL_WORDS.get(a["reason"], a["reason"]))
    if kind in _SAID:
        return _SAID[kind].format(who=who, **a)
    if kind == "give":
        to = "you" if a["to"] == 0 else names[a["to"]]
        return f"{who} gives {to} {'a card' if a['card'] is None else pretty(a['card'])}"
    played = f"{who} plays {pretty(a['card'])}"
    for e in seen[1:]:
        if e["type"] == "marriage":
            played += f" and announces the marriage {SUIT_SYMBOLS[e['suit']]} +{e['value']}"
    return played


def _legal_line(legal: list[dict[str, Any]]) -> str:
    """The legal actions, with long lists folded into one entry each:
    ``pass, bid 105-220 (steps of 5)``, ``rospis, give CARD 1|2 (any of: 9S JS ...)``."""
    gives = [a for a in legal if a["type"] == "give"]
    others = []
    for kind in ("bid", "contract"):  # many values: one entry "bid 105-220 (steps of 5)"
        values = [a["value"] for a in legal if a["type"] == kind]
        if len(values) > 4:
            legal = [a for a in legal if a["type"] != kind]
            step = values[1] - values[0]
            others.append(f"{kind} {values[0]}-{values[-1]} (steps of {step})")
    others = [_describe(a) for a in legal if a["type"] != "give"] + others
    if gives:
        seats = sorted({a["to"] for a in gives})
        cards = list(dict.fromkeys(a["card"] for a in gives))
        others.append(f"give CARD {'|'.join(map(str, seats))} (any of: {' '.join(cards)})")
    return ", ".join(others)


def _describe(a: dict[str, Any]) -> str:
    kind = a["type"]
    if kind in ("bid", "contract"):
        return f"{kind} {a['value']}"
    if kind == "give":
        return f"give {a['card'] or '??'} {a['to']}"
    if kind == "play":
        return f"play {a['card']}" + (" marriage" if a.get("marriage") else "")
    if kind == "redeal":
        return f"redeal ({a['reason']})"
    return str(kind)
