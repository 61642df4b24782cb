"""Helpers shared by the Mil tests (this module holds no tests).

Deals are written as text: hands ``"AH TH KH ..."`` and action scripts such as
``"bid 100 pass pass give AD 1 give AH 2 contract 160 play AC play QD* ..."`` where ``*``
marks a lead that announces a marriage.
"""

from __future__ import annotations

from collections.abc import Sequence

from tapete.cards import parse_card
from tapete.mil import (
    Bid,
    Contract,
    Give,
    KeepDeal,
    MilAction,
    MilGame,
    Pass,
    Play,
    Profile,
    Redeal,
    Rospis,
    Standing,
    State,
)


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def parse_script(script: str) -> list[MilAction]:
    """``"bid 100 pass give AD 1 contract 160 play QD*"`` -> actions."""
    toks = script.split()
    out: list[MilAction] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "bid":
            out.append(Bid(int(toks[i + 1])))
            i += 2
        elif t == "contract":
            out.append(Contract(int(toks[i + 1])))
            i += 2
        elif t == "pass":
            out.append(Pass())
            i += 1
        elif t == "keep":
            out.append(KeepDeal())
            i += 1
        elif t == "rospis":
            out.append(Rospis())
            i += 1
        elif t == "redeal":
            out.append(Redeal(toks[i + 1]))
            i += 2
        elif t == "give":
            out.append(Give(parse_card(toks[i + 1]), int(toks[i + 2])))
            i += 3
        elif t == "play":
            c = toks[i + 1]
            out.append(Play(parse_card(c.rstrip("*")), c.endswith("*")))
            i += 2
        else:  # pragma: no cover - a typo in a test
            raise ValueError(f"bad script token {t!r}")
    return out


def make_state(
    profile: Profile,
    dealer: int,
    hands: Sequence[str],
    talon: str,
    in_barrel: Sequence[bool] = (False, False, False),
) -> State:
    return State(profile, dealer, [cards(h) for h in hands], cards(talon), in_barrel)


def run(st: State, script: str) -> State:
    for a in parse_script(script):
        st.apply(a)
    return st


class Deal:
    """A fixed deal with a known play script; ``rotated(k)`` moves every seat k places on."""

    def __init__(self, hands: Sequence[str], talon: str, dealer: int, script: str) -> None:
        self.hands = list(hands)
        self.talon = talon
        self.dealer = dealer
        self.script = script

    def rotated(self, k: int) -> Deal:
        hands = [self.hands[(s - k) % 3] for s in range(3)]
        toks = self.script.split()
        for i, t in enumerate(toks):
            if t == "give":
                toks[i + 2] = str((int(toks[i + 2]) + k) % 3)
        return Deal(hands, self.talon, (self.dealer + k) % 3, " ".join(toks))

    def with_script(self, script: str) -> Deal:
        return Deal(self.hands, self.talon, self.dealer, script)

    def replace(self, old: str, new: str) -> Deal:
        assert old in self.script, old
        return self.with_script(self.script.replace(old, new))

    def state(self, profile: Profile, in_barrel: Sequence[bool] = (False, False, False)) -> State:
        return make_state(profile, self.dealer, self.hands, self.talon, in_barrel)

    def played(self, profile: Profile, in_barrel: Sequence[bool] = (False, False, False)) -> State:
        return run(self.state(profile, in_barrel), self.script)

    def source(self) -> tuple[list[list[int]], list[int]]:
        return [cards(h) for h in self.hands], cards(self.talon)


#: club, dealer 2, declarer 0 (bid 100, contract 160): 84 card points + the diamonds marriage
#: (80) = 164; the defenders take 23 and 13 card points (seed 000/003 section 08). No trick
#: is decided by a trump, so the same cards without the announcement leave raw 84.
CLUB_164 = Deal(
    ["KD QD TC TH AC AD TD", "9C JD KC KH KS JC JH", "QS 9D AS TS QC QH 9H"],
    "AH 9S JS",
    2,
    "bid 100 pass pass give AD 1 give AH 2 contract 160 "
    "play AC play KC play QC play QD* play AD play 9D play KH play QH play TH "
    "play KD play JD play 9H play TC play JC play AS play TD play 9C play TS "
    "play JS play KS play QS play JH play AH play 9S",
)

#: club, dealer 2, declarer 0 (contract 100) makes it; seat 2 takes no card point (a bolt).
CLUB_BOLT = Deal(
    ["TH JD KC KH 9H TC TS", "9D 9C KS AH AS KD QS", "AD JS JC QD 9S TD QH"],
    "AC QC JH",
    2,
    "bid 100 pass pass give JD 1 give JH 2 contract 100 "
    "play KC play 9C play JC play 9H play AH play JH play KS play 9S play TS "
    "play TC play AS play QD play AC play JD play AD play QC play KD play QH "
    "play KH play QS play JS play TH play 9D play TD",
)

#: casa, dealer 2, declarer 0 (contract 120): 78 card points + clubs 60 = 138; the defenders
#: take 24 and 18 (seed 004 step 9).
CASA_138 = Deal(
    ["KC QC 9H KH AS 9C JH", "QH 9D JC AC KD TS JD", "TH JS AD TD TC 9S KS"],
    "QD AH QS",
    2,
    "bid 100 pass pass give QS 1 give JH 2 contract 120 "
    "play QD play KD play AD play TH play AH play QH play QC* play AC play TC "
    "play TS play KS play AS play KC play JC play JH play KH play QS play TD "
    "play 9H play 9D play JS play 9C play JD play 9S",
)


def game_of(
    profile: Profile | str,
    deal: Deal,
    *,
    scores: Sequence[float] = (0, 0, 0),
    dealer: int | None = None,
    **standing: tuple[int, int, int] | tuple[bool, bool, bool],
) -> MilGame:
    """A game from ``scores`` (whole or half points) whose every deal is ``deal`` rotated so
    that the seat left of the current dealer is the deal's declarer."""
    half = tuple(int(2 * s) for s in scores)
    st = Standing(scores=(half[0], half[1], half[2]), **standing)  # type: ignore[arg-type]

    def source(d: int) -> tuple[list[list[int]], list[int]]:
        return deal.rotated((d - deal.dealer) % 3).source()

    return MilGame(
        profile,
        standing=st,
        dealer=deal.dealer if dealer is None else dealer,
        deal_source=source,
    )


def play_deal(game: MilGame, deal: Deal) -> None:
    """Play ``deal``'s script (rotated to the game's dealer) as the game's current deal."""
    script = deal.rotated((game.dealer - deal.dealer) % 3).script
    for a in parse_script(script):
        game.apply(a)


def points(standing: Standing) -> list[float]:
    return [s / 2 for s in standing.scores]
