"""Scores kept in half points, written as the JSON numbers of the ``tapete/1`` format.

A Mil rospis gives each opponent half the bid, so the engine keeps every score in half
points (ints) and converts only at the edge: records, views and sheets.

>>> score_json(250), score_json(125), score_json(-105)
(125, 62.5, -52.5)
"""

from __future__ import annotations

__all__ = ["score_json"]


def score_json(half_points: int) -> int | float:
    """A score kept in half points as the JSON number the format writes (``125`` or ``62.5``)."""
    return half_points // 2 if half_points % 2 == 0 else half_points / 2
