"""A count said with its noun (`1 game`, `2,000 games`): read by the words of rule sets and
by the families' own option words, so it lives apart from both."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None, grouped: bool = True) -> str:
    """`1 game`, `2,000 games` (`many` for an irregular plural); `grouped=False` writes the
    number as the text around it does (a replay's battles are numbered `Battle 1024`)."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else (many or word + 's')}"
