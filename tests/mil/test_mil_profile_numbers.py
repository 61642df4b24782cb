"""The numbers a profile owns are read from it (issue 9): a profile with other penalties or
another low-talon limit scores and explains with its own numbers, never club's literals."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mil_helpers import CLUB_164, CLUB_BOLT, points, run

from tapete.cards import parse_card
from tapete.errors import IllegalActionError
from tapete.mil import CASA_500, CLUB, Profile, Redeal, Standing, State, settle

#: club with other numbers: a 100-point third bolt, a 50-point fall from the barrel, a
#: low-talon redeal below 6
OTHER = replace(CLUB, name="club-other", bolt_penalty=100, barrel_penalty=50, low_talon_below=6)


def test_the_third_bolt_costs_the_profiles_penalty() -> None:
    for profile, left in ((CLUB, 180), (OTHER, 200)):
        st = CLUB_BOLT.played(profile, (False, False, False))
        res = settle(profile, Standing(scores=(0, 0, 600), bolts=(0, 0, 2)), st)
        assert points(res.standing) == [100, 15, left]
        assert f"third bolt, -{profile.bolt_penalty}" in " ".join(res.notes)


def test_falling_out_of_the_barrel_costs_the_profiles_penalty() -> None:
    for profile, fallen in ((CLUB, 760), (OTHER, 830)):
        st = CLUB_164.played(profile, (False, True, True))
        base = Standing(scores=(1600, 1760, 1760), in_barrel=(False, True, True))
        res = settle(profile, base, st)
        assert points(res.standing)[1:] == [fallen, fallen]
        assert f"pushed out of the barrel, -{profile.barrel_penalty}" in " ".join(res.notes)


def _talon_deal(profile: Profile) -> State:
    """Seat 0 declares at 100 with a talon of 5 points (9S QC JD)."""
    mine = [parse_card(c) for c in ["AS", "AC", "AD", "AH", "TS", "TC", "TD"]]
    talon = [parse_card(c) for c in ["9S", "QC", "JD"]]
    rest = [c for c in range(32) if c & 7 >= 2 and c not in mine and c not in talon]
    st = State(profile, 2, [mine, rest[:7], rest[7:]], talon)
    return run(st, "bid 100 pass pass")


def test_the_low_talon_limit_is_the_profiles() -> None:
    assert Redeal("low_talon") in _talon_deal(OTHER).legal_actions()  # 5 < 6
    for profile in (CLUB, replace(OTHER, low_talon_below=4)):
        st = _talon_deal(profile)
        assert Redeal("low_talon") not in st.legal_actions()
        limit = profile.low_talon_below
        with pytest.raises(IllegalActionError, match=rf"5 points \(a redeal needs < {limit}\)"):
            st.apply(Redeal("low_talon"))


def test_the_seats_a_cap_cut_short_are_named() -> None:
    """A casa-500 defender at 370 who took 141 was held at 490 ("Bruno: 141 points -> +120"
    read as a wrong sum): the result names the seats a cap cut short, and so does a club
    player arriving at the barrel with more than 880. (The deal's defender takes 24, so
    the casa cap is lowered to 395 here to bind.)"""
    from mil_helpers import CASA_138

    low_cap = replace(CASA_500, name="casa-low-cap", defender_cap=395)
    st = CASA_138.played(low_cap)
    res = settle(low_cap, Standing(scores=(0, 760, 0)), st)  # (380 + 20 = 400: held at 395)
    assert points(res.standing)[1] == 395 and res.capped == (1,)
    assert "seat 1 is held at 395" in res.notes
    below = settle(CASA_500, Standing(scores=(0, 760, 0)), st)  # (400: under 490)
    assert points(below.standing)[1] == 400 and below.capped == ()
    st = CLUB_164.played(CLUB)
    arriving = settle(CLUB, Standing(scores=(0, 1740, 0)), st)  # (870 + 25: held at 880)
    assert points(arriving.standing)[1] == 880 and arriving.capped == (1,)
    exact = settle(CLUB, Standing(scores=(0, 1710, 0)), st)  # (855 + 25 = 880 exactly)
    assert points(exact.standing)[1] == 880 and exact.capped == ()
