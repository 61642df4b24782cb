"""Rule profiles: every knob of a Mil rule set in one frozen value.

A profile is data, not a subclass: the engine reads these fields and nothing else decides
how a table plays. ``club`` follows seeds 000/003, ``casa`` and ``casa-500`` seed 004
(see docs/rules-mil.md for the rules in players' words).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Final

__all__ = ["CASA", "CASA_500", "CLUB", "PROFILES", "Profile", "get_profile"]


@dataclass(frozen=True)
class Profile:
    name: str
    #: bids and contracts are multiples of this
    step: int
    #: club: while the bid is below 120, nobody may bid above 120
    stop_at_120: bool
    #: pre-auction redeal: four 9s, or fewer than this many card points in the 7 cards
    low_points_below: int
    #: casa: the low-points redeal also needs "no marriage in hand"
    low_points_needs_no_marriage: bool
    #: club: the declarer may ask for a redeal when the talon has fewer than 5 points
    low_talon_below: int | None
    #: club: four 9s in the 8-card hand allow a redeal just before the first lead
    nines_after_contract: bool
    rospis: bool
    bolts: bool
    #: casa: the first card goes to the declarer's left opponent, then the right one
    give_left_first: bool
    #: casa: must head the trick (beat the led suit, overtrump)
    must_head: bool
    #: casa: leading K or Q of a held pair from trick 2 always announces it
    auto_marriage: bool
    #: defenders round raw points to a multiple of ``round_to``; a remainder of at least
    #: ``round_up_from`` rounds up (club 5/3: 23 -> 25, 22 -> 20; casa 10/6: 25 -> 20, 26 -> 30)
    round_to: int
    round_up_from: int
    #: "club" (880 barrel with attempts and failed visits) or "casa" (threshold and cap)
    barrel: str
    target: int
    #: club: the barrel score (cap); casa: scores only as declarer from this score on
    barrel_from: int
    #: casa: a non-declarer never goes above this
    defender_cap: int
    #: club: a declarer in the barrel must fix a contract of at least this
    barrel_min_contract: int
    #: club: what the third bolt costs (points; 0 where there are no bolts)
    bolt_penalty: int
    #: club: what falling out of the barrel costs, from the barrel score (points; 0: casa)
    barrel_penalty: int

    def __reduce__(self) -> tuple[type[Profile], tuple[object, ...]]:
        # copy and pickle by the constructor: the default restores a frozen instance field by
        # field, which the mypyc-compiled class refuses
        return Profile, tuple(getattr(self, f.name) for f in fields(self))

    def round_defender(self, raw: int) -> int:
        """Round a defender's raw points the profile's way."""
        rem = raw % self.round_to
        return raw - rem + (self.round_to if rem >= self.round_up_from else 0)


CLUB: Final = Profile(
    name="club",
    step=5,
    stop_at_120=True,
    low_points_below=14,
    low_points_needs_no_marriage=False,
    low_talon_below=5,
    nines_after_contract=True,
    rospis=True,
    bolts=True,
    give_left_first=False,
    must_head=False,
    auto_marriage=False,
    round_to=5,
    round_up_from=3,
    barrel="club",
    target=1000,
    barrel_from=880,
    defender_cap=880,
    barrel_min_contract=120,
    bolt_penalty=120,
    barrel_penalty=120,
)

CASA: Final = Profile(
    name="casa",
    step=10,
    stop_at_120=False,
    low_points_below=10,
    low_points_needs_no_marriage=True,
    low_talon_below=None,
    nines_after_contract=False,
    rospis=False,
    bolts=False,
    give_left_first=True,
    must_head=True,
    auto_marriage=True,
    round_to=10,
    round_up_from=6,
    barrel="casa",
    target=1000,
    barrel_from=800,
    defender_cap=990,
    barrel_min_contract=0,
    bolt_penalty=0,
    barrel_penalty=0,
)

CASA_500: Final = replace(CASA, name="casa-500", target=500, barrel_from=400, defender_cap=490)

PROFILES: Final = {p.name: p for p in (CLUB, CASA, CASA_500)}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"unknown Mil profile {name!r} (expected one of: {', '.join(PROFILES)})"
        ) from None
