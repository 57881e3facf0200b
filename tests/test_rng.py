"""The specified generator: docs/rules.md's test vectors (Randomness), bounded draws, the shuffle."""

from collections import Counter

from pipeline.model.rng import MASK, SplitMix64, Xoshiro256, game_seed, policy_seed


def test_splitmix64_vectors_from_state_0():
    sm = SplitMix64(0)
    assert [sm.next() for _ in range(3)] == [16294208416658607535, 7960286522194355700, 487617019471545679]


def test_game_seeds_of_master_seed_42():
    assert [game_seed(42, i) for i in range(3)] == [13679457532755275413, 2949826092126892291,
                                                     5139283748462763858]


def test_game_seed_is_the_nth_splitmix_output():
    sm = SplitMix64(987654321)
    outputs = [sm.next() for _ in range(50)]
    assert [game_seed(987654321, i) for i in range(50)] == outputs


def test_xoshiro_of_game_0_of_seed_42():
    x = Xoshiro256(game_seed(42, 0))
    assert [x.next() for _ in range(3)] == [1865750160070900731, 6791145067590612263, 14118064813682728970]


def test_xoshiro_is_seeded_with_four_splitmix_outputs():
    sm = SplitMix64(7)
    x = Xoshiro256(7)
    assert (x.s0, x.s1, x.s2, x.s3) == tuple(sm.next() for _ in range(4))


def test_outputs_stay_64_bit():
    x = Xoshiro256(MASK)
    assert all(0 <= x.next() <= MASK for _ in range(1000))


class Scripted(Xoshiro256):
    """A generator whose raw outputs are given, to test rejection in bounded()."""

    def __init__(self, outputs):
        self.outputs = list(outputs)

    def next(self):
        return self.outputs.pop(0)


def test_bounded_rejects_draws_at_or_above_the_limit():
    n = 3
    limit = (1 << 64) - ((1 << 64) % n)
    r = Scripted([limit, limit + 1, limit - 1])
    assert r.bounded(n) == (limit - 1) % n
    assert r.outputs == []


def test_bounded_is_x_mod_n_when_accepted():
    r = Scripted([10, 11, 12])
    assert [r.bounded(7) for _ in range(3)] == [3, 4, 5]


def test_shuffle_is_fisher_yates_from_the_end():
    r = Scripted([1, 0, 0])  # i=3: j=1 ; i=2: j=0 ; i=1: j=0
    cards = ["a", "b", "c", "d"]
    r.shuffle(cards)
    # i=3, j=1: a d c b ; i=2, j=0: c d a b ; i=1, j=0: d c a b
    assert cards == ["d", "c", "a", "b"]


def test_shuffle_is_roughly_uniform():
    x = Xoshiro256(1)
    counts = Counter()
    for _ in range(6000):
        cards = [0, 1, 2]
        x.shuffle(cards)
        counts[tuple(cards)] += 1
    assert len(counts) == 6
    assert all(800 < c < 1200 for c in counts.values())


def test_policy_seeds_differ_by_seat_and_from_the_game_seed():
    g = game_seed(42, 0)
    seeds = {policy_seed(g, seat) for seat in range(8)}
    assert len(seeds) == 8 and g not in seeds
