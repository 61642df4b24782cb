"""A player's name as every front end takes it (the server's tables and player pages, the
terminal's ``play --name``): runs of whitespace squeezed to one space, then 1 to
:data:`MAX_NAME_CHARS` printable characters."""

from __future__ import annotations

__all__ = ["MAX_NAME_CHARS", "player_name", "squeeze"]

#: the longest name a player may play under
MAX_NAME_CHARS = 32


def squeeze(text: str) -> str:
    """``text`` with its runs of whitespace as one space, none at the ends."""
    return " ".join(text.split())


def player_name(text: str) -> str | None:
    """The name ``text`` stands for (squeezed), or None when it is no name: empty, longer than
    :data:`MAX_NAME_CHARS`, or holding a control character."""
    name = squeeze(text)
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        return None
    return name
