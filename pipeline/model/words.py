"""Counts said in words for messages and pages: `1 battle`, `2 battles`."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None, grouped: bool = True) -> str:
    """`1 game`, `2,000 games` (`many` for an irregular plural); `grouped=False` writes the
    number as the text around it does (a replay's battles are numbered `Battle 1024`)."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else (many or word + 's')}"
