"""An idiomatic pure-Python War simulator, the kind users write and peers publish: a deque per
player, 3 cards down and 1 up, the winner's cards first, the 10,000-battle cap; no event log and
no cycle detection (bench/baseline.py is the same with cycle detection). It deals from the
project's generator, so it plays the same deals as `war generate --set pickup=winner_first`.

    python bench/idiomatic.py GAMES [SEED]
"""

from __future__ import annotations

import sys
import time
from collections import deque

from pipeline.model.rng import Xoshiro256, game_seed


def play(seed: int, max_battles: int = 10_000) -> tuple[int, int]:
    """(winner, or -1 for a draw or the cap; battles)."""
    deck = list(range(52))
    Xoshiro256(seed).shuffle(deck)
    a, b = deque(deck[0::2]), deque(deck[1::2])
    battles = 0
    while a and b:
        if battles >= max_battles:
            return -1, battles
        battles += 1
        mine, yours = [a.popleft()], [b.popleft()]
        while mine[-1] >> 2 == yours[-1] >> 2 and a and b:
            for pile, cards in ((a, mine), (b, yours)):
                for _ in range(min(3, len(pile) - 1)):
                    cards.append(pile.popleft())
                cards.append(pile.popleft())
        if mine[-1] >> 2 > yours[-1] >> 2 or (mine[-1] >> 2 == yours[-1] >> 2 and a):
            a.extend(mine + yours)
        elif yours[-1] >> 2 > mine[-1] >> 2 or b:
            b.extend(yours + mine)
        else:
            return -1, battles
    return (0 if a else 1), battles


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    master = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    start = time.perf_counter()
    for i in range(n):
        play(game_seed(master, i))
    took = time.perf_counter() - start
    print(f"idiomatic: {n} games in {took:.2f} s, {n / took:,.0f} games/s")
