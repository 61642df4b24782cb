"""Mil (Thousand, Tysiąc, Тысяча): the three-player marriage game to 1000.

Public names: profiles (:data:`CLUB`, :data:`CASA`, :data:`CASA_500`), the deal
:class:`State` with its :class:`Phase`, the actions, the whole-game :class:`MilGame`,
scoring (:func:`settle`) and record replay (:func:`replay_mil`).
"""

from tapete.mil.actions import (
    NUM_ACTIONS,
    Bid,
    Contract,
    Give,
    KeepDeal,
    MilAction,
    Pass,
    Play,
    Redeal,
    Rospis,
    action_from_id,
    action_from_json,
)
from tapete.mil.game import MilGame, deal_cards
from tapete.mil.profiles import CASA, CASA_500, CLUB, PROFILES, Profile, get_profile
from tapete.mil.record import replay_mil
from tapete.mil.scoring import DealResult, Standing, settle
from tapete.mil.state import MARRIAGE_VALUES, Phase, State, held_marriages, trick_winner

__all__ = [
    "CASA",
    "CASA_500",
    "CLUB",
    "MARRIAGE_VALUES",
    "NUM_ACTIONS",
    "PROFILES",
    "Bid",
    "Contract",
    "DealResult",
    "Give",
    "KeepDeal",
    "MilAction",
    "MilGame",
    "Pass",
    "Phase",
    "Play",
    "Profile",
    "Redeal",
    "Rospis",
    "Standing",
    "State",
    "action_from_id",
    "action_from_json",
    "deal_cards",
    "get_profile",
    "held_marriages",
    "replay_mil",
    "settle",
    "trick_winner",
]
