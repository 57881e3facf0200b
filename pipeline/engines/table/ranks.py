"""What the table family's rules make of each card: its rank as the game orders ranks, and
Război's war values. Apart from the reference engine, so that the compiled engine, which needs
only these, does not import it (about 8 ms of every compiled run's start)."""

from __future__ import annotations

from ...model.deal import deck_of
from ...model.schema import RuleSet


def ranks_of(rules: RuleSet) -> tuple[int, ...]:
    """Each card code's rank index as the game orders ranks (docs/rules.md 1.1, 2.8): the deck's,
    or under aces=low with the Ace (the deck's top rank) below the 2, every other rank one up;
    Jokers above every rank."""
    rank = deck_of(rules).rank
    if rules.aces == "high":
        return rank
    return tuple(r if r == rules.ranks else (r + 1) % rules.ranks for r in rank)


def war_values(rules: RuleSet) -> tuple[int, ...] | None:
    """Război: the value of each rank index (docs/rules.md 5.1; the Ace's is ace_value wherever
    aces put it), or None when war size is fixed."""
    if rules.war_down != "by_rank":
        return None
    values = [r + 2 for r in range(9)] + [10, 10, 10, rules.ace_value]
    if rules.aces == "low":
        values = values[-1:] + values[:-1]
    return tuple(values) + (rules.ace_value + 1,)
