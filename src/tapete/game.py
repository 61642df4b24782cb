"""The protocols every game (Mil, Mariage) implements; see docs/dev/contract.md."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["JSON", "Action", "Game"]

JSON = dict[str, Any]


@runtime_checkable
class Action(Protocol):
    """A frozen dataclass with its record form and a stable dense id."""

    def to_json(self) -> JSON: ...

    @property
    def id(self) -> int: ...


class Game(Protocol):
    """A whole game (Mil) or match (Mariage): a sequence of deals played to the end."""

    name: str
    profile_name: str
    players: list[str]
    seed: int | None

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int | None: ...

    @property
    def turn(self) -> int | None: ...

    @property
    def phase(self) -> str: ...

    def legal_actions(self) -> list[Any]: ...

    def apply(self, action: Any) -> Any: ...

    def parse_action(self, data: JSON) -> Any: ...

    def view(self, seat: int | None) -> JSON: ...

    def to_record(self) -> JSON: ...
