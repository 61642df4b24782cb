"""Open-hand Mil card-play positions, and the card-play rules the solvers take from a profile.

A :class:`MilPosition` is a snapshot of the play phase with every hand face up. The helpers
here (:func:`to_move`, :func:`legal_moves`, :func:`play`) play on immutable positions with the
engine's own rules (:func:`tapete.mil.state.play_mask_of`, :data:`tapete.mil.MARRIAGE_VALUES`,
:func:`tapete.cards.trick_winner`); they are slow and meant to be obviously right (the
reference solver is built on them, the fast solvers are tested against them).

The rules of the card play come from the position's :class:`tapete.mil.Profile`
(:func:`play_rules`): whether a follower must head the trick, and whether leading the K or Q
of a held pair always announces the marriage. A profile with a knob the solver does not
know how to play is refused with a clear error, never solved under other rules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from tapete.cards import KING, MIL_DECK, PAIR_MASKS, QUEEN, bits, mask_points, trick_winner
from tapete.mil.profiles import PROFILES as _PROFILES
from tapete.mil.profiles import Profile, get_profile
from tapete.mil.state import MARRIAGE_VALUES, play_mask_of

__all__ = [
    "MARRIAGE_VALUES",
    "PROFILES",
    "MilPosition",
    "Move",
    "PlayRules",
    "UnsolvableProfileError",
    "legal_moves",
    "max_gain",
    "play",
    "play_rules",
    "to_move",
]

#: the registered profile names (a position may also carry a :class:`Profile` value)
PROFILES: Final = tuple(_PROFILES)

#: the Profile knobs that change the card play, and how the solvers play them
PLAY_KNOBS: Final = ("must_head", "auto_marriage")
#: the Profile knobs that decide only what happens before the first lead or after the last
#: trick (the auction, redeals, the talon, scoring): the card play, and so the open-hand
#: value of a play position, does not depend on them
OTHER_KNOBS: Final = (
    "name",
    "step",
    "stop_at_120",
    "low_points_below",
    "low_points_needs_no_marriage",
    "low_talon_below",
    "nines_after_contract",
    "rospis",
    "bolts",
    "give_left_first",
    "round_to",
    "round_up_from",
    "barrel",
    "target",
    "barrel_from",
    "defender_cap",
    "barrel_min_contract",
    "bolt_penalty",
    "barrel_penalty",
)


class UnsolvableProfileError(ValueError):
    """A profile whose card play the solvers do not know how to search."""


@dataclass(frozen=True)
class PlayRules:
    """The card-play rules of one profile, as the solvers read them."""

    #: a follower must head the trick (beat the led suit's top card, or overtrump: casa)
    must_head: bool
    #: leading the K or Q of a held pair from trick 2 on always announces the marriage
    auto_marriage: bool


def play_rules(profile: Profile | str) -> PlayRules:
    """The card-play rules of ``profile`` (a :class:`Profile` or a registered name).

    Raises :class:`UnsolvableProfileError` for a profile the solvers cannot play: one with a
    knob they do not know, or a play knob that is not a plain bool."""
    p = get_profile(profile) if isinstance(profile, str) else profile
    if not isinstance(p, Profile):
        raise UnsolvableProfileError(f"{profile!r} is not a Mil profile")
    for f in fields(p):
        if f.name not in PLAY_KNOBS and f.name not in OTHER_KNOBS:
            raise UnsolvableProfileError(
                f"the Mil solver cannot solve profile {p.name!r}: it does not know how the "
                f"knob {f.name!r} changes the card play"
            )
    for knob in PLAY_KNOBS:
        if not isinstance(getattr(p, knob), bool):
            raise UnsolvableProfileError(
                f"the Mil solver cannot solve profile {p.name!r}: {knob} is "
                f"{getattr(p, knob)!r}, and it plays only {knob} = True or False"
            )
    return PlayRules(must_head=p.must_head, auto_marriage=p.auto_marriage)


#: a move: (card, announces_marriage)
Move = tuple[int, bool]


@dataclass(frozen=True)
class MilPosition:
    """A Mil card-play position with all hands known.

    ``hands`` hold the cards each seat still has (cards already in ``trick`` left them).
    ``trick`` lists the cards of the current trick in play order from ``leader``. If the
    trick's lead announced a marriage, ``trump`` already names that suit and its value is in
    ``points``. ``tricks_played`` counts completed tricks: while it is 0 no marriage may be
    announced. ``profile`` (a registered name or a :class:`Profile`) gives the rules of the
    card play (:func:`play_rules`).
    """

    hands: tuple[int, int, int]
    declarer: int
    leader: int
    trick: tuple[int, ...] = ()
    trump: int | None = None
    points: tuple[int, int, int] = (0, 0, 0)
    tricks_played: int = 0
    profile: Profile | str = "club"

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise ValueError(f"invalid Mil position: {problem}")

    @property
    def rules(self) -> PlayRules:
        """The card-play rules of the position's profile (checked when it was built)."""
        p = get_profile(self.profile) if isinstance(self.profile, str) else self.profile
        return PlayRules(must_head=p.must_head, auto_marriage=p.auto_marriage)


def _problem(pos: MilPosition) -> str | None:
    if len(pos.hands) != 3 or len(pos.points) != 3:
        return "hands and points need one entry per seat"
    if isinstance(pos.profile, str) and pos.profile not in PROFILES:
        return f"unknown profile {pos.profile!r} (expected one of: {', '.join(PROFILES)})"
    if not isinstance(pos.profile, str):
        play_rules(pos.profile)  # a profile the solvers cannot play: UnsolvableProfileError
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


def to_move(pos: MilPosition) -> int | None:
    """The seat to play, or ``None`` when every card has been played."""
    if not pos.trick and not pos.hands[pos.leader]:
        return None
    return (pos.leader + len(pos.trick)) % 3


def legal_moves(pos: MilPosition) -> list[Move]:
    """Every legal move of the seat to play, by card then announcement (``[]`` at the end).

    Leading: any card; a K or Q whose partner is still in the hand may (or, with
    ``auto_marriage``, must) announce the marriage from trick 2 on. Following: the engine's
    rule (follow suit, else trump; with ``must_head`` also head the trick; see ``mil.md``).
    """
    seat = to_move(pos)
    if seat is None:
        return []
    hand = pos.hands[seat]
    rules = pos.rules
    if not pos.trick:
        moves: list[Move] = []
        for c in bits(hand):
            pair = PAIR_MASKS[c >> 3]
            if pos.tricks_played >= 1 and c & 7 in (KING, QUEEN) and hand & pair == pair:
                if not rules.auto_marriage:
                    moves.append((c, False))
                moves.append((c, True))
            else:
                moves.append((c, False))
        return moves
    trump = -1 if pos.trump is None else pos.trump
    allowed = play_mask_of(hand, list(pos.trick), trump, rules.must_head)
    return [(c, False) for c in bits(allowed)]


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
    winner = (pos.leader + trick_winner(trick, -1 if trump is None else trump)) % 3
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
        if hand & PAIR_MASKS[s] == PAIR_MASKS[s]:
            total += MARRIAGE_VALUES[s]
    return total
