"""Mil in the terminal, driven by scripted input."""

from __future__ import annotations

import io
import random
import re

from terminal_helpers import scripted

from tapete.terminal.common import printer
from tapete.terminal.mil import parse_command, play_terminal


def _scripted(rng: random.Random, out: list[str], limit: int):  # type: ignore[no-untyped-def]
    def answer(_prompt: str) -> str:
        if len(out) > limit:
            return "quit"
        for line in reversed(out):
            if line.startswith("legal: "):
                choice = rng.choice(line[len("legal: ") :].split(", "))
                if " (steps of " in choice:  # "bid 105-220 (steps of 5)"
                    kind, span = choice.split(" (")[0].split()
                    low, high = map(int, span.split("-"))
                    step = int(choice.split("steps of ")[1].rstrip(")"))
                    return f"{kind} {rng.choice(range(low, high + 1, step))}"
                if choice.startswith("give CARD "):  # "give CARD 1|2 (any of: 9S JS ...)"
                    seats, cards = choice[len("give CARD ") :].split(" (any of: ")
                    card = rng.choice(cards.rstrip(")").split())
                    return f"give {card} {rng.choice(seats.split('|'))}"
                return choice.replace("redeal (", "redeal ").rstrip(")")
        return "quit"

    return answer


def test_a_person_plays_whole_deals_against_the_computer() -> None:
    out: list[str] = []
    answer = _scripted(random.Random(1), out, 1500)
    assert play_terminal("club", "random", 4, input_fn=answer, output_fn=out.append) == 0
    text = "\n".join(out)
    assert "deal 1 over" in text and "your hand:" in text and "scores:" in text


def test_illegal_input_reprompts_with_the_reason() -> None:
    script = iter(["bid 500", "dance", "help", "quit"])
    out: list[str] = []
    play_terminal("casa", "random", 2, input_fn=lambda _p: next(script), output_fn=out.append)
    text = "\n".join(out)
    assert "'dance' is not a command (help lists them)" in text
    assert "commands:" in text
    assert "Not allowed: you cannot bid 500: " in text


def test_a_word_that_is_not_a_card_is_told_with_the_ranks_of_mils_deck() -> None:
    # (it listed the 8 and the 7 too, which Mil does not use)
    script = iter(["play ZZ", "give 1H 1", "quit"])
    out: list[str] = []
    play_terminal("club", "random", 2, input_fn=lambda _p: next(script), output_fn=out.append)
    text = "\n".join(out)
    for word in ("ZZ", "1H"):
        assert f"'{word}' is not a card (expected rank A T K Q J 9 then suit S C D H" in text


def test_given_cards_of_the_opponents_stay_hidden() -> None:
    out: list[str] = []
    answer = _scripted(random.Random(7), out, 3000)
    play_terminal("club", "random", 9, input_fn=answer, output_fn=out.append)
    gives = [ln for ln in out if re.match(r"(Bruno|Carla) gives ", ln)]
    assert any(" gives you " in ln for ln in gives)
    assert any(ln.endswith(" a card") for ln in gives)
    for line in gives:
        # the card only when it comes to the person, in the table's notation
        if " gives you " in line:
            assert re.fullmatch(r"\w+ gives you (10|[AKQJ9])[♠♣♦♥]", line), line
        else:
            assert re.fullmatch(r"(Bruno gives Carla|Carla gives Bruno) a card", line), line


def test_parse_command_announces_automatically_when_the_only_choice() -> None:
    legal = [{"type": "play", "card": "KH", "marriage": True}]
    assert parse_command("play kh", legal) == {"type": "play", "card": "KH", "marriage": True}
    assert parse_command("give 9c 2", []) == {"type": "give", "card": "9C", "to": 2}
    assert parse_command("bid 120", []) == {"type": "bid", "value": 120}


