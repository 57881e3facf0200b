"""An independent, clean-room simulator of the table-family War variants (rules 1-5, 8).

Written from the rules text and the documented conventions only (not from pipeline/engine.py),
to cross-check the project's engine game by game. It shares only the specified random
generator (pipeline.rng), which has its own test vectors.

`simulate(rules, seed)` takes a rule set as a dict (RuleSet field names) and returns
{"outcome", "winner", "battles", "wars", "max_war_depth", "war_wins", "final_cards"};
`simulate(rules, seed, deck)` deals the given deck order (top first) instead of a shuffled one.
"""

from __future__ import annotations

from collections import deque

from pipeline.model.rng import Xoshiro256

DEFAULTS = {
    "players": 2, "jokers": 0, "war_down": 3, "ace_value": 11, "war_tiebreak": "repeat",
    "shortfall": "last_card_up", "pickup": "shuffled", "ranks": 13, "suits": 4,
    "win": "all_cards", "max_battles": 10_000, "aces": "high", "deal": "even",
}


class _Game:
    def __init__(self, rules: dict, seed: int, deck: list[int] | None = None) -> None:
        r = {**DEFAULTS, **{k: v for k, v in rules.items() if k in DEFAULTS}}
        self.n = r["players"]
        self.ranks = r["ranks"]
        self.suits = r["suits"]
        self.jokers = r["jokers"]
        self.war_down = r["war_down"]
        self.ace_value = r["ace_value"]
        self.aces_low = r["aces"] == "low"
        self.tiebreak = r["war_tiebreak"]
        self.shortfall = r["shortfall"]
        self.pickup = r["pickup"]
        self.max_battles = r["max_battles"]
        win = r["win"]
        self.wars_to_win = int(win.split(":")[1]) if win.startswith("wars:") else None

        self.rng = Xoshiro256(seed)
        plain = self.ranks * self.suits
        if deck is None:
            deck = list(range(plain + self.jokers))
            self.rng.shuffle(deck)
        self.pile = [deque() for _ in range(self.n)]
        if r["deal"] == "first_short":  # every card, one a seat in turn, the last to the last seat (1.4)
            over = len(deck) % self.n
            for i, card in enumerate(deck):
                self.pile[(i + self.n - over) % self.n].append(card)
        else:
            each = len(deck) // self.n
            for i in range(each * self.n):
                self.pile[i % self.n].append(deck[i])
        # Under `pooled`: each seat's won pile, index 0 = top.
        self.won: list[list[int]] = [[] for _ in range(self.n)]
        self.in_game = [True] * self.n

        self.battles = 0
        self.wars = 0
        self.max_depth = 0
        self.war_wins = [0] * self.n

    # -- cards ---------------------------------------------------------------------------------
    def rank(self, card: int) -> int:
        plain = self.ranks * self.suits
        if card >= plain:
            return self.ranks  # both Jokers: one top rank
        if self.aces_low:  # the Ace (top rank) below the 2 (2.8): every other rank one up
            return (card // self.suits + 1) % self.ranks
        return card // self.suits

    def value(self, rank: int) -> int:
        """Război value of a rank index (standard deck)."""
        if rank == self.ranks:          # Joker
            return self.ace_value + 1
        if self.aces_low:               # rank 0 is the Ace, rank r the card of rank r - 1 when aces are high
            rank = (rank - 1) % self.ranks
        if rank == 12:                  # Ace
            return self.ace_value
        if rank >= 9:                   # J, Q, K
            return 10
        return rank + 2                 # 2..10

    def down_for(self, rank: int) -> int:
        if self.war_down == "by_rank":
            return self.value(rank) - 1
        return self.war_down

    def holding(self, p: int) -> int:
        return len(self.pile[p]) + len(self.won[p])

    def take(self, p: int) -> int:
        if not self.pile[p] and self.won[p]:
            cards = list(self.won[p])
            self.rng.shuffle(cards)
            self.pile[p] = deque(cards)
            self.won[p] = []
        return self.pile[p].popleft()

    # -- a battle ------------------------------------------------------------------------------
    def battle(self) -> int | None:
        """Play one battle; return the seat that won the table, or None (table set aside)."""
        table: list[int] = []
        played: list[list[int]] = [[] for _ in range(self.n)]
        stack: list[int] = []  # the cards as people gather them (pickup natural), bottom first
        showing: list[int] = []  # this step's face-up cards, not yet gathered

        def put(p: int, card: int, face_up: bool = False) -> None:
            table.append(card)
            played[p].append(card)
            (showing if face_up else stack).append(card)

        def gather() -> None:
            """The step's face-up cards go onto the stack, lowest rank first."""
            stack.extend(sorted(showing, key=self.rank))
            showing.clear()

        up: dict[int, int] = {}
        for p in range(self.n):
            if self.in_game[p]:
                c = self.take(p)
                put(p, c, face_up=True)
                up[p] = c
        best = max(self.rank(c) for c in up.values())
        tied = [p for p in sorted(up) if self.rank(up[p]) == best]
        tie_rank = best
        depth = 0
        winner: int | None
        while True:
            if len(tied) == 1:
                winner = tied[0]
                break
            # a war among `tied`
            gather()
            depth += 1
            self.wars += 1
            if self.tiebreak == "single_up" and depth > 1:
                down = 0
            else:
                down = self.down_for(tie_rank)
            left = []
            for p in tied:
                h = self.holding(p)
                if h == 0:
                    continue  # out of this war
                if self.shortfall == "lose" and h < down + 1:
                    # forfeit: all its cards onto the table, out of the game
                    for c in list(self.pile[p]) + list(self.won[p]):
                        put(p, c)
                    self.pile[p] = deque()
                    self.won[p] = []
                    self.in_game[p] = False
                    continue
                left.append(p)
            if len(left) == 1:
                winner = left[0]
                break
            if not left:
                winner = None
                break
            up = {}
            for p in left:
                k = min(down, self.holding(p) - 1)
                for _ in range(k):
                    put(p, self.take(p))
                c = self.take(p)
                put(p, c, face_up=True)
                up[p] = c
            best = max(self.rank(c) for c in up.values())
            tied = [p for p in left if self.rank(up[p]) == best]
            tie_rank = best
        self.max_depth = max(self.max_depth, depth)
        if winner is None:
            return None  # table set aside for the rest of the game
        if depth > 0:
            self.war_wins[winner] += 1
        gather()
        self.collect(winner, table, played, stack)
        return winner

    def collect(self, w: int, table: list[int], played: list[list[int]], stack: list[int]) -> None:
        if self.pickup == "table_order":
            self.pile[w].extend(table)
        elif self.pickup == "winner_first":
            order = list(played[w])
            for p in range(self.n):
                if p != w:
                    order.extend(played[p])
            self.pile[w].extend(order)
        elif self.pickup == "shuffled":
            cards = list(table)
            self.rng.shuffle(cards)
            self.pile[w].extend(cards)
        elif self.pickup == "pooled":
            self.won[w] = list(table) + self.won[w]
        elif self.pickup == "natural":  # the stack turned over under the pile: the last card laid first
            self.pile[w].extend(reversed(stack))
        elif self.pickup == "sorted":
            self.pile[w].extend(sorted(table, key=lambda c: -self.rank(c)))
        else:
            raise ValueError(self.pickup)

    # -- the game ------------------------------------------------------------------------------
    def run(self) -> dict:
        seen: dict = {}  # each position and the battles played before it
        cycle_length = None
        check_cycles = self.pickup in ("table_order", "winner_first", "natural", "sorted")
        outcome, winner = None, None
        while True:
            if self.battles == self.max_battles:
                outcome = "capped"
                break
            if check_cycles:  # a position is its ranks: suits never decide a game
                pos = tuple(tuple(self.rank(c) for c in pl) for pl in self.pile)
                if self.wars_to_win is not None:
                    pos = (pos, tuple(self.war_wins))
                if pos in seen:
                    outcome, cycle_length = "cycle", self.battles - seen[pos]
                    break
                seen[pos] = self.battles
            w = self.battle()
            self.battles += 1
            if (self.wars_to_win is not None and w is not None
                    and self.war_wins[w] >= self.wars_to_win):
                outcome, winner = "win", w
                break
            for p in range(self.n):
                if self.in_game[p] and self.holding(p) == 0:
                    self.in_game[p] = False
            alive = [p for p in range(self.n) if self.in_game[p]]
            if len(alive) == 1:
                outcome, winner = "win", alive[0]
                break
            if not alive:
                outcome = "draw"
                break
        return {
            "outcome": outcome,
            "winner": winner,
            "battles": self.battles,
            "wars": self.wars,
            "max_war_depth": self.max_depth,
            "war_wins": list(self.war_wins),
            "final_cards": [self.holding(p) for p in range(self.n)],
            "cycle_length": cycle_length,
        }


def simulate(rules: dict, seed: int, deck: list[int] | None = None) -> dict:
    """Play the game of `seed` under `rules` (a dict of RuleSet fields) and summarize it; with
    `deck`, that deck order is dealt (the seed then serves later shuffles only)."""
    return _Game(rules, seed, deck).run()
