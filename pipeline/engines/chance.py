"""Where an engine's random orders come from: the game's generator, or the log."""

from __future__ import annotations

from itertools import chain

from ..errors import LogMismatch
from ..model.rng import MASK, Xoshiro256
from .event import CheckingRecorder, describe


class RandomChance:
    """Random orders from the game's generator."""

    __slots__ = ("rng",)

    def __init__(self, rng: Xoshiro256) -> None:
        self.rng = rng

    def draw(self) -> int:
        """The generator's next output (Xoshiro256.next)."""
        return self.rng.next()

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        """`cards` shuffled in place: Xoshiro256.shuffle (model.rng), its draws written out in
        one loop over the generator's state in locals, a method call less per draw and two
        per shuffle (a pickup shuffles two cards a battle; tests/test_chance.py holds the two equal)."""
        rng = self.rng
        s0, s1, s2, s3 = rng.s0, rng.s1, rng.s2, rng.s3
        for i in range(len(cards) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < _SMALL else (1 << 64) - ((1 << 64) % n)
            while True:
                x = (s1 * 5) & MASK
                x = ((((x << 7) | (x >> 57)) & MASK) * 9) & MASK
                t = (s1 << 17) & MASK
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = ((s3 << 45) | (s3 >> 19)) & MASK
                if x < limit:
                    break
            j = x % n
            cards[i], cards[j] = cards[j], cards[i]
        rng.s0, rng.s1, rng.s2, rng.s3 = s0, s1, s2, s3
        return cards


# Xoshiro256.bounded's rejection limit for each small bound.
_SMALL = 256
_LIMITS = (0,) + tuple((1 << 64) - ((1 << 64) % n) for n in range(1, _SMALL))


class StreamChance:
    """Random orders from the game's generator, exactly RandomChance's and Xoshiro256's, its
    outputs made a block at a time (`generator_block`) rather than one Python step each (about
    1 us a step, the generator's 64-bit arithmetic in Python ints): what a game played in bulk
    draws from (engines.game.play_seeded). It deals too (`shuffle`, model.deal.shuffled_deal's).
    The generator it was made from is left as it was."""

    __slots__ = ("state", "steps", "draw", "made", "stream", "near_top")

    def __init__(self, rng: Xoshiro256) -> None:
        self.state = (rng.s0, rng.s1, rng.s2, rng.s3)
        self.steps = FIRST_BLOCK
        # the generator's first outputs, when `prefetch` made them for this state
        self.made = made = _MADE.pop(self.state, None)
        # whether a block made so far holds one of the generator's top outputs (_TOP), which a
        # bound up to 256 may reject: rare (about one game in 2**46) and, when so, `order` checks
        self.near_top = made is not None and made[3]
        # draw(): the generator's next output (Xoshiro256.next), read from the blocks in C
        self.stream = chain.from_iterable(iter(self._block, None))
        self.draw = self.stream.__next__

    def _block(self) -> list[int]:
        """The next block of outputs: of those `prefetch` made, a piece at a time (a Python int
        an output costs more than numpy's step), then the generator's own blocks."""
        made = self.made
        if made is not None:
            outputs, at, after, near_top = made
            if at < outputs.shape[0]:
                self.made = outputs, at + PIECE, after, near_top
                return outputs[at:at + PIECE].tolist()
            self.made = None
            self.state = after
            self.steps = BLOCK
        outputs, self.state = generator_block(self.state, self.steps)
        self.steps = BLOCK
        if max(outputs) >= _TOP:
            self.near_top = True
        return outputs

    def shuffle(self, cards: list) -> list:
        """`cards` shuffled in place, as Xoshiro256.shuffle (the deal's; `order`)."""
        return self.order("deal", 0, cards)

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        """`cards` shuffled in place, as Xoshiro256.shuffle: Fisher-Yates from the end, each draw
        bounded by rejection (Xoshiro256.bounded). Two cards, a battle's table, take one draw,
        which no bound of 2 rejects: its low bit keeps them (1) or swaps them (0). Up to 256
        cards, the swaps written out for the size (`_PLACES`), which no draw can make reject
        until the generator has made one of its top 256 outputs (`near_top`, about one a 2**56
        draws): then the same draws, each checked against its bound."""
        size = len(cards)
        if size == 2:
            if not self.draw() & 1:
                cards[0], cards[1] = cards[1], cards[0]
            return cards
        if size < 2:
            return cards
        if size <= _SMALL:
            drawn = _PLACES[size](cards, self.draw, self)
            if drawn is None:
                return cards
            draw = chain(drawn, self.stream).__next__  # the same draws, one at a time
        else:
            draw = self.draw
        for i in range(size - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < _SMALL else (1 << 64) - ((1 << 64) % n)
            x = draw()
            while x >= limit:
                x = draw()
            j = x % n
            cards[i], cards[j] = cards[j], cards[i]
        return cards


class _Placings(dict):
    """For each size of pile up to 256, StreamChance.order's shuffle of it written out (made at
    its first use): its draws (the generator's next size - 1 outputs), then, unless the chance
    has made one of its top outputs (`near_top`: it returns the draws, for the checked loop),
    each card swapped with the one at its draw mod its bound, last card first. Written out, a
    10-card war's pickup costs about 1.3 us, where a loop over the draws cost about 3.4 us."""

    def __missing__(self, size: int):
        draws = [f"d{k}" for k in range(size - 1)]
        lines = ["def place(cards, draw, chance):"]
        lines += [f"    {d} = draw()" for d in draws]
        lines += ["    if chance.near_top:", f"        return {', '.join(draws)},"]
        for k, d in enumerate(draws):
            i = size - 1 - k
            lines.append(f"    j = {d} % {i + 1}; cards[{i}], cards[j] = cards[j], cards[{i}]")
        space: dict = {}
        exec("\n".join(lines), space)  # noqa: S102 - the code above, from a size
        self[size] = place = space["place"]
        return place


_PLACES = _Placings()
_TOP = (1 << 64) - _SMALL  # an output at or above it, the least that a bound up to _SMALL can reject


# Outputs a block: the first block of a game's holds its deal (a 52-card deck takes 51 draws),
# and little more, for a game whose pickup draws nothing; those after it, the rest of the game.
FIRST_BLOCK, BLOCK = 64, 512
_CHUNK = 4  # bits of the state a row of a block table stands for


# A game's first outputs made by `prefetch` (its row of them, where its StreamChance has read
# to, the state after them), by the generator's starting state, until its StreamChance takes them.
_MADE: dict = {}
PREFETCH = 1024  # outputs a game: a Classic War game's deal and pickups, nine games in ten
PIECE = 128  # outputs made Python ints at a time
TRANSPOSE_ROWS = 64  # steps of every game's outputs made at a time (a 64 x 1024 piece: 512 kB)


def prefetch(seeds, steps: int = PREFETCH) -> None:
    """Make the first `steps` outputs of each game's generator (Xoshiro256 of each of `seeds`)
    at once, for the StreamChance of each to read first: the generators stepped side by side
    in numpy, a few operations a step for all the games (about 10 us a game), where a game's
    own blocks cost about 40 us for its first 64 and 60 us for each 512 more. The outputs are
    the generator's, whoever reads them (a game that draws more makes its next blocks itself);
    those of an earlier call not taken are dropped."""
    import numpy as np

    _MADE.clear()
    rngs = [Xoshiro256(seed) for seed in seeds]
    if not rngs:
        return
    u = np.uint64
    s0, s1, s2, s3 = (np.array([getattr(r, name) for r in rngs], u) for name in ("s0", "s1", "s2", "s3"))
    starts = list(zip(s0.tolist(), s1.tolist(), s2.tolist(), s3.tolist()))
    seq = np.empty((steps, len(rngs)), u)
    t, rotated = np.empty_like(s1), np.empty_like(s3)
    # the shifts as 0-d arrays: a ufunc takes one faster than a numpy scalar (1.2 us, not 2 us)
    seventeen, nineteen, fortyfive = np.array(17, u), np.array(19, u), np.array(45, u)
    for i in range(steps):  # Xoshiro256.next's step, for every game at once
        seq[i] = s1
        np.left_shift(s1, seventeen, out=t)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        np.right_shift(s3, nineteen, out=rotated)
        np.left_shift(s3, fortyfive, out=s3)
        s3 |= rotated
    # each output's multiplications (s1 * 5, rotated, * 9) in place, and a game's outputs made a
    # row, TRANSPOSE_ROWS steps at a time (in cache: 3 ms for 1024 games, where whole it took 15)
    outputs = np.empty((len(rngs), steps), u)
    highs = np.empty((TRANSPOSE_ROWS, len(rngs)), u)  # each piece's bits rotated round
    five, seven, fiftyseven, nine = (np.array(k, u) for k in (5, 7, 57, 9))
    for first in range(0, steps, TRANSPOSE_ROWS):
        x = seq[first:first + TRANSPOSE_ROWS]
        high = highs[:x.shape[0]]
        np.multiply(x, five, out=x)
        np.right_shift(x, fiftyseven, out=high)
        np.left_shift(x, seven, out=x)
        x |= high
        x *= nine
        outputs[:, first:first + TRANSPOSE_ROWS] = x.T
    near_top = ((outputs >= u(_TOP)).any(axis=1).tolist() if outputs.max() >= u(_TOP)
                else [False] * len(rngs))
    for start, row, after, near in zip(starts, outputs, zip(s0.tolist(), s1.tolist(), s2.tolist(), s3.tolist()),
                                       near_top):
        _MADE[start] = (row, 0, after, near)


def generator_block(state: tuple[int, int, int, int], steps: int) -> tuple[list[int], tuple[int, int, int, int]]:
    """The generator's next `steps` outputs from `state` (xoshiro256**'s s0..s3), and its state
    after them, as Xoshiro256.next gives them one by one. xoshiro256**'s step is linear over
    the bits (XORs, shifts and rotations of the state): the sequence of `s1` values a block's
    outputs come from, and the state after it, are the XOR of the sequences each set bit of the
    starting state gives alone. A table holds those of every 4-bit piece of the state
    (`_block_table`), so a block is 64 rows XORed in numpy, then each output's multiplications
    (s1 * 5, rotated, * 9); tests/test_plain_speed_chance.py holds it to Xoshiro256."""
    import numpy as np

    table, offsets, shifts = _block_table(steps)
    words = np.array(state, np.uint64)
    pieces = ((words[:, None] >> shifts) & np.uint64((1 << _CHUNK) - 1)).astype(np.intp).ravel()
    rows = np.bitwise_xor.reduce(table[pieces + offsets], axis=0)
    x = rows[:steps] * np.uint64(5)
    x = (x << np.uint64(7)) | (x >> np.uint64(57))
    x *= np.uint64(9)
    s0, s1, s2, s3 = rows[steps:].tolist()
    return x.tolist(), (s0, s1, s2, s3)


_TABLES: dict = {}


def _block_table(steps: int):
    """For a block of `steps` outputs: a table whose row 16 * piece + value is the sequence of s1
    values (and the state after) that the generator makes from the state holding `value` in
    its 4-bit `piece` (0..63, four to a word, s0 first) and nothing else; the offset of each
    piece's rows, and the shifts that cut a word into its pieces. Made once a process (2 ms)."""
    if steps not in _TABLES:
        import numpy as np

        u = np.uint64
        bits = np.arange(256)
        # lane b: the state with bit b alone set (bit b % 64 of word b // 64)
        s0, s1, s2, s3 = (np.where(bits // 64 == w, u(1) << (bits % 64).astype(u), u(0)) for w in range(4))
        seq = np.empty((steps + 4, 256), u)
        for i in range(steps):  # Xoshiro256.next's step, on every lane at once
            seq[i] = s1
            t = s1 << u(17)
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = (s3 << u(45)) | (s3 >> u(19))
        seq[steps:] = s0, s1, s2, s3
        basis = seq.T
        pieces = 256 // _CHUNK
        table = np.zeros((pieces << _CHUNK, steps + 4), u)
        for piece in range(pieces):
            first = piece << _CHUNK
            for bit in range(_CHUNK):  # the values with this bit as their highest: those below it, XOR its lane
                low = first + (1 << bit)
                np.bitwise_xor(table[first:low], basis[piece * _CHUNK + bit], out=table[low:low + (1 << bit)])
        _TABLES[steps] = (table, np.arange(pieces, dtype=np.intp) << _CHUNK,
                          np.arange(0, 64, _CHUNK, dtype=u))
    return _TABLES[steps]


class LogChance:
    """Random orders read from the log, after checking they are orders of the right cards."""

    def __init__(self, recorder: CheckingRecorder) -> None:
        self.recorder = recorder

    def order(self, kind: str, seat: int, cards: list[int]) -> list[int]:
        seq = self.recorder.position
        found = self.recorder.next_logged()
        if found is None or found.kind != kind or found.seat != seat:
            raise LogMismatch(seq, f"({kind} seat={seat} ...)", describe(found))
        if sorted(found.cards) != sorted(cards):
            raise LogMismatch(seq, f"({kind} seat={seat}) of the cards {sorted(cards)}",
                              f"cards {sorted(found.cards)}")
        return list(found.cards)
