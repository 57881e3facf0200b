"""Arneson's War (docs/rules.md 7), by Erik Arneson: hands of three and a hidden choice.

Each player holds a hand of 3 drawn from its pile and plays the card it chooses; a war is 3
cards from the pile face down and a fourth chosen from the hand. The winner of a war takes the
face-down and fourth cards; the loser takes the two cards that caused it. Choices are asked of a
*chooser* and logged.
"""

from __future__ import annotations

from ...model.deal import Deal
from ...model.pickups import PICKUPS_BY_NAME
from ...model.schema import RuleSet
from ..event import Recorder
from ..play import Game
from .policies import HandView
from ..summary import Summary

WAR_DOWN = 3


def play_arneson(rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> Summary:
    """Play one game of Arneson's War to its end, reporting every step to `rec`."""
    return ArnesonGame(rules, deal, chance, rec, chooser).play()


class ArnesonGame(Game):
    """A game of Arneson's War: two seats, each with a pile, a won pile under `pooled`, and a
    hand."""

    __slots__ = ("chooser", "hands", "hand_size", "single_up", "lose", "pickup")

    def __init__(self, rules: RuleSet, deal: Deal, chance, rec: Recorder, chooser) -> None:
        super().__init__(rules, deal, chance, rec)
        self.chooser = chooser
        self.hands: list[list[int]] = [[], []]
        self.hand_size = rules.hand_size or 3
        self.single_up = rules.war_tiebreak == "single_up"
        self.lose = rules.shortfall == "lose"
        self.pickup = rules.pickup
        if PICKUPS_BY_NAME[rules.pickup].fixed and not chooser.randomized:
            self.seen = {}

    def start(self) -> None:
        """The deal, then each seat draws its first hand."""
        super().start()
        self.refill_hands(0)

    def holding(self, seat: int) -> int:
        return len(self.piles[seat]) + len(self.won[seat]) + len(self.hands[seat])

    def position(self) -> tuple:
        """Every pile in order and every hand as ranks, and the war wins under wars:N (ruling 7);
        only when no seat's choices are random."""
        rank = self.rank
        return (tuple(tuple(rank[c] for c in pile) for pile in self.piles),
                tuple(tuple(sorted(rank[c] for c in h)) for h in self.hands),
                tuple(self.summary.war_wins) if self.wars_to_win else ())

    def battles(self) -> int:
        """Battles until the game is over: both seats choose and play a hand card, then draw back
        up; the higher card takes both (ruling 15), a tie is a war; then seats holding nothing
        are out. Written out like TableGame.battles, for speed. How many battles were played."""
        rank, alive, s = self.rank, self.alive, self.summary
        battle = 0
        while battle < self.max_battles:
            if self.seen is not None and self.repeats(battle):
                return battle
            battle += 1
            self.table = []
            self.played = [[], []]
            self.laid = {}
            self.step = 0
            self.refill_hands(battle)
            up = self.play_hands(battle, 0, None)
            self.refill_hands(battle)
            if rank[up[0]] == rank[up[1]]:
                if self.tied_battle(battle, up):
                    return battle
                continue
            winner = 0 if rank[up[0]] > rank[up[1]] else 1
            self.collect(winner, self.pickup_order(winner, self.table), battle)
            if s.eliminate(battle, alive, self.holding, self.emit):
                return battle
        s.outcome = "capped"
        return battle

    def refill_hands(self, battle: int) -> None:
        """Each seat draws back to a full hand from its pile, as far as its cards go."""
        hands, hand_size = self.hands, self.hand_size
        for seat in (0, 1):
            short = hand_size - len(hands[seat])
            if short:
                self.take_cards(seat, short, battle, "draw", hands[seat])

    def choose(self, seat: int, battle: int, depth: int, tied_rank: int | None) -> int:
        """The seat's choice of a card from its hand, logged as a decision."""
        rank, piles, won, hands = self.rank, self.piles, self.won, self.hands
        options = tuple(sorted(hands[seat]))
        other = 1 - seat
        view = HandView(seat, options, tuple(rank[c] for c in options), depth > 0, tied_rank,
                        len(piles[seat]) + len(won[seat]), len(piles[other]) + len(won[other]),
                        len(hands[other]))
        c = self.chooser.choose("hand", seat, view, options)
        self.emit(battle, "decision", seat, (c,), (), options, depth, "hand")
        return c

    def play_hands(self, battle: int, depth: int, tied_rank: int | None) -> list[int]:
        """Both seats choose a card, then both play it face up."""
        hands, table, played, emit = self.hands, self.table, self.played, self.emit
        up = [self.choose(seat, battle, depth, tied_rank) for seat in range(2)]
        for seat in range(2):
            hands[seat].remove(up[seat])
            table.append(up[seat])
            played[seat].append(up[seat])
            self.laid[up[seat]] = (depth, True)
            emit(battle, "play", seat, (up[seat],))
        return up

    def tied_battle(self, battle: int, up: list[int]) -> bool:
        """A tied battle: its wars, then the winner takes the face-down and fourth cards and the
        loser the two that caused the war. When a seat went out in the wars the winner takes all,
        and its war won counts but cannot win by wars:N, the game being over anyway. Hands are
        refilled after a war fought to its end. True when the game is over."""
        s = self.summary
        cause = list(self.table)
        winner, depth, seat_out = self.wars(battle, up)
        s.count_war(battle, depth)
        if winner is None:
            self.set_aside(battle)
        elif seat_out:
            self.collect(winner, self.pickup_order(winner, self.table), battle)
            s.won_war(winner, None)
        else:
            spoils = [c for c in self.table if c not in cause]
            self.collect(winner, self.pickup_order(winner, spoils), battle)
            self.collect(1 - winner, self.pickup_order(1 - winner, cause), battle)
            if s.won_war(winner, self.wars_to_win):
                return True
            self.refill_hands(battle)
        return s.eliminate(battle, self.alive, self.holding, self.emit)

    def wars(self, battle: int, up: list[int]) -> tuple[int | None, int, bool]:
        """Wars while the two cards tie (ruling 16): the winner (None when neither seat can go
        on), how many wars it took, and whether a seat went out of the game in them."""
        rank = self.rank
        depth = 0
        while rank[up[0]] == rank[up[1]]:
            depth += 1
            self.step = depth
            tied_rank = rank[up[0]]
            self.emit(battle, "war", None, (), (0, 1), (), depth)
            down = 0 if self.single_up and depth >= 2 else WAR_DOWN
            ready = self.join_war(battle, down)
            if len(ready) <= 1:
                return (ready[0] if ready else None), depth, True
            for seat in ready:
                self.played[seat].extend(self.lay_down(seat, down, battle))
            up = self.play_hands(battle, depth, tied_rank)
        return (0 if rank[up[0]] > rank[up[1]] else 1), depth, False

    def join_war(self, battle: int, down: int) -> list[int]:
        """The seats able to fight the war, settled before either lays a card down: under
        shortfall=lose a seat with fewer than `down` cards outside its hand forfeits, and a seat
        with an empty hand is out of the game."""
        ready = []
        for seat in range(2):
            if self.lose and len(self.piles[seat]) + len(self.won[seat]) < down:
                self.forfeit(seat, battle)
            elif not self.hands[seat]:
                self.emit(battle, "war_out", seat)
                self.knock_out(seat, battle)
            else:
                ready.append(seat)
        return ready

    def surrender(self, seat: int) -> list[int]:
        """Every card the seat holds: its pile, its won pile, then its hand in code order."""
        cards = super().surrender(seat) + sorted(self.hands[seat])
        self.hands[seat] = []
        return cards

    def pickup_order(self, seat: int, cards: list[int]) -> list[int]:
        """Cards in `pickup` order: shuffled, or in its order's (model.pickups)."""
        if self.pickup == "shuffled":
            return self.chance.order("collect", seat, cards)
        return PICKUPS_BY_NAME[self.pickup].order(cards, seat, self)
