"""The cycle-detecting baseline of bench/README.md: a straightforward pure-Python deque simulator
of Classic War (3 down, last_card_up, pickup=winner_first, cap 10,000, cycle detection by
hashing the whole position every battle) that records nothing.

    python bench/baseline.py [GAMES]     # default 20,000

It deals from the project's generator, so its games are the engine's games, game for game; it
exists to measure how fast plain Python plays War, not to be used. Row 1's yardstick is the
faster bench/idiomatic.py; `make bench` prints this one's ratio beside it.
"""

from __future__ import annotations

from collections import deque

from pipeline.model.rng import Xoshiro256, game_seed


def play(seed: int, max_battles: int = 10_000) -> tuple[str, int | None, int]:
    rng = Xoshiro256(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    a, b = deque(deck[0::2]), deque(deck[1::2])
    seen = set()
    battles = 0
    while a and b:
        if battles >= max_battles:
            return "capped", None, battles
        key = (tuple(a), tuple(b))
        if key in seen:
            return "cycle", None, battles
        seen.add(key)
        battles += 1
        mine, yours = [a.popleft()], [b.popleft()]
        while mine[-1] >> 2 == yours[-1] >> 2:
            if not a or not b:
                break
            for pile, cards in ((a, mine), (b, yours)):
                k = min(3, len(pile) - 1)
                for _ in range(k):
                    cards.append(pile.popleft())
                cards.append(pile.popleft())
        if mine[-1] >> 2 > yours[-1] >> 2:
            a.extend(mine + yours)
        elif yours[-1] >> 2 > mine[-1] >> 2:
            b.extend(yours + mine)
        elif a:
            a.extend(mine + yours)
        elif b:
            b.extend(yours + mine)
        else:
            return "draw", None, battles
    return "win", 0 if a else 1, battles


def run(games: int, master_seed: int = 42) -> list[tuple[str, int | None, int]]:
    return [play(game_seed(master_seed, i)) for i in range(games)]


if __name__ == "__main__":
    import sys
    import time

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    t = time.perf_counter()
    run(n)
    dt = time.perf_counter() - t
    print(f"baseline: {n} games in {dt:.2f} s, {n / dt:.0f} games/s")
