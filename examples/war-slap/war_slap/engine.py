"""Slap War's reference engine (README): Classic War's game (pipeline.plugin.TableGame) with one
hook changed, `wars`: a tie for the best card is first a pair to slap. It asks each seat's policy
through `decide` (logged as a `decision`), and the table a slap takes is logged as a `slap`
event (hooks `pick_up`, `collect`); `position` counts who may slap first.
"""

from __future__ import annotations

from pipeline.plugin import TableGame

from .policies import SlapView


def play_slap(rules, deal, chance, rec, chooser):
    """Play one game of Slap War to its end, reporting every step to `rec`."""
    return SlapGame(rules, deal, chance, rec, chooser).play()


class SlapGame(TableGame):
    """A game of Classic War in which a tie for the best card is a pair to slap first."""

    __slots__ = ("after_winner", "last_winner", "slapped")

    def __init__(self, rules, deal, chance, rec, chooser) -> None:
        super().__init__(rules, deal, chance, rec, chooser)
        self.after_winner = rules.slap_order == "after_winner"
        self.last_winner: int | None = None  # the seat that took the last table
        self.slapped = False  # this battle's table goes to a slap

    def position(self) -> tuple:
        """Classic War's position (every pile as strengths, the war wins under wars:N) and, when
        the seat after the last winner may slap first, that winner, as one more pile of one
        number: the cycle's key then tells the two positions apart."""
        piles, war_wins = super().position()
        if self.after_winner:
            piles += ((-1 if self.last_winner is None else self.last_winner,),)
        return piles, war_wins

    def wars(self, battle: int, tied: list[int], best: int):
        """A pair of best cards: each seat in turn may slap it (README 2); the first that does
        takes the table (no war). Nobody slaps: a war, as in Classic War."""
        first = (self.last_winner + 1) % self.n if self.after_winner and self.last_winner is not None else 0
        for i in range(self.n):
            seat = (first + i) % self.n
            if not self.alive[seat]:
                continue
            view = SlapView(seat, best, len(self.table), self.holding(seat))
            if self.decide(battle, "slap", seat, view, (seat,)):
                self.slapped = True
                return seat, 0
        return super().wars(battle, tied, best)

    def pick_up(self, seat: int, battle: int) -> list[int]:
        """A slapped table is taken as it lies; any other by the pickup rule."""
        return list(self.table) if self.slapped else super().pick_up(seat, battle)

    def collect(self, seat: int, cards: list[int], battle: int, kind: str = "collect") -> None:
        """A slapped table joins the seat's cards as any won table does, logged as `slap`."""
        self.last_winner = seat
        super().collect(seat, cards, battle, "slap" if self.slapped else kind)
        self.slapped = False