def test_the_deal_that_ends_the_game_is_shown_before_the_winner(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tapete.terminal.mil as terminal
    from tapete.mil.game import MilGame
    from tapete.mil.scoring import Standing

    def near_the_end(profile: str, *, seed: int, players: list[str]) -> MilGame:
        # casa-500 with everybody at 490: the first made contract wins
        start = Standing(scores=(980, 980, 980))
        return MilGame(profile, seed=seed, players=players, standing=start)

    monkeypatch.setattr(terminal, "MilGame", near_the_end)
    out: list[str] = []
    answer = _scripted(random.Random(2), out, 5000)
    assert play_terminal("casa-500", "rules", 3, input_fn=answer, output_fn=out.append) == 0
    assert "wins with" in out[-1] and out[-1].endswith("!")
    overs = [i for i, line in enumerate(out) if " over: " in line and line.startswith("deal ")]
    assert overs and out[overs[-1]].startswith(f"deal {len(overs)} over: raw ")
    assert overs[-1] > max(i for i, line in enumerate(out) if line.startswith("legal: "))


def test_half_typed_commands_get_a_hint() -> None:
    assert (
        parse_command("contract abc", []) == "contract needs a number: for example 'contract 120'"
    )
    assert parse_command("bid", []) == "bid needs a number: for example 'bid 120'"
    assert parse_command("give 9C", []).startswith("give needs a card and a seat")
    assert parse_command("play", []).startswith("play needs a card")
    assert parse_command("play KH please", []).startswith("after the card only 'marriage'")
    # (a word too many: "bid needs a number" and "play needs a card", which they had)
    assert parse_command("bid 100 200", []) == "bid takes one number: for example 'bid 120'"
    assert parse_command("contract 120 5", []).startswith("contract takes one number")
    assert parse_command("give 9C 1 2", []).startswith("give takes a card and a seat")
    assert (
        parse_command("play KC marriage extra", [])
        == "nothing may follow 'play KC marriage', not 'extra'"
    )
    assert parse_command("play ZZ marriage extra", []).startswith("'ZZ' is not a card")
    # (a word that is no card is told so, cut short: it was echoed whole, upper-cased, into
    # "'play YYY...Y marriage'")
    told = parse_command("play " + "y" * 100_000 + " please", [])
    assert isinstance(told, str) and len(told) < 300
    assert told.startswith("'yyy") and "is not a card (expected rank A T K Q J 9 then" in told
    assert parse_command("dance", []) == "'dance' is not a command (help lists them)"


def test_a_card_alone_plays_it_in_any_notation() -> None:
    legal = [{"type": "play", "card": "KH", "marriage": True}]
    for text in ("KH", "kh", "K♥", "play k♥"):
        assert parse_command(text, legal) == {"type": "play", "card": "KH", "marriage": True}
    assert parse_command("10d", []) == {"type": "play", "card": "TD"}
    assert parse_command("give q♠ 2", []) == {"type": "give", "card": "QS", "to": 2}


def test_another_command_while_the_cards_are_played_is_refused_clearly() -> None:
    out: list[str] = []
    pick = _scripted(random.Random(5), out, 400)
    typed: list[str] = []

    def answer(prompt: str) -> str:
        legal = next((ln for ln in reversed(out) if ln.startswith("legal: ")), "")
        if legal.startswith("legal: play") and "rospis" not in typed:
            typed.append("rospis")
            return "rospis"
        return pick(prompt)

    play_terminal("club", "random", 6, input_fn=answer, output_fn=out.append)
    assert typed == ["rospis"]
    assert "Not now: the cards are being played; type 'play' and a card" in out


def test_a_computer_player_asking_for_a_redeal_shows_why() -> None:
    # the seeds: "show the cards that justify it" (the cards the engine's event shows)
    from tapete.terminal.mil import _redeal_proof

    def event(reason: str, shown: str) -> dict[str, object]:
        action = {"type": "redeal", "reason": reason}
        return {"type": "action", "seat": 1, "action": action, "shown": shown.split()}

    assert _redeal_proof(event("four_nines", "9S 9C 9D 9H")) == "9♠ 9♣ 9♦ 9♥"
    low = event("low_points", "JS JC QS QC QD KS KC")
    assert _redeal_proof(low) == "J♠ J♣ Q♠ Q♣ Q♦ K♠ K♣ (21 points)"
    assert _redeal_proof(event("low_talon", "KH QH JH")) == "K♥ Q♥ J♥ (9 points)"
    # and in a game: every computer redeal is followed by what justifies it
    for seed in range(1, 40):
        out: list[str] = []
        answer = _scripted(random.Random(seed), out, 60)
        play_terminal("club", "random", seed, input_fn=answer, output_fn=out.append)
        asks = [i for i, ln in enumerate(out) if " asks for a redeal (" in ln]
        for i in asks:
            assert out[i + 1].startswith(f"  {out[i].split()[0]} shows "), out[i + 1]
        if asks:
            break
    assert asks


def test_a_person_named_like_a_computer_player_gets_other_opponents() -> None:
    out: list[str] = []
    play_terminal("club", "random", 1, name="Bruno", input_fn=lambda _p: "quit",
                      output_fn=out.append)  # fmt: skip
    assert "Carla (seat 1)" in out[0] and "Dora (seat 2)" in out[0]


def test_the_end_of_deal_line_says_whether_the_declarer_made_it() -> None:
    out: list[str] = []
    answer = _scripted(random.Random(7), out, 200)
    play_terminal("club", "rules", 7, input_fn=answer, output_fn=out.append)
    overs = [ln for ln in out if ln.startswith("deal ") and " over: " in ln]
    assert overs
    for line in overs:
        outcome = line.split(" over: ")[1]
        assert (
            outcome.startswith("annulled (")
            or outcome.startswith("rospis: ")
            or " made it; scores " in outcome
            or " failed it; scores " in outcome
        ), line
        # the scores named, as the state lines name them (it was a bare list of numbers)
        assert re.search(r"; scores \w+ -?[\d.]+, \w+ -?[\d.]+, \w+ -?[\d.]+$", line), line


def test_leaving_says_so_as_in_mariage() -> None:
    out: list[str] = []

    def eof(_prompt: str) -> str:
        raise EOFError

    assert play_terminal("club", "rules", 7, input_fn=eof, output_fn=out.append) == 0
    assert out[-1] == "You leave the game."
    out.clear()
    assert play_terminal("club", "rules", 7, input_fn=lambda _p: "quit", output_fn=out.append) == 0
    assert out[-1] == "You leave the game."


def test_the_gives_are_listed_once_as_cards_and_seats() -> None:
    from tapete.terminal.mil import _legal_line

    legal = [
        {"type": "rospis"},
        *({"type": "give", "card": c, "to": t} for t in (1, 2) for c in ("9S", "AH")),
    ]
    assert _legal_line(legal) == "rospis, give CARD 1|2 (any of: 9S AH)"
    casa = [{"type": "give", "card": c, "to": 2} for c in ("9S", "AH")]  # the left one first
    assert _legal_line(casa) == "give CARD 2 (any of: 9S AH)"


def test_long_lists_of_bids_and_contracts_are_one_range() -> None:
    from tapete.terminal.mil import _legal_line

    bids = [{"type": "pass"}, *({"type": "bid", "value": v} for v in range(105, 225, 5))]
    assert _legal_line(bids) == "pass, bid 105-220 (steps of 5)"
    few = [{"type": "pass"}, {"type": "bid", "value": 110}, {"type": "bid", "value": 120}]
    assert _legal_line(few) == "pass, bid 110, bid 120"
    contracts = [{"type": "contract", "value": v} for v in range(120, 190, 10)]
    assert _legal_line(contracts) == "contract 120-180 (steps of 10)"


def test_a_number_that_is_not_plain_digits_gets_the_hint_not_a_traceback() -> None:
    """``str.isdigit`` takes "²" and "٣", which ``int`` refuses ("bid ²" ended the game
    with a ValueError); a number of more than 9 digits is no bid either."""
    for text in ("bid ²", "contract ٣", "give 9C ²", "bid -5"):
        said = parse_command(text, [])
        assert isinstance(said, str) and "needs" in said, (text, said)
    said = parse_command("bid 99999999999999999999", [])
    assert said == "99999999999999999999 is too large for a bid ('legal:' says what you may do)"
    assert parse_command("bid 120", []) == {"type": "bid", "value": 120}
    assert parse_command("give 9C 1", []) == {"type": "give", "card": "9C", "to": 1}


def test_the_computers_first_moves_of_a_deal_come_after_its_header() -> None:
    # seed 1: Bruno and Carla bid before the person's first turn of deal 1
    out: list[str] = []
    play_terminal("club", "rules", 1, input_fn=lambda _p: "quit", output_fn=out.append)
    header = next(i for i, line in enumerate(out) if "--- deal 1 (club)" in line)
    first_move = next(i for i, line in enumerate(out) if line.startswith(("Bruno ", "Carla ")))
    assert header < first_move


def test_end_of_deal_notes_name_the_seats_and_say_you_to_the_person() -> None:
    # (they said "seat 2 (Carla) fails its contract in the barrel": people are not "it")
    from tapete.terminal.mil import _note

    names = ["Ana", "Bruno", "Carla"]
    for note, said in (
        ("seat 1 enters the barrel", "Bruno enters the barrel"),
        ("seat 0 enters the barrel", "You enter the barrel"),
        ("seat 0: third bolt, -120", "You: third bolt, -120"),
        ("seat 2 fails its contract in the barrel", "Carla fails the contract in the barrel"),
        ("seat 0 fails its contract in the barrel", "You fail your contract in the barrel"),
        ("seat 0 makes 120 from the barrel and wins", "You make 120 from the barrel and win"),
        ("seat 1 makes 120 from the barrel and wins", "Bruno makes 120 from the barrel and wins"),
        ("seat 0 is pushed out of the barrel, -120", "You are pushed out of the barrel, -120"),
        (
            "seat 0 arrives third at the barrel and scores 760",
            "You arrive third at the barrel and score 760",
        ),
        ("seat 2: three attempts used, -120", "Carla: three attempts used, -120"),
        ("seat 0: third failed visit, back to 0", "You: third failed visit, back to 0"),
    ):
        assert _note(note, names) == said


def test_the_person_who_wins_is_told_so_in_the_second_person(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # (it said "You wins with 1075!")
    import tapete.terminal.mil as terminal
    from tapete.mil.game import MilGame
    from tapete.mil.scoring import Standing

    def near_the_end(profile: str, *, seed: int, players: list[str]) -> MilGame:
        return MilGame(profile, seed=seed, players=players, standing=Standing(scores=(980, 0, 0)))

    monkeypatch.setattr(terminal, "MilGame", near_the_end)
    endings = set()
    for seed in range(1, 12):
        out: list[str] = []
        answer = _scripted(random.Random(seed), out, 5000)
        play_terminal("casa-500", "rules", seed, input_fn=answer, output_fn=out.append)
        if out[-1].startswith("You"):
            assert out[-1].startswith("You win with ") and out[-1].endswith("!")
            endings.add("you")
        elif "wins with" in out[-1]:
            endings.add("other")
    assert "you" in endings


def _typed(lines: list[str], profile: str = "club", seed: int = 1) -> list[str]:
    """What the terminal writes for ``lines`` typed in turn (then the end of input)."""
    out: list[str] = []
    play_terminal(profile, "rules", seed, input_fn=scripted(lines), output_fn=out.append)
    return out


def test_the_engines_reasons_are_said_to_the_person() -> None:
    # (Mil showed them raw: "seat 0 cannot play JD: JD is not in its hand")
    out = _typed(["bid 120", "give JD 1", "give 9H 0", "give 9H 1", "give QS 1", "give QS 2",
                  "contract 120", "play JD"])  # fmt: skip
    refused = [line.removeprefix("> ") for line in out if "llowed" in line]
    assert refused == [
        # (the engine names the hand for a card played only: the terminal adds it)
        "Not allowed: you cannot give JD 1: JD is not in your hand "
        "(you hold AH, TH, KH, QH, 9H, TC, QC, AS, TS, QS)",
        "Not allowed: you cannot give 9H 0: you give to the opponents, not to yourself",
        "Not allowed: you cannot give QS 1: Bruno already got a card",
        "Not allowed: you cannot play JD: JD is not in your hand "
        "(you hold AH, TH, KH, QH, TC, QC, AS, TS)",
    ]
    # seed 18: a hand of too few points, offered a redeal before the auction
    (said,) = [line for line in _typed(["bid 100"], seed=18) if "llowed" in line]
    assert said == (
        "Not allowed: you cannot bid 100: you must first say whether you ask for a redeal "
        "(not bid 100)"
    )


def test_a_bare_word_that_is_not_a_card_is_told_mils_ranks() -> None:
    # (docs/cli.md promised it, but 'ZZ' alone got "I did not understand 'ZZ'")
    out = _typed(["ZZ", "1H", "dance"])
    ranks = "(expected rank A T K Q J 9 then suit S C D H, e.g. 'KH'), nor a command"
    assert f"'ZZ' is not a card {ranks} (help lists them)" in out
    assert f"'1H' is not a card {ranks} (help lists them)" in out
    assert "'dance' is not a command (help lists them)" in out


def test_numbers_too_large_and_seats_that_are_none_are_told_plainly() -> None:
    # (bid 9999999999 got "bid needs a number"; give 9H 3 "give needs a whole number 'to'
    # from 0 to 2", the record's field name, offering the person's own seat)
    too_large = "is too large for a bid ('legal:' says what you may do)"
    out = _typed(["bid 9999999999", "bid 20000", "bid 120", "give 9H 3", "give 9H 1",
                  "give QS 3"])  # fmt: skip
    assert f"9999999999 {too_large}" in out and f"20000 {too_large}" in out
    assert "give goes to seat 1 or 2, not 3" in out
    assert "give goes to seat 2, not 3" in out  # (the one left)
    assert not any("'to'" in line or "'value'" in line for line in out)


def test_long_numbers_are_said_back_cut_short() -> None:
    # (6,000 nines after bid were said back whole: 6,080 characters)
    out = _typed([f"bid {'9' * 6000}", f"contract {'9' * 5000}", f"give 9D {'9' * 5000}"])
    cut = "9" * 196 + "..."  # (as tapete.cards.shown cuts a word, without the quotes)
    assert f"{cut} is too large for a bid ('legal:' says what you may do)" in out
    assert f"{cut} is too large for a contract ('legal:' says what you may do)" in out
    assert f"give goes to seat 1 or 2, not {cut}" in out
    assert max(map(len, out)) < 300


def test_any_number_typed_as_a_seat_that_is_none_names_the_seats() -> None:
    # (give 9D -1 and give 9D 1234567890123 got "give needs a card and a seat", both typed)
    out = _typed(["give 9D 1234567890123", "give 9D -1", "give 9D 12345"])
    assert "give goes to seat 1 or 2, not 1234567890123" in out
    assert "give goes to seat 1 or 2, not -1" in out
    assert "give goes to seat 1 or 2, not 12345" in out
    assert not any("needs" in line for line in out)


def test_a_plain_redeal_after_the_auction_is_refused_without_a_reason_of_ours() -> None:
    # (it said "you cannot redeal low_points: no redeal for low_points after the auction",
    # a reason the person never typed); a reason typed is the engine's to refuse
    for profile in ("club", "casa"):
        out = _typed(["bid 120", "redeal", "redeal low_points"], profile=profile)
        refused = [line for line in out if "redeal" in line and not line.startswith("legal")]
        assert refused == [
            "Not allowed: you cannot redeal: no redeal is possible now "
            "('legal:' says what you may do)",
            "Not allowed: you cannot redeal low_points: no redeal for low_points after the auction",
        ], profile


def test_the_computers_moves_are_in_the_tables_notation_with_names() -> None:
    # (they were "Bruno: give ?? 2", "Bruno: give 9S 0", "Bruno: play AD")
    out = _typed(["pass"])
    moves = [line.removeprefix("> ") for line in out]
    moves = [m for m in moves if m.startswith(("Bruno ", "Carla "))]
    assert moves == [
        "Bruno bids 100",
        "Carla passes",
        "Bruno gives Carla a card",
        "Bruno gives you 9♠",
        "Bruno fixes the contract at 105",
        "Bruno plays A♦",
        "Carla plays 9♦",
    ]


def test_a_computers_marriage_is_said_with_its_play() -> None:
    from tapete.terminal.mil import _move

    names = ["You", "Bruno", "Carla"]
    seen = [
        {"type": "action", "seat": 2, "action": {"type": "play", "card": "KH", "marriage": True}},
        {"type": "marriage", "seat": 2, "suit": "H", "value": 100},
    ]
    assert _move(seen, names) == "Carla plays K♥ and announces the marriage ♥ +100"
    redeal = {"type": "redeal", "reason": "low_points"}
    said = _move([{"seat": 1, "action": redeal}], names)
    assert said == "Bruno asks for a redeal (too few points in hand)"
    keep = {"type": "keep"}
    assert _move([{"seat": 1, "action": keep}], names) == "Bruno keeps the cards"


def test_an_output_that_cannot_show_the_suits_gets_letters() -> None:
    # (PYTHONIOENCODING=latin-1: a UnicodeEncodeError at the first hand shown)
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="latin-1", newline="\n")
    answer = scripted(["pass", "help"])
    assert play_terminal("club", "rules", 1, input_fn=answer, output_fn=printer(stream)) == 0
    stream.flush()
    text = raw.getvalue().decode("latin-1")
    assert "your hand: AH 10H KH QH AS 10S 10C" in text
    assert "Bruno gives you 9S" in text and "pairs held: H" in text
    assert "cards: rank A T K Q J 9 (T is the ten; 10 works too) then suit S C D H" in text


def test_a_redeal_typed_as_the_legal_line_shows_it_is_accepted() -> None:
    # (seed 18 offers a redeal; 'legal:' showed "redeal (low_points)", and typing that got
    # "redeal reason '(low_points)' is not one of four_nines, low_points, low_talon"; the
    # annulled deal was then told with the engine's key: "annulled (low_points)")
    out = _typed(["redeal (low_points)"], seed=18)
    assert any(ln.startswith("legal: ") and "redeal (low_points)" in ln for ln in out)
    assert not any("is not one of" in ln or "not allowed" in ln.lower() for ln in out)
    (over,) = [ln for ln in out if ln.startswith("deal 1 over: ")]
    assert over.startswith("deal 1 over: annulled (too few points in hand), same dealer")
