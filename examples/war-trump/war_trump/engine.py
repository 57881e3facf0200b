"""Trump War's reference engine (README): Classic War's game (pipeline.plugin.TableGame) with two
hooks changed: `strength`, a trump above every card of another suit, and `decides`, a `trump`
event where a trump decided the step. Both are asked once per card (or pair of cards) of the
deck and kept as tables, so its games play on the same loops as Classic War's.
"""

from __future__ import annotations

from pipeline.plugin import TableGame

from . import SUITS


def play_trump(rules, deal, chance, rec, chooser):
    """Play one game of Trump War to its end, reporting every step to `rec`."""
    return TrumpGame(rules, deal, chance, rec, chooser).play()


class TrumpGame(TableGame):
    """A game of Classic War in which the cards of the trump suit rank above all others."""

    __slots__ = ()

    def trump(self) -> int | None:
        """The trump suit's index, None for `trump = none`."""
        return None if self.rules.trump == "none" else SUITS.index(self.rules.trump)

    def strength(self, card: int) -> int:
        """README 2: a trump ranks above every card of another suit (its rank plus the number of
        ranks); among trumps, and among the others, ranks decide; a Joker is a card of no suit
        and stays above all. Without a trump, the strength is the rank: Classic War's."""
        rank, ranks = self.rank[card], self.deck.ranks
        if self.suit(card) is None:
            return rank if self.trump() is None else 2 * ranks
        return rank + ranks if self.suit(card) == self.trump() else rank

    def decides(self, card: int, other: int) -> str | None:
        """README 3: a trump best over a card of another suit that ranks as high or higher
        decided the step: a `trump` event."""
        trump = self.trump()
        if trump is not None and self.suit(card) == trump and self.suit(other) != trump \
                and self.rank[other] >= self.rank[card]:
            return "trump"
        return None
