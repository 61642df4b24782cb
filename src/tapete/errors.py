"""The exceptions every layer shares."""

from __future__ import annotations

from tapete.cards import InvalidNotationError

__all__ = ["IllegalActionError", "InvalidNotationError", "RecordError"]


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    The message is a whole sentence naming the seat, the action and the reason, e.g.
    ``"seat 2 cannot play KS: must follow hearts (holds QH, 9H)"``.
    """


class RecordError(ValueError):
    """A tapete/1 record that is malformed, illegal or whose results do not match.

    ``game``, ``deal`` and ``action`` are 0-based indexes of where the first problem is
    (``None`` when the problem is not inside one).
    """

    def __init__(
        self,
        message: str,
        *,
        game: int | None = None,
        deal: int | None = None,
        action: int | None = None,
    ) -> None:
        self.reason = message
        self.game = game
        self.deal = deal
        self.action = action
        super().__init__(self._render())

    def located(self, *, game: int | None = None) -> RecordError:
        """The same error with the game index filled in."""
        return RecordError(
            self.reason,
            game=self.game if game is None else game,
            deal=self.deal,
            action=self.action,
        )

    def _render(self) -> str:
        where = []
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.action is not None:
            where.append(f"action {self.action}")
        return (", ".join(where) + ": " if where else "") + self.reason
