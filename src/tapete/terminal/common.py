"""What the terminal front-ends share: writing to an output that cannot show every symbol,
and saying the engine's sentences about seats to the person at the table.

Nothing here knows a rule: the engine's sentences are reworded, never written anew.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from tapete.cards import InvalidNotationError, parse_card, shown

__all__ = ["ASCII_FALLBACK", "fit", "not_understood", "printer", "say", "to_person"]

#: what stands for a symbol where the output's encoding cannot show it: the suits' letters
#: (those a typed card uses), and ASCII for the other signs the tables print
ASCII_FALLBACK = {
    "♠": "S",
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "·": "-",
    "→": "->",
    "—": "-",
    "–": "-",
    "…": "...",
}


def fit(text: str, encoding: str | None) -> str:
    """``text`` as an output in ``encoding`` can show it: each symbol it cannot encode is
    replaced by its :data:`ASCII_FALLBACK` (``10♥`` -> ``10H``, ``→`` -> ``->``), anything
    else it cannot encode by ``?`` (a name typed in another script, say). ``encoding`` None
    (an output that does not say, such as a list in a test) keeps the text as it is."""
    if not encoding:
        return text
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        pass
    except LookupError:  # (an encoding Python does not know: keep to ASCII)
        encoding = "ascii"
    else:
        return text
    out = []
    for char in text:
        try:
            char.encode(encoding)
        except UnicodeEncodeError:
            char = ASCII_FALLBACK.get(char, "?")
        out.append(char)
    return "".join(out)


def printer(stream: TextIO | None = None) -> Callable[[str], None]:
    """An ``output_fn`` that prints each text as a line on ``stream`` (None: ``sys.stdout``
    at the time of the call), fitted to the stream's encoding (:func:`fit`): a Latin-1
    locale or a legacy code page gets ``10H`` rather than a ``UnicodeEncodeError``."""

    def out(text: str) -> None:
        target = stream if stream is not None else sys.stdout
        print(fit(text, getattr(target, "encoding", None)), file=target)

    return out


#: the terminals' default ``output_fn``: :func:`printer` on ``sys.stdout``
say = printer()


def to_person(
    sentence: str,
    seat: int,
    yours: Sequence[tuple[str, str]] = (),
    *,
    names: Sequence[str] | None = None,
    theirs: Sequence[tuple[str, str]] = (),
) -> str:
    """One of the engine's sentences about seats (``seat 0 cannot play JD: JD is not in its
    hand``, ``seat 2 enters the barrel``) said to the person at ``seat``.

    A sentence whose subject is ``seat`` (it starts with ``seat N``) is said in the second
    person: the subject becomes ``you``, then each ``(third, second)`` pair of ``yours``
    rewords a phrase of the engine's (``its hand`` -> ``your hand``; each game's terminal
    lists those of its engine, after the subject, as ``you makes`` -> ``you make``). Any
    other sentence gets ``theirs`` (``its contract`` -> ``the contract``). With ``names``,
    every ``seat N`` left is that seat's name (``you`` for ``seat``)."""
    subject = f"seat {seat}"
    if re.match(rf"{subject}\b", sentence):
        out = "you" + sentence[len(subject) :]
        pairs = yours
    else:
        out = sentence
        pairs = theirs
    for third, second in pairs:
        out = out.replace(third, second)
    if names is not None:
        named = ["you" if s == seat else n for s, n in enumerate(names)]
        out = re.sub(r"\bseat (\d)\b", lambda m: named[int(m[1])], out)
    return out


def not_understood(text: str, deck: int) -> str:
    """What the person is told of a line that is no command: a word as short as a card
    (``ZZ``, ``1H``, a slip for ``10H``) gets the card parser's sentence, with the ranks of
    the game's ``deck``; anything else is just no command, quoted cut short (a pasted page
    was echoed whole, every character of it)."""
    typed = text.strip()
    if len(typed) <= 3:
        try:
            parse_card(typed, deck)
        except InvalidNotationError as exc:
            return f"{exc}, nor a command (help lists them)"
    return f"{shown(typed)} is not a command (help lists them)"
