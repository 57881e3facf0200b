"""Slap War's reference engine (README): Classic War's game (pipeline.plugin.TableGame) with one
rule changed, what a tie for the best card is: first a pair to slap (hook `tie`). It asks each
seat's policy through `decide` (logged as a `decision`); the seat that slaps takes the table as
it lies, logged as a `slap` event. `position` counts who may slap first (`taker`, the seat that
took the last table). A tie is the only step it changes, so its battles without one play on
Classic War's own loops.
"""

from __future__ import annotations

from pipeline.plugin import TableGame

from .policies import SlapView


def play_slap(rules, deal, chance, rec, chooser):
    """Play one game of Slap War to its end, reporting every step to `rec`."""
    return SlapGame(rules, deal, chance, rec, chooser).play()


class SlapGame(TableGame):
    """A game of Classic War in which a tie for the best card is a pair to slap first."""

    __slots__ = ("after_winner",)

    def __init__(self, rules, deal, chance, rec, chooser) -> None:
        super().__init__(rules, deal, chance, rec, chooser)
        self.after_winner = rules.slap_order == "after_winner"

    def position(self) -> tuple:
        """Classic War's position (every pile as strengths, the war wins under wars:N) and, when
        the seat after the last winner may slap first, that winner, as one more pile of one
        number: the cycle's key then tells the two positions apart."""
        piles, war_wins = super().position()
        if self.after_winner:
            piles += ((-1 if self.taker is None else self.taker,),)
        return piles, war_wins

    def tie(self, battle: int, tied: list[int], best: int):
        """A pair of best cards: each seat in turn may slap it (README 2); the first that does
        takes the table as it lies, a `slap` (no war). Nobody slaps: a war, as in Classic War."""
        first = (self.taker + 1) % self.n if self.after_winner and self.taker is not None else 0
        for i in range(self.n):
            seat = (first + i) % self.n
            if not self.alive[seat]:
                continue
            view = SlapView(seat, best, len(self.table), self.holding(seat))
            if self.decide(battle, "slap", seat, view, (seat,)):
                return seat, "slap"
        return None
