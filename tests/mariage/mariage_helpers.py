"""Helpers for the Mariage tests: build a hand from a few named cards and play a script."""

from __future__ import annotations

from tapete.cards import parse_card, parse_suit
from tapete.mariage import Action, State
from tapete.mariage.actions import CLAIM, CLOSE, DECLINE, EXCHANGE, MARRIAGES, PLAYS
from tapete.mariage.state import DECK_ORDER


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def make_state(hand0: str, hand1: str, *, top: str = "", indicator: str, dealer: int = 1) -> State:
    """A hand where seat 0 holds ``hand0``, seat 1 ``hand1``; the stock starts with ``top``
    (drawn first) and ends with ``indicator``; the other cards fill the middle in deck order.
    With the default dealer 1, seat 0 leads the first trick."""
    h0, h1, t, ind = cards(hand0), cards(hand1), cards(top), parse_card(indicator)
    used = {*h0, *h1, *t, ind}
    rest = [c for c in DECK_ORDER if c not in used]
    return State([h0, h1], [*t, *rest, ind], dealer)


def action(token: str) -> Action:
    """``"KH"`` plays KH; ``exchange``, ``close``, ``claim``, ``decline``; ``marriage:H``."""
    if token == "exchange":
        return EXCHANGE
    if token == "close":
        return CLOSE
    if token == "claim":
        return CLAIM
    if token == "decline":
        return DECLINE
    if token.startswith("marriage:"):
        return MARRIAGES[parse_suit(token.split(":")[1])]
    return PLAYS[parse_card(token)]


def run(state: State, script: str) -> State:
    """Apply the space-separated tokens of ``script`` in order."""
    for token in script.split():
        state.apply(action(token))
    return state


def from_deal(hand0: str, hand1: str, stock: str, dealer: int = 1) -> State:
    """A hand dealt exactly as written (record order, the indicator last)."""
    return State([cards(hand0), cards(hand1)], cards(stock), dealer)
