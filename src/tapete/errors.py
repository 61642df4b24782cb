"""The exceptions every layer shares."""

from __future__ import annotations

from tapete.cards import InvalidNotationError

__all__ = ["MAX_MESSAGE", "IllegalActionError", "InvalidNotationError", "RecordError", "json_kind"]

#: the longest reason a RecordError gives
MAX_MESSAGE = 500


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    The message is a whole sentence naming the seat, the action and the reason, e.g.
    ``"seat 2 cannot play KS: must follow hearts (holds QH, 9H)"``.
    """


class RecordError(ValueError):
    """A tapete/1 record that is malformed, illegal or whose results do not match.

    ``game``, ``deal`` and ``action`` are 0-based indexes of where the first problem is
    (``None`` when the problem is not inside one); ``line`` is the 1-based line of the file
    where the game's record starts, when it was read from one. The message is always one
    line of at most :data:`MAX_MESSAGE` characters, whatever the record held.
    """

    def __init__(
        self,
        message: str,
        *,
        game: int | None = None,
        deal: int | None = None,
        action: int | None = None,
        line: int | None = None,
    ) -> None:
        # one line, bounded: a hostile record must not choose what an error prints
        message = " ".join(message.splitlines())
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        self.reason = message
        self.game = game
        self.deal = deal
        self.action = action
        self.line = line
        super().__init__(self._render())

    def located(
        self,
        *,
        game: int | None = None,
        deal: int | None = None,
        action: int | None = None,
        line: int | None = None,
    ) -> RecordError:
        """The same error with the places given filled in where it has none yet."""
        return RecordError(
            self.reason,
            game=self.game if self.game is not None else game,
            deal=self.deal if self.deal is not None else deal,
            action=self.action if self.action is not None else action,
            line=self.line if self.line is not None else line,
        )

    def _render(self) -> str:
        where = []
        if self.game is not None:
            where.append(f"game {self.game}" + (f" (line {self.line})" if self.line else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.action is not None:
            where.append(f"action {self.action}")
        return (", ".join(where) + ": " if where else "") + self.reason


#: JSON's words for the Python types a parsed record holds (a reader of a record error knows
#: JSON, not Python: "not null", never "not NoneType")
_JSON_KINDS = {
    "NoneType": "null",
    "bool": "true/false",
    "int": "a number",
    "float": "a number",
    "str": "a string",
    "dict": "an object",
    "list": "list",
}


def json_kind(value: object) -> str:
    """What ``value`` is, in JSON's words (``null``, ``a string``, ``an object`` ...)."""
    name = type(value).__name__
    return _JSON_KINDS.get(name, name)
