"""What the terminal tests share: input typed from a script."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def scripted(lines: Iterable[str]) -> Callable[[str], str]:
    """An ``input_fn`` that answers each prompt with the next of ``lines``, then ends the
    input (``EOFError``, as Ctrl-D does)."""
    script = iter(lines)

    def answer(_prompt: str) -> str:
        line = next(script, None)
        if line is None:
            raise EOFError
        return line

    return answer
