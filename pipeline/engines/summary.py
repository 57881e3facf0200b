"""What a game's record says about it, kept up to date by the engines."""

from __future__ import annotations

from dataclasses import dataclass, field

from .event import Recorder


@dataclass
class Summary:
    """What a game's record says about it, besides its identity."""

    outcome: str = ""
    winner: int | None = None
    battles: int = 0
    wars: int = 0
    war_battles: int = 0
    max_war_depth: int = 0
    first_battle_war: bool = False
    war_wins: list[int] = field(default_factory=list)
    final_cards: list[int] = field(default_factory=list)
    cards_set_aside: int = 0
    cycle_length: int | None = None
    cycle_key: int | None = None  # engines.cycle_key

    def count_war(self, battle: int, depth: int) -> None:
        """Add a battle's wars (a double war counts 2) to the totals."""
        if depth:
            self.wars += depth
            self.war_battles += 1
            self.max_war_depth = max(self.max_war_depth, depth)
            if battle == 1:
                self.first_battle_war = True

    def won_war(self, seat: int, wars_to_win: int | None) -> bool:
        """Count a war battle won by `seat`; True when that wins the game (`win = wars:N`)."""
        self.war_wins[seat] += 1
        if wars_to_win and self.war_wins[seat] >= wars_to_win:
            self.outcome, self.winner = "win", seat
            return True
        return False

    def eliminate(self, battle: int, alive: list[bool], holding, emit) -> bool:
        """After a battle, players holding no card are out (2.6); True when the game is over."""
        left, last = 0, None
        for seat, still_in in enumerate(alive):
            if still_in:
                if holding(seat):
                    left, last = left + 1, seat
                else:
                    alive[seat] = False
                    emit(battle, "out", seat)
        if left <= 1:
            self.outcome = "win" if left else "draw"
            self.winner = last
            return True
        return False

    def end(self, battle: int, holding, players: int, emit, rec: "Recorder") -> "Summary":
        """The end event, and the final counts."""
        self.battles = battle
        self.final_cards = [holding(seat) for seat in range(players)]
        emit(battle, "end", self.winner, value=battle, note=self.outcome)
        rec.finish()
        return self
