"""Fair deals: a deck order from a secret seed, and its public commitment.

A server that deals for people who did not choose the deal draws a **deal seed** of
:data:`SEED_BYTES` random bytes per deal, publishes its **commitment** (SHA-256 of the seed)
before the deal is played and reveals the seed when the deal is over; anyone can then check
that the seed matches the commitment and deals exactly the recorded cards. This module is the
engine's half, pure and deterministic: the commitment, the shuffle, and the strict reading of a
record's ``fair`` field. The shuffle is specified in docs/records.md ("Fair deals") so that
another program can check a deal without Python:

* the game's **fresh deck**: its cards in the order spades, clubs, diamonds, hearts, each
  ``A T K Q J 9 8 7`` (Mil leaves out the 8s and 7s);
* a stream of 32-bit words: block ``i`` (``i = 0, 1, 2, ...``) is
  ``SHA-256(seed || i as 4 bytes big-endian)``, read as eight big-endian 32-bit words, the
  blocks one after the other;
* a number below ``bound`` (rejection sampling, no bias): take words until one is below
  ``2**32 - (2**32 mod bound)``; the number is that word ``mod bound``;
* Fisher–Yates: for ``i`` from ``n - 1`` down to ``1``, swap positions ``i`` and ``j``, ``j``
  the next number below ``i + 1``.

The game then deals the shuffled deck by its usual rule (Mil: 7, 7, 7 cards and the talon of
3; Mariage: 6, 6 and the stock of 20), in one function each (``tapete.mil.game.deal_deck``,
``tapete.mariage.state.deal_deck``).

>>> seed = bytes(range(32))
>>> commitment(seed)[:16]
'630dcd2966c43366'
>>> from tapete.cards import CARD_NAMES, MIL_DECK
>>> " ".join(CARD_NAMES[c] for c in shuffled(seed, fresh_deck(MIL_DECK)))
'JH JS AS 9H KD KC TS 9D QS 9S KS TC AH QD TH JC KH JD 9C AD TD QC AC QH'
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tapete.cards import ACE, SEVEN, SUITS, Card
from tapete.errors import RecordError

__all__ = [
    "SEED_BYTES",
    "DealSeeds",
    "FairDeal",
    "commitment",
    "fresh_deck",
    "read_fair",
    "shuffled",
    "words",
]

#: the length of a deal seed in bytes (64 hexadecimal digits in records)
SEED_BYTES: Final = 32
#: ``k -> seed``: the seed of deal ``k`` (from 0), or None where the deal is not a fair one
DealSeeds = Callable[[int], bytes | None]

_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")
_WORD: Final = 1 << 32


def commitment(seed: bytes) -> str:
    """The commitment to ``seed``: SHA-256 of its bytes, 64 lowercase hex digits."""
    return hashlib.sha256(seed).hexdigest()


def fresh_deck(mask: int) -> list[Card]:
    """The cards of ``mask`` in the fresh-deck order of fair shuffles: spades, clubs,
    diamonds, hearts, each from the ace down to the seven."""
    return [s * 8 + r for s in SUITS for r in range(ACE, SEVEN - 1, -1) if mask >> (s * 8 + r) & 1]


def words(seed: bytes) -> Iterator[int]:
    """The endless stream of 32-bit words the shuffle of ``seed`` draws from."""
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def shuffled(seed: bytes, deck: Sequence[Card]) -> list[Card]:
    """``deck`` shuffled by the seed (Fisher–Yates, unbiased by rejection sampling)."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a deal seed is {SEED_BYTES} bytes, not {len(seed)}")
    out = list(deck)
    stream = words(seed)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _WORD - _WORD % bound
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % bound
        out[i], out[j] = out[j], out[i]
    return out


@dataclass(frozen=True)
class FairDeal:
    """A deal's ``fair`` field: the commitment, and the seed once the deal is over."""

    commitment: str
    seed: bytes

    @classmethod
    def of(cls, seed: bytes) -> FairDeal:
        return cls(commitment(seed), seed)

    def to_json(self) -> dict[str, str]:
        return {"commitment": self.commitment, "seed": self.seed.hex()}


def _hex(value: Any, key: str) -> bytes:
    if not isinstance(value, str):
        raise RecordError(
            f"fair.{key} must be a string of 64 hex digits, got {type(value).__name__}"
        )
    if len(value) != 2 * SEED_BYTES or not _HEX_DIGITS.issuperset(value):
        shown = value[:20] + "..." if len(value) > 20 else value
        raise RecordError(
            f"fair.{key} must be 64 hex digits, got {len(value)} characters ({shown!r})"
        )
    return bytes.fromhex(value)


def read_fair(value: object) -> FairDeal:
    """A record's ``fair`` object, checked: ``commitment`` and ``seed`` of 64 hex digits each,
    and the seed's SHA-256 equal to the commitment (:class:`RecordError` otherwise; the caller
    adds the deal). Other keys are ignored, as everywhere in records."""
    if not isinstance(value, dict):
        raise RecordError(f"fair must be an object, not {type(value).__name__}")
    for key in ("commitment", "seed"):
        if key not in value:
            raise RecordError(f"fair has no {key!r} field")
    committed = _hex(value["commitment"], "commitment")
    seed = _hex(value["seed"], "seed")
    if hashlib.sha256(seed).digest() != committed:
        raise RecordError(
            f"fair.seed does not match its commitment: SHA-256 of the seed is "
            f"{commitment(seed)[:16]}..., the commitment {committed.hex()[:16]}..."
        )
    return FairDeal(committed.hex(), seed)
