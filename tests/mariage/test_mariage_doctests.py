"""The examples in the Mariage modules' docstrings run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import tapete.mariage.actions
import tapete.mariage.game
import tapete.mariage.state
from tapete._compiled import import_copy


@pytest.mark.parametrize(
    "module", [tapete.mariage.actions, tapete.mariage.state, tapete.mariage.game]
)
def test_doctests(module: ModuleType) -> None:
    source = module
    if not (module.__file__ or "").endswith(".py"):
        # compiled with mypyc, which drops docstrings: the examples of the source, run with
        # the compiled module's names
        source = import_copy(module.__name__, "doctest_", pure=True)
    result = doctest.testmod(source, globs=dict(vars(module)), verbose=False)
    assert result.failed == 0 and result.attempted > 0
