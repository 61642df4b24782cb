"""The ``random`` player: uniform among the legal actions of its view."""

from __future__ import annotations

import random
from typing import Any

from tapete.bots.base import parse_action
from tapete.game import JSON

__all__ = ["RandomBot"]


class RandomBot:
    """Picks uniformly among ``view["legal"]``: every rule (rospis, redeals, jump bids,
    marriages, closing, false claims) gets exercised in simulations."""

    name = "random"

    def act(self, view: JSON, rng: random.Random) -> Any:
        legal = view["legal"]
        if not legal:
            raise ValueError(f"seat {view.get('seat')} has no legal action in this view")
        return parse_action(view["game"], legal[rng.randrange(len(legal))])
