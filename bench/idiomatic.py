"""An idiomatic pure-Python War simulator, the kind users write and peers publish: a deque per
player, 3 cards down and 1 up, the winner's cards first, the 10,000-battle cap; no event log and
no cycle detection (bench/baseline.py is the same with cycle detection).

    python bench/idiomatic.py GAMES [SEED] [--deck splitmix]

By default it deals from the project's generator (xoshiro256**, in Python), so it plays the
same deals as `war generate --set pickup=winner_first`. `--deck splitmix` deals as such
simulators usually do, a Fisher-Yates shuffle driven by SplitMix64 from (seed, game): other
deals of the same rules, and half the cost a deal (about 20 us against 40 us in Python), which
makes it the faster yardstick, the one the speed figures of bench/README.md compare with.
"""

from __future__ import annotations

import sys
import time
from collections import deque

from pipeline.model.rng import Xoshiro256, game_seed


MASK = (1 << 64) - 1


def project_deck(master: int, game: int) -> list[int]:
    deck = list(range(52))
    Xoshiro256(game_seed(master, game)).shuffle(deck)
    return deck


def splitmix_deck(master: int, game: int) -> list[int]:
    state = ((master << 32) + game) & MASK
    deck = list(range(52))
    for i in range(51, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        j = (z ^ (z >> 31)) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


DECKS = {"project": project_deck, "splitmix": splitmix_deck}


def play(deck: list[int], max_battles: int = 10_000) -> tuple[int, int]:
    """(winner, or -1 for a draw or the cap; battles). A war's cards go down as the named
    simulator places them: up to four from each pile, the last one face up."""
    a, b = deque(deck[0::2]), deque(deck[1::2])
    battles = 0
    while True:
        if not a:
            return 1, battles
        if not b:
            return 0, battles
        if battles >= max_battles:
            return -1, battles
        battles += 1
        mine = [a.popleft()]
        yours = [b.popleft()]
        short = False  # a war nobody can go on with
        while mine[-1] // 4 == yours[-1] // 4:
            if not a or not b:
                short = True
                break
            for _ in range(min(4, len(a))):
                mine.append(a.popleft())
            for _ in range(min(4, len(b))):
                yours.append(b.popleft())
        if short:
            if not a and not b:
                return -1, battles
            winner_is_a = bool(a)
        else:
            winner_is_a = mine[-1] // 4 > yours[-1] // 4
        if winner_is_a:
            a.extend(mine)
            a.extend(yours)
        else:
            b.extend(yours)
            b.extend(mine)


def run(games: int, master: int = 1, deck: str = "project") -> None:
    dealt = DECKS[deck]
    for i in range(games):
        play(dealt(master, i))


if __name__ == "__main__":
    words = [a for a in sys.argv[1:] if a != "--deck" and a not in DECKS]
    deck = sys.argv[sys.argv.index("--deck") + 1] if "--deck" in sys.argv else "project"
    n = int(words[0]) if words else 100_000
    master = int(words[1]) if len(words) > 1 else 1
    start = time.perf_counter()
    run(n, master, deck)
    took = time.perf_counter() - start
    print(f"idiomatic ({deck} deals): {n} games in {took:.2f} s, {n / took:,.0f} games/s")
