"""Open-hand Mil card-play positions and the card-play rules the solvers share.

A :class:`MilPosition` is a snapshot of the play phase with every hand face up. The helpers
here (:func:`to_move`, :func:`legal_moves`, :func:`play`) restate the card-play rules of
``shared/rules/mil.md`` on immutable positions; they are slow and meant to be obviously right
(the reference solver is built on them, the fast solvers are tested against them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tapete.cards import ABOVE, KING, MIL_DECK, QUEEN, SUIT_MASKS, bits, mask_points

__all__ = [
    "MARRIAGE_VALUES",
    "PROFILES",
    "MilPosition",
    "Move",
    "is_casa",
    "legal_moves",
    "max_gain",
    "play",
    "to_move",
    "trick_winner",
]

#: marriage value by suit (spades, clubs, diamonds, hearts)
MARRIAGE_VALUES: Final = (40, 60, 80, 100)
#: profile names the solver accepts; "casa-500" plays like "casa"
PROFILES: Final = ("club", "casa", "casa-500")

#: a move: (card, announces_marriage)
Move = tuple[int, bool]


@dataclass(frozen=True)
class MilPosition:
    """A Mil card-play position with all hands known.

    ``hands`` hold the cards each seat still has (cards already in ``trick`` left them).
    ``trick`` lists the cards of the current trick in play order from ``leader``. If the
    trick's lead announced a marriage, ``trump`` already names that suit and its value is in
    ``points``. ``tricks_played`` counts completed tricks: while it is 0 no marriage may be
    announced.
    """

    hands: tuple[int, int, int]
    declarer: int
    leader: int
    trick: tuple[int, ...] = ()
    trump: int | None = None
    points: tuple[int, int, int] = (0, 0, 0)
    tricks_played: int = 0
    profile: str = "club"

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise ValueError(f"invalid Mil position: {problem}")


def _problem(pos: MilPosition) -> str | None:
    if len(pos.hands) != 3 or len(pos.points) != 3:
        return "hands and points need one entry per seat"
    if pos.profile not in PROFILES:
        return f"unknown profile {pos.profile!r} (expected one of: {', '.join(PROFILES)})"
    if pos.declarer not in (0, 1, 2) or pos.leader not in (0, 1, 2):
        return "declarer and leader must be seats 0, 1 or 2"
    if pos.trump is not None and pos.trump not in (0, 1, 2, 3):
        return f"trump must be a suit 0..3 or None, not {pos.trump!r}"
    if len(pos.trick) > 2:
        return "a trick in progress holds at most 2 cards (the third card completes it)"
    if pos.tricks_played < 0 or pos.tricks_played > 8:
        return "tricks_played must be in 0..8"
    seen = 0
    for h in pos.hands:
        if h & ~MIL_DECK or h & seen:
            return "hands must be disjoint sets of Mil cards"
        seen |= h
    for c in pos.trick:
        if not 0 <= c < 32 or not (MIL_DECK >> c) & 1 or (seen >> c) & 1:
            return "trick cards must be Mil cards held by nobody"
        seen |= 1 << c
    full = pos.hands[pos.leader].bit_count() + (1 if pos.trick else 0)
    for i in range(3):
        want = full - (1 if i < len(pos.trick) else 0)
        if pos.hands[(pos.leader + i) % 3].bit_count() != want:
            return "hand sizes do not match the trick in progress"
    if pos.tricks_played + full > 8:
        return "more than 8 tricks in the deal"
    return None


def is_casa(pos: MilPosition) -> bool:
    return pos.profile != "club"


def to_move(pos: MilPosition) -> int | None:
    """The seat to play, or ``None`` when every card has been played."""
    if not pos.trick and not pos.hands[pos.leader]:
        return None
    return (pos.leader + len(pos.trick)) % 3


def _highest(cards: tuple[int, ...], suit_: int) -> int | None:
    of_suit = [c for c in cards if c >> 3 == suit_]
    return max(of_suit) if of_suit else None


def legal_moves(pos: MilPosition) -> list[Move]:
    """Every legal move of the seat to play, by card then announcement (``[]`` at the end).

    Leading: any card; a K or Q whose partner is still in the hand may (club) or must (casa)
    announce the marriage from trick 2 on. Following: club must follow suit, else trump,
    else anything; casa must also head the trick (see ``mil.md``).
    """
    seat = to_move(pos)
    if seat is None:
        return []
    hand = pos.hands[seat]
    if not pos.trick:
        moves: list[Move] = []
        for c in bits(hand):
            s, r = c >> 3, c & 7
            pair = (1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN))
            if pos.tricks_played >= 1 and r in (KING, QUEEN) and hand & pair == pair:
                if not is_casa(pos):
                    moves.append((c, False))
                moves.append((c, True))
            else:
                moves.append((c, False))
        return moves
    led = pos.trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    trumps = hand & SUIT_MASKS[pos.trump] if pos.trump is not None else 0
    if not is_casa(pos):
        allowed = follow or trumps or hand
    elif follow:
        trumped = (
            pos.trump is not None
            and led != pos.trump
            and any(c >> 3 == pos.trump for c in pos.trick)
        )
        if trumped:
            allowed = follow
        else:
            top = _highest(pos.trick, led)
            assert top is not None
            allowed = (follow & ABOVE[top]) or follow
    elif trumps:
        assert pos.trump is not None
        top_trump = _highest(pos.trick, pos.trump)
        higher = trumps & ABOVE[top_trump] if top_trump is not None else 0
        allowed = higher or trumps
    else:
        allowed = hand
    return [(c, False) for c in bits(allowed)]


def trick_winner(cards: tuple[int, ...], trump: int | None) -> int:
    """Index (0, 1, 2) in ``cards`` of the winning card: highest trump, else highest of led."""
    if trump is not None:
        trumps = [i for i, c in enumerate(cards) if c >> 3 == trump]
        if trumps:
            return max(trumps, key=lambda i: cards[i])
    led = cards[0] >> 3
    return max((i for i, c in enumerate(cards) if c >> 3 == led), key=lambda i: cards[i])


def play(pos: MilPosition, card: int, announce: bool = False) -> MilPosition:
    """The position after the seat to move plays ``card`` (announcing a marriage if asked).

    Raises :class:`ValueError` if the move is not legal.
    """
    if (card, announce) not in legal_moves(pos):
        raise ValueError(f"illegal move {(card, announce)!r} in {pos!r}")
    seat = (pos.leader + len(pos.trick)) % 3
    hands = list(pos.hands)
    hands[seat] &= ~(1 << card)
    points = list(pos.points)
    trump = pos.trump
    if announce:
        trump = card >> 3
        points[seat] += MARRIAGE_VALUES[trump]
    trick = (*pos.trick, card)
    if len(trick) < 3:
        return MilPosition(
            (hands[0], hands[1], hands[2]),
            pos.declarer,
            pos.leader,
            trick,
            trump,
            (points[0], points[1], points[2]),
            pos.tricks_played,
            pos.profile,
        )
    winner = (pos.leader + trick_winner(trick, trump)) % 3
    points[winner] += sum(mask_points(1 << c) for c in trick)
    return MilPosition(
        (hands[0], hands[1], hands[2]),
        pos.declarer,
        winner,
        (),
        trump,
        (points[0], points[1], points[2]),
        pos.tricks_played + 1,
        pos.profile,
    )


def max_gain(pos: MilPosition) -> int:
    """An upper bound on the declarer's further points: every card left plus their pairs."""
    cards = pos.hands[0] | pos.hands[1] | pos.hands[2]
    total = mask_points(cards) + sum(mask_points(1 << c) for c in pos.trick)
    hand = pos.hands[pos.declarer]
    for s in range(4):
        pair = (1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN))
        if hand & pair == pair:
            total += MARRIAGE_VALUES[s]
    return total
