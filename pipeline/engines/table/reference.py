"""The reference engine for the table family: Classic, Multiplayer, Jokers and Război
(docs/rules.md sections 2-5), with every option of section 8.

The engine never draws randomness itself: it asks a *chance* for every random order (a pickup
shuffle, a reshuffle of a won pile). Generation passes a chance backed by the game's generator;
replay passes one that reads the orders from the log. The engine reports every step to a
*recorder*; replay and validation pass one that compares each step with the log as it goes.
"""

from __future__ import annotations

from ...model.deal import Deal, deck_of
from ...model.schema import RuleSet
from ..event import Recorder
from ..play import FIXED_PICKUPS, Game, by_rank, natural, winner_first
from ..summary import Summary


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


def play_table(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser=None) -> Summary:
    """Play one game of the table family to its end, reporting every step to `rec`."""
    return TableGame(rules, deal, chance, rec).play()


class TableGame(Game):
    """A game of the table family: every seat still in plays its top card, and the best card
    takes the table."""

    __slots__ = ("values", "fixed_down", "single_up", "lose", "pickup", "up")

    def __init__(self, rules: RuleSet, deal: Deal, chance, rec: Recorder) -> None:
        super().__init__(rules, deal, chance, rec)
        self.rank = ranks_of(rules)
        self.values = war_values(rules)
        self.fixed_down = rules.war_down if self.values is None else 0
        self.single_up = rules.war_tiebreak == "single_up"
        self.lose = rules.shortfall == "lose"
        self.pickup = rules.pickup
        self.up: dict[int, int] = {}  # each contender's card face up
        if rules.pickup in FIXED_PICKUPS:
            self.seen = {}

    def position(self) -> tuple:
        """Every pile in order as ranks, and the war wins under wars:N (2.6, ruling 7)."""
        rank = self.rank
        return (tuple(tuple(rank[c] for c in pile) for pile in self.piles),
                tuple(self.summary.war_wins) if self.wars_to_win else ())

    def battles(self) -> int:
        """Battles until the game is over (docs/rules.md 2.2-2.7): every seat still in plays its top card
        and the best card takes the table, a tie for it going to war; a war won may win the game
        under wars:N, then seats holding nothing are out. The loop is written out here rather than
        left to Game.battles, whose method call per battle would cost the reference speed. How
        many battles were played."""
        rank, piles, alive, emit = self.rank, self.piles, self.alive, self.emit
        battle = 0
        while battle < self.max_battles:
            if self.seen is not None and self.repeats(battle):
                return battle
            battle += 1
            self.table = table = []
            self.played = played = [[] for _ in range(self.n)]
            self.up = up = {}
            self.laid = laid = {}
            self.step = 0
            contenders = [seat for seat in range(self.n) if alive[seat]]
            for seat in contenders:
                if not piles[seat]:
                    self.reshuffle(seat, battle)
                c = piles[seat].popleft()
                table.append(c)
                played[seat].append(c)
                laid[c] = (0, True)
                up[seat] = c
                emit(battle, "play", seat, (c,))
            best = max(rank[up[seat]] for seat in contenders)
            tied = [seat for seat in contenders if rank[up[seat]] == best]
            winner, depth = (tied[0], 0) if len(tied) == 1 else self.wars(battle, tied, best)
            if self.close_battle(battle, winner, depth):
                return battle
        self.summary.outcome = "capped"
        return battle

    def play_up(self, seat: int, battle: int) -> None:
        """In a war, the seat plays its top card face up."""
        pile = self.piles[seat]
        if not pile:
            self.reshuffle(seat, battle)
        c = pile.popleft()
        self.table.append(c)
        self.played[seat].append(c)
        self.laid[c] = (self.step, True)
        self.up[seat] = c
        self.emit(battle, "play", seat, (c,))

    def wars(self, battle: int, tied: list[int], best: int) -> tuple[int | None, int]:
        """Wars among the seats tied for the best card until one card is best: the winner (None
        when nobody could go on) and how many wars it took. A seat short of cards lays fewer
        down, keeping its last card to play up (2.3)."""
        rank, up = self.rank, self.up
        depth = 0
        while len(tied) > 1:
            depth += 1
            self.step = depth
            self.emit(battle, "war", None, (), tied, (), depth)
            down = self.war_size(depth, best)
            ready = self.join_war(battle, tied, down)
            if len(ready) <= 1:
                return (ready[0] if ready else None), depth
            for seat in ready:
                k = min(down, self.holding(seat) - 1)
                if k:
                    self.played[seat].extend(self.lay_down(seat, k, battle))
                self.play_up(seat, battle)
            best = max(rank[up[seat]] for seat in ready)
            tied = [seat for seat in ready if rank[up[seat]] == best]
        return tied[0], depth

    def war_size(self, depth: int, best: int) -> int:
        """Cards face down: fixed, or by the tied rank in Război (5.1); none after the first war
        under single_up (2.5)."""
        if self.single_up and depth >= 2:
            return 0
        if self.values is not None:
            return self.values[best] - 1
        return self.fixed_down

    def join_war(self, battle: int, tied: list[int], down: int) -> list[int]:
        """The tied seats able to fight, settled before anyone lays a card down (ruling 1): a seat
        holding nothing is out of the war; under shortfall=lose, one holding no more than `down`
        cards forfeits."""
        ready = []
        for seat in tied:
            have = self.holding(seat)
            if have == 0:
                self.emit(battle, "war_out", seat)
            elif self.lose and have <= down:
                self.forfeit(seat, battle)
            else:
                ready.append(seat)
        return ready

    def pick_up(self, winner: int, battle: int) -> list[int]:
        """The table in `pickup` order (docs/rules.md 2.4): shuffled, as it lies, the winner's own
        cards first and then each other seat's in seat order, as people gather it, or by rank."""
        if self.pickup == "shuffled":
            return self.chance.order("collect", winner, self.table)
        if self.pickup == "winner_first":
            return winner_first(self.played, winner)
        if self.pickup == "natural":
            return natural(self.table, self.laid, self.rank)
        if self.pickup == "sorted":
            return by_rank(self.table, self.rank)
        return self.table
