"""The worked examples of the seeds, as named tests (seed 000/003 section 08, seed 004)."""

from __future__ import annotations

from mil_helpers import CASA_138, CLUB_164, game_of, play_deal, points

from tapete.mil import CASA, CASA_500, CLUB, Standing, settle


def test_seed08_contract_160_made_with_diamonds_marriage() -> None:
    st = CLUB_164.played(CLUB)
    assert st.contract == 160
    assert st.captured == [84, 23, 13]
    assert st.marriages == [(0, 2)]  # seat 0, diamonds
    assert st.raw() == (164, 23, 13)
    result = settle(CLUB, Standing(), st)
    assert points(result.standing) == [160, 25, 15]


def test_seed08_without_the_marriage_the_declarer_loses_160() -> None:
    st = CLUB_164.replace("play QD*", "play QD").played(CLUB)
    assert st.marriages == []
    assert st.raw() == (84, 23, 13)
    assert points(settle(CLUB, Standing(), st).standing) == [-160, 25, 15]


def test_seed08_from_880_a_made_120_reaches_1000_and_wins() -> None:
    game = game_of(
        "club",
        CLUB_164.replace("contract 160", "contract 120"),
        scores=(880, 0, 0),
        in_barrel=(True, False, False),
    )
    play_deal(game, CLUB_164.replace("contract 160", "contract 120"))
    assert game.over and game.winner == 0
    assert game.scores == [1000, 25, 15]
    rec = game.to_record()
    assert rec["winner"] == 0
    res = rec["deals"][-1]["result"]
    assert res["in_barrel"] == [False, False, False]
    assert res["barrel_attempts"] == [0, 0, 0]


def test_seed08_defender_in_barrel_scores_nothing_and_three_deals_leave_760() -> None:
    # seat 2 sits at 880; seats 0 and 1 declare in turn and seat 2 never scores
    game = game_of("club", CLUB_164, scores=(0, 0, 880), in_barrel=(False, False, True))
    for attempt in (1, 2):
        play_deal(game, CLUB_164)
        assert game.scores[2] == 880
        assert game.standing.in_barrel[2]
        assert game.standing.barrel_attempts[2] == attempt
    # a third such deal (seat 0 declaring again): the attempts are used up
    last = game_of(
        "club",
        CLUB_164,
        scores=(0, 0, 880),
        in_barrel=(False, False, True),
        barrel_attempts=(0, 0, 2),
    )
    play_deal(last, CLUB_164)
    assert last.scores == [160, 25, 760]
    assert not last.standing.in_barrel[2]
    assert last.standing.barrel_attempts[2] == 0
    assert last.standing.failed_visits[2] == 1


def test_seed004_casa_78_plus_60_makes_120_and_defenders_round_to_20() -> None:
    st = CASA_138.played(CASA)
    assert st.captured == [78, 24, 18]
    assert st.marriages == [(0, 1)]  # clubs, announced automatically
    assert st.raw() == (138, 24, 18)
    assert points(settle(CASA, Standing(), st).standing) == [120, 20, 20]


def test_seed004_casa_rounding_to_the_nearest_ten_with_five_down() -> None:
    for profile in (CASA, CASA_500):
        assert [profile.round_defender(x) for x in (24, 18, 25, 26, 0, 5, 6, 15, 16)] == [
            20,
            20,
            20,
            30,
            0,
            0,
            10,
            10,
            20,
        ]


def test_seed000_club_rounding_to_five() -> None:
    assert [CLUB.round_defender(x) for x in (23, 13, 22, 21, 24, 25, 0, 1, 2, 3, 4)] == [
        25,
        15,
        20,
        20,
        25,
        25,
        0,
        0,
        0,
        5,
        5,
    ]


def test_the_sheet_row_names_a_seat_a_cap_held_and_only_then() -> None:
    """A club defender at 870 who takes 23 (rounded to 25) arrives at the barrel held at
    880: the deal's row (the views' sheet, the deal_end event) says ``capped``; a row where
    no cap held anyone has no such key (every row of every sheet carried an empty list)."""
    game = game_of("club", CLUB_164, scores=(0, 870, 0))
    play_deal(game, CLUB_164)
    row = game.view(None)["sheet"][-1]
    assert row["capped"] == [1] and row["scores"][1] == 880
    plain = game_of("club", CLUB_164)
    play_deal(plain, CLUB_164)
    assert "capped" not in plain.view(None)["sheet"][-1]
