"""The examples in the Mariage modules' docstrings run."""

from __future__ import annotations

import doctest

import pytest

import tapete.mariage.actions
import tapete.mariage.game
import tapete.mariage.state


@pytest.mark.parametrize(
    "module", [tapete.mariage.actions, tapete.mariage.state, tapete.mariage.game]
)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, verbose=False)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0
