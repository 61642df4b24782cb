"""Mariage (a 66-family game for two): actions, one hand's state machine, the match, records.

The rules are ``docs/rules-mariage.md``; the internal contract is ``docs/dev/contract.md``.
"""

from tapete.mariage.actions import (
    ACTION_COUNT,
    Action,
    Claim,
    Close,
    Decline,
    Exchange,
    Marriage,
    Play,
    action_from_id,
    action_from_json,
)
from tapete.mariage.game import TARGET, MariageGame
from tapete.mariage.record import replay_mariage
from tapete.mariage.state import HandResult, Phase, Reason, State, game_points_rate

__all__ = [
    "ACTION_COUNT",
    "TARGET",
    "Action",
    "Claim",
    "Close",
    "Decline",
    "Exchange",
    "HandResult",
    "MariageGame",
    "Marriage",
    "Phase",
    "Play",
    "Reason",
    "State",
    "action_from_id",
    "action_from_json",
    "game_points_rate",
    "replay_mariage",
]
