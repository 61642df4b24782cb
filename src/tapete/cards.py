"""Cards, card sets and card notation shared by every game.

A card is an ``int`` in ``0..31``: ``suit * 8 + rank``. Ranks count upward in playing
strength (``0`` = 7 ... ``7`` = ace), so within a suit a larger int is a stronger card and
"every card of this suit above ``c``" is a single mask operation. Mil uses the 24 cards with
rank 9 and up; Mariage uses all 32.

Notation (records.md): two characters, rank ``A T K Q J 9 8 7`` then suit ``S C D H``.
Readers also accept ``10`` for the ten and the suit symbols.

>>> parse_card("KH") == card(HEARTS, KING)
True
>>> str(CardSet.parse("AH TH 9S"))
'9S TH AH'
>>> card_points(parse_card("TS"))
10
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum
from typing import Final

__all__ = [
    "ACE",
    "ALL_CARDS",
    "CARD_NAMES",
    "CLUBS",
    "DIAMONDS",
    "EIGHT",
    "HEARTS",
    "JACK",
    "KING",
    "MARIAGE_DECK",
    "MIL_DECK",
    "NINE",
    "PAIR_MASKS",
    "QUEEN",
    "SEVEN",
    "SPADES",
    "SUITS",
    "SUIT_LETTERS",
    "SUIT_MASKS",
    "SUIT_NAMES",
    "TEN",
    "Card",
    "CardSet",
    "InvalidNotationError",
    "Suit",
    "above_mask",
    "beats",
    "bits",
    "card",
    "card_name",
    "card_points",
    "deck_ranks",
    "mask_of",
    "mask_points",
    "parse_card",
    "parse_suit",
    "rank",
    "shown",
    "suit",
    "trick_winner",
]

Card = int


class InvalidNotationError(ValueError):
    """Text that does not parse as a card, a suit or a record field."""


class Suit(IntEnum):
    """The four suits, in the order of their Mil marriage values (40, 60, 80, 100)."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "SCDH"[self]

    @property
    def symbol(self) -> str:
        return "♠♣♦♥"[self]


SPADES: Final = 0
CLUBS: Final = 1
DIAMONDS: Final = 2
HEARTS: Final = 3
SUITS: Final = (SPADES, CLUBS, DIAMONDS, HEARTS)

SEVEN: Final = 0
EIGHT: Final = 1
NINE: Final = 2
JACK: Final = 3
QUEEN: Final = 4
KING: Final = 5
TEN: Final = 6
ACE: Final = 7

RANK_LETTERS: Final = "789JQKTA"
SUIT_LETTERS: Final = "SCDH"
#: the suits in words, for messages (``SUIT_NAMES[HEARTS] == "hearts"``)
SUIT_NAMES: Final = ("spades", "clubs", "diamonds", "hearts")
_SUIT_SYMBOLS: Final = {"♠": 0, "♣": 1, "♦": 2, "♥": 3, "♤": 0, "♧": 1, "♢": 2, "♡": 3}
_POINTS_BY_RANK: Final = (0, 0, 0, 2, 3, 4, 10, 11)


def card(suit_: int, rank_: int) -> Card:
    """The card of ``suit_`` and ``rank_``."""
    return suit_ * 8 + rank_


def suit(c: Card) -> int:
    return c >> 3


def rank(c: Card) -> int:
    return c & 7


ALL_CARDS: Final = tuple(range(32))
CARD_NAMES: Final = tuple(RANK_LETTERS[c & 7] + SUIT_LETTERS[c >> 3] for c in ALL_CARDS)
CARD_POINTS: Final = tuple(_POINTS_BY_RANK[c & 7] for c in ALL_CARDS)
SUIT_MASKS: Final = tuple(0xFF << (8 * s) for s in SUITS)
#: ``ABOVE[c]``: the cards of ``c``'s suit that beat ``c``.
ABOVE: Final = tuple(SUIT_MASKS[c >> 3] & ~((1 << (c + 1)) - 1) for c in ALL_CARDS)
#: ``PAIR_MASKS[s]``: the king and the queen of suit ``s``, a marriage in both games
PAIR_MASKS: Final = tuple((1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN)) for s in SUITS)
MIL_DECK: Final = sum(1 << c for c in ALL_CARDS if rank(c) >= NINE)
MARIAGE_DECK: Final = (1 << 32) - 1
_NAME_TO_CARD: Final = {name: c for c, name in enumerate(CARD_NAMES)}


def card_name(c: Card) -> str:
    """Two-character notation: ``"TH"`` for the ten of hearts."""
    return CARD_NAMES[c]


def card_points(c: Card) -> int:
    return CARD_POINTS[c]


def above_mask(c: Card) -> int:
    return ABOVE[c]


