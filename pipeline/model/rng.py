"""The specified random generator (docs/rules.md, "Randomness").

Written out here rather than borrowed from a library, so that a game is the same
game on every machine and every Python version, bit for bit.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


# A running hash of 64-bit words (a position's, a shape key's): FNV-1a's step over whole words,
# finished by _mix. The compiled engine's (engines.compiled.rng) takes its constants from here.
HASH_START = 0x84222325CBF29CE4  # a running hash before its first word
FOLD_PRIME = 0x100000001B3


def _fold(h: int, word: int) -> int:
    """One word into a running hash."""
    return ((h ^ (word & MASK)) * FOLD_PRIME) & MASK


class SplitMix64:
    """SplitMix64: seeds games from a master seed and seeds each game's xoshiro."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & MASK

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        return _mix(self.state)


def game_seed(master_seed: int, index: int) -> int:
    """The (index+1)-th SplitMix64 output from state master_seed, computed directly."""
    return _mix((master_seed + (index + 1) * GOLDEN) & MASK)


def policy_seed(game_seed_: int, seat: int) -> int:
    """Seed of a randomized policy's own generator: SplitMix64 output number seat+1
    from state (game seed XOR 0x5EA7_5EA7_5EA7_5EA7), so a seat's policy stream
    never touches the game's stream nor another seat's."""
    return game_seed((game_seed_ ^ 0x5EA75EA75EA75EA7) & MASK, seat)


class Xoshiro256:
    """xoshiro256** seeded with the first four SplitMix64 outputs from the game seed."""

    __slots__ = ("s0", "s1", "s2", "s3")

    def __init__(self, seed: int) -> None:
        sm = SplitMix64(seed)
        self.s0, self.s1, self.s2, self.s3 = sm.next(), sm.next(), sm.next(), sm.next()

    def next(self) -> int:
        s0, s1, s2, s3 = self.s0, self.s1, self.s2, self.s3
        x = (s1 * 5) & MASK
        result = ((((x << 7) | (x >> 57)) & MASK) * 9) & MASK
        t = (s1 << 17) & MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & MASK
        self.s0, self.s1, self.s2, self.s3 = s0, s1, s2, s3
        return result

    def bounded(self, n: int) -> int:
        """Uniform in [0, n) by rejection: accept x < 2^64 - (2^64 mod n)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def shuffle(self, cards: list) -> None:
        """Fisher-Yates from the end, in place."""
        for i in range(len(cards) - 1, 0, -1):
            j = self.bounded(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
