"""The random generator of docs/rules.md (Randomness), compiled: SplitMix64, xoshiro256**, bounded draws, Fisher-Yates."""

from __future__ import annotations

import numpy as np

from ...model import rng as reference
from .jit import borrowing, njit

# The generator's functions are steps (jit.borrowing): only compiled code calls them (the
# engines, the encoder, the entry points below), so they have no wrappers or machine code of
# their own.

# ---------------------------------------------------------------- randomness (docs/rules.md)

@borrowing
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@borrowing
def _game_seed(master, index):
    """The (index+1)-th SplitMix64 output from state `master` (both uint64)."""
    return _mix(master + (index + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))


@borrowing
def _seed(rng, seed):
    """xoshiro256** state from the first four SplitMix64 outputs of state `seed`."""
    state = seed
    for i in range(4):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        rng[i] = _mix(state)


@borrowing
def _next(rng):
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    x = s1 * np.uint64(5)
    result = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3
    return result


@borrowing
def _bounded(rng, n):
    """Uniform in [0, n) by rejection: accept x < 2^64 - (2^64 mod n). n: uint64 >= 1.

    A draw below 2^64 - n is below that bound whatever 2^64 mod n (< n) is: the bound, a
    division as slow as the draw's own, is computed only for the n highest draws (a shuffle's
    divisions were 8 % of a games-only run)."""
    while True:
        x = _next(rng)
        if x <= np.uint64(0xFFFFFFFFFFFFFFFF) - n or x <= np.uint64(0xFFFFFFFFFFFFFFFF) - (np.uint64(0) - n) % n:
            if np.uint64(1) < n < np.uint64(_RECIPROCALS.shape[0]):
                return _remainder(x, n, _RECIPROCALS[n])
            return x % n


# floor(2^64 / n) for the n a shuffle of a small deck draws with (_remainder)
_RECIPROCALS = np.array([0, 0] + [(1 << 64) // n for n in range(2, 129)], np.uint64)
_LOW = np.uint64(0xFFFFFFFF)
_HALF = np.uint64(32)


@borrowing(inline="linked")
def _remainder(x, n, reciprocal):
    """x % n without a division (x, n uint64, 1 < n, reciprocal = floor(2^64 / n)): the quotient
    floor(x * reciprocal / 2^64) is x // n or one less, so the remainder is x minus it times n,
    less n once if that is n or more. A 64-bit division takes tens of cycles, a shuffle 51."""
    x_low, x_high = x & _LOW, x >> _HALF
    r_low, r_high = reciprocal & _LOW, reciprocal >> _HALF
    low_low = x_low * r_low
    high_low = x_high * r_low
    low_high = x_low * r_high
    middle = (low_low >> _HALF) + (high_low & _LOW) + low_high
    quotient = x_high * r_high + (high_low >> _HALF) + (middle >> _HALF)
    r = x - quotient * n
    return r - n if r >= n else r


@borrowing
def _shuffle(rng, arr, length):
    """Fisher-Yates from the end over arr[0:length], in place."""
    for i in range(length - 1, 0, -1):
        j = np.int64(_bounded(rng, np.uint64(i + 1)))
        a = arr[i]
        arr[i] = arr[j]
        arr[j] = a


# Small entry points for the tests of the generator.

@njit(cache=True)
def splitmix_outputs(state, count):
    out = np.empty(count, np.uint64)
    for i in range(count):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        out[i] = _mix(state)
    return out


@njit(cache=True)
def game_seeds(master, start, stop):
    out = np.empty(stop - start, np.uint64)
    for i in range(start, stop):
        out[i - start] = _game_seed(master, np.uint64(i))
    return out


@njit(cache=True)
def xoshiro_outputs(seed, count):
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    out = np.empty(count, np.uint64)
    for i in range(count):
        out[i] = _next(rng)
    return out


@njit(cache=True)
def shuffled_range(seed, length):
    """range(length) shuffled by the generator of `seed` (what shuffled_deal shuffles)."""
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    deck = np.arange(length).astype(np.int32)
    _shuffle(rng, deck, length)
    return deck


@njit(cache=True)
def bounded_draws(seed, bounds):
    rng = np.empty(4, np.uint64)
    _seed(rng, seed)
    out = np.empty(len(bounds), np.uint64)
    for i in range(len(bounds)):
        out[i] = _bounded(rng, bounds[i])
    return out


@njit(cache=True)
def remainders(xs, n):
    """Each of xs (uint64) modulo n by _remainder, for n in _RECIPROCALS."""
    out = np.empty(len(xs), np.uint64)
    for i in range(len(xs)):
        out[i] = _remainder(xs[i], n, _RECIPROCALS[n])
    return out


HASH_START = np.uint64(reference.HASH_START)  # a running hash before its first word
_FOLD_PRIME = np.uint64(reference.FOLD_PRIME)


@njit(cache=True, inline="always")
def _fold(h, word):
    """One word into a running hash (finished by _mix): of a position, of a shape key
    (model.rng._fold)."""
    return (h ^ np.uint64(word)) * _FOLD_PRIME