def shown(value: object) -> str:
    """``repr(value)`` for an error message, bounded: a long text is cut and an int too long
    to print (Python refuses more than 4300 digits) is described instead of raising."""
    try:
        text = repr(value)
    except ValueError:
        return (
            "an integer too large to show"
            if isinstance(value, int)
            else "a value too large to show"
        )
    return text if len(text) <= 200 else text[:197] + "..."


def beats(c: Card, best: Card, trump: int) -> bool:
    """Whether ``c`` takes the trick from ``best``, the card winning it so far, with
    ``trump`` (-1: no trump): a higher card of ``best``'s suit, or a trump on another suit.
    The trick rule of both games (the highest trump, else the highest card of the led suit).
    """
    if c >> 3 == best >> 3:
        return c > best
    return c >> 3 == trump


def trick_winner(cards: Sequence[Card], trump: int) -> int:
    """The index in ``cards`` (a trick in play order, led by ``cards[0]``) of the card that
    wins it with ``trump`` (-1: no trump).

    >>> trick_winner([parse_card(x) for x in ("TS", "9H", "AS")], HEARTS)
    1
    >>> trick_winner([parse_card(x) for x in ("TS", "AH", "9S")], -1)
    0
    """
    best = 0
    top = cards[0]
    for i in range(1, len(cards)):
        c = cards[i]
        if beats(c, top, trump):
            best, top = i, c
    return best


def parse_suit(text: str) -> int:
    """``"H"``, ``"h"`` or ``"♥"`` -> 3."""
    t = text.strip()
    if len(t) == 1:
        if t.upper() in SUIT_LETTERS:
            return SUIT_LETTERS.index(t.upper())
        if t in _SUIT_SYMBOLS:
            return _SUIT_SYMBOLS[t]
    raise InvalidNotationError(f"{shown(text)} is not a suit (expected one of S C D H or ♠ ♣ ♦ ♥)")


def deck_ranks(deck: int) -> str:
    """The ranks of the cards of ``deck`` (a bitmask), strongest first, as notation writes
    them: ``"A T K Q J 9"`` for :data:`MIL_DECK`, ``"A T K Q J 9 8 7"`` for all 32."""
    return " ".join(RANK_LETTERS[r] for r in range(ACE, -1, -1) if deck & 0x01010101 << r)


def parse_card(text: object, deck: int = MARIAGE_DECK) -> Card:
    """Parse ``"TH"``, ``"10H"``, ``"th"`` or ``"K♥"``; raise :class:`InvalidNotationError`
    (also for an object that is not a string: typed ``object`` so that compiled with mypyc,
    this stays an InvalidNotationError, not a TypeError). ``deck``: the cards of the
    caller's game, whose ranks the error names (Mil's 24 have no 8 or 7; the default, all
    32, where the game is not known); whether the card is in it is the caller's check."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"{shown(text)} is not a card (expected a string such as 'KH')")
    t = text.strip()
    if len(t) >= 2:
        r, s = t[:-1].upper(), t[-1]
        if r == "10":
            r = "T"
        if len(r) == 1 and r in RANK_LETTERS:
            try:
                return card(parse_suit(s), RANK_LETTERS.index(r))
            except InvalidNotationError:
                pass
    raise InvalidNotationError(
        f"{shown(text)} is not a card "
        f"(expected rank {deck_ranks(deck)} then suit S C D H, e.g. 'KH')"
    )


def bits(mask: int) -> Iterator[Card]:
    """The cards of a bitmask, weakest int first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


_BYTE_POINTS: Final = tuple(
    sum(_POINTS_BY_RANK[r] for r in range(8) if b >> r & 1) for b in range(256)
)


def mask_points(mask: int) -> int:
    """Card points of a bitmask of cards (four table look-ups)."""
    return (
        _BYTE_POINTS[mask & 0xFF]
        + _BYTE_POINTS[(mask >> 8) & 0xFF]
        + _BYTE_POINTS[(mask >> 16) & 0xFF]
        + _BYTE_POINTS[(mask >> 24) & 0xFF]
    )


class CardSet:
    """An immutable set of cards backed by a bitmask (like ``chess.SquareSet``).

    Iteration goes by suit (spades, clubs, diamonds, hearts), weakest card first.
    """

    __slots__ = ("mask",)

    def __init__(self, cards: Iterable[Card] | int = 0) -> None:
        self.mask: int = cards if isinstance(cards, int) else mask_of(cards)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        return cls(parse_card(t) for t in text.replace(",", " ").split())

    def __contains__(self, c: object) -> bool:
        return isinstance(c, int) and 0 <= c < 32 and bool(self.mask >> c & 1)

    def __iter__(self) -> Iterator[Card]:
        return bits(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"

    def __str__(self) -> str:
        return " ".join(CARD_NAMES[c] for c in self)

    def points(self) -> int:
        return mask_points(self.mask)

    def names(self) -> list[str]:
        return [CARD_NAMES[c] for c in self]
