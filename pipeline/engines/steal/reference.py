"""Steal War (docs/rules.md 6), by Gary Philippy and Hayes Ruberti.

Each player has a face-down draw pile and a face-up won pile. Before playing, a player looks at
its top card and may steal the won piles of opponents whose top card has the same rank; the
winner of a battle chooses which won card lies on top of its bundle. Every decision is asked of
a *chooser* (the seat's policy when generating, the log when replaying) and logged.
"""

from __future__ import annotations

from ...model.deal import Deal
from ...model.schema import RuleSet
from ..event import Recorder
from ..play import Game
from .policies import StealView, TopView
from ..summary import Summary


def rank_copies(rank: tuple[int, ...]) -> tuple[int, ...]:
    copies = [0] * (max(rank) + 1)
    for r in rank:
        copies[r] += 1
    return tuple(copies)


def play_steal(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> Summary:
    """Play one game of Steal War to its end, reporting every step to `rec`."""
    return StealGame(rules, deal, chance, rec, chooser).play()


class StealGame(Game):
    """A game of Steal War: the piles are the draw piles, and every seat keeps a won pile."""

    __slots__ = ("chooser", "copies", "war_down", "single_up", "others", "first", "up")

    def __init__(self, rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> None:
        super().__init__(rules, deal, chance, rec)
        self.chooser = chooser
        self.copies = rank_copies(self.rank)
        self.war_down = rules.war_down if isinstance(rules.war_down, int) else 3
        self.single_up = rules.war_tiebreak == "single_up"
        self.pooled = True  # won cards go on top of the won pile, whatever `pickup` says
        # the other seats in turn, from the one after each seat
        self.others = tuple(tuple((seat + k) % self.n for k in range(1, self.n)) for seat in range(self.n))
        self.first = self.n - 1  # the seat that started the last battle: seat 0 starts the first
        self.up: dict[int, int] = {}  # each contender's card face up

    def battle(self, battle: int) -> bool:
        """Every seat still in, in turn from the battle's first seat (ruling 11), looks, may steal
        and plays; a seat with no card left is out (6.6). Ties go to war."""
        alive, others = self.alive, self.others
        self.first = first = next(seat for seat in others[self.first] + (self.first,) if alive[seat])
        self.table = []
        self.up = {}
        contenders = []
        for seat in (first,) + others[first]:
            if not alive[seat]:
                continue
            if self.play_up(seat, battle, False):
                contenders.append(seat)
            else:
                self.knock_out(seat, battle)
        winner, depth = self.settle(battle, contenders)
        return self.close_battle(battle, winner, depth)

    def top(self, seat: int, battle: int) -> int | None:
        """The top card of the draw pile, reshuffling the won pile into it when empty (6.5)."""
        pile = self.piles[seat]
        if not pile:
            if not self.won[seat]:
                return None
            self.reshuffle(seat, battle)
        return pile[0]

    def play_up(self, seat: int, battle: int, in_war: bool) -> bool:
        """Look at the top card, steal with it as long as the policy wants (6.2), then play it;
        False when the seat has no card left."""
        rank, won, others = self.rank, self.won, self.others[seat]
        while True:
            c = self.top(seat, battle)
            if c is None:
                return False
            eligible = tuple((o, len(won[o])) for o in others if won[o] and rank[won[o][0]] == rank[c])
            if not (eligible and self.steal(seat, c, eligible, battle, in_war)):
                break
        self.piles[seat].popleft()
        self.table.append(c)
        self.up[seat] = c
        self.emit(battle, "play", seat, (c,))
        return True

    def steal(self, seat: int, card: int, eligible: tuple, battle: int, in_war: bool) -> bool:
        """Offer the seat the won piles it may steal with `card`, (seat, size) pairs (ruling 12);
        the ones it chooses go on top of its won pile under `card`. True when it stole."""
        draw, won = self.piles, self.won
        options = tuple(o for o, _ in eligible)
        view = StealView(seat, card, self.rank[card], eligible, self.holding(seat), in_war)
        chosen = self.chooser.choose("steal", seat, view, options)
        chosen = tuple(o for o in options if o in set(chosen))
        self.emit(battle, "decision", seat, (card,), chosen, options, None, "steal")
        if not chosen:
            return False
        draw[seat].popleft()
        bundle = [card]
        for o in chosen:
            bundle.extend(won[o])
            won[o] = []
        won[seat][:0] = bundle
        self.emit(battle, "steal", seat, bundle, chosen)
        return True

    def settle(self, battle: int, contenders: list[int]) -> tuple[int | None, int]:
        """The seat with the best card, after wars among those tied for it until one card is
        best: the winner (None when nobody is left) and how many wars it took."""
        rank, up = self.rank, self.up
        depth = 0
        while contenders:
            best = max(rank[up[seat]] for seat in contenders)
            tied = [seat for seat in contenders if rank[up[seat]] == best]
            if len(tied) == 1:
                return tied[0], depth
            depth += 1
            self.emit(battle, "war", None, (), sorted(tied), (), depth)
            down = 0 if self.single_up and depth >= 2 else self.war_down
            contenders = self.war_round(battle, tied, down)
            if len(contenders) <= 1:
                return (contenders[0] if contenders else None), depth
        return None, depth

    def war_round(self, battle: int, tied: list[int], down: int) -> list[int]:
        """Each tied seat in turn lays `down` cards, then looks, may steal and plays (ruling 13).
        A seat that runs out of cards is out of the game, and when one tied seat is left it wins
        at once. The seats still in the war."""
        ready = []
        for seat in tied:
            if len(self.lay_down(seat, down, battle)) == down and self.play_up(seat, battle, True):
                ready.append(seat)
                continue
            self.knock_out(seat, battle)
            left = [t for t in tied if self.alive[t]]
            if len(left) == 1:
                return left
        return ready

    def pick_up(self, winner: int, battle: int) -> list[int]:
        """The winner's bundle (ruling 14): the table card it chooses on top, the rest in table
        order."""
        table, rank, won = self.table, self.rank, self.won
        if len(table) == 1:
            return table
        options = tuple(table)
        view = TopView(winner, options, tuple(rank[c] for c in options), self.copies,
                       tuple(won[o][0] if won[o] else None for o in range(self.n)))
        chosen = self.chooser.choose("top", winner, view, options)
        self.emit(battle, "decision", winner, (chosen,), (), options, None, "top")
        return [chosen] + [c for c in table if c != chosen]
