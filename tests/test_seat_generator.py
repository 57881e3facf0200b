"""A seat's policy generator is made when the policy first draws (engines.policies.SeatGenerator),
and draws what generator(policy_seed(game seed, seat)) draws."""

import pytest

from pipeline.engines.policies import PolicyChooser, SeatGenerator, generator, parse_policy
from pipeline.model.rng import Xoshiro256, policy_seed


@pytest.mark.parametrize("game_seed", [0, 1, 2**63 + 5, 2**64 - 1, 123_456_789])
@pytest.mark.parametrize("seat", [0, 1, 5])
def test_its_draws_are_the_seats_generators(game_seed, seat):
    lazy, made = SeatGenerator(game_seed, seat), generator(policy_seed(game_seed, seat))
    assert [lazy.bounded(n) for n in range(1, 60)] == [made.bounded(n) for n in range(1, 60)]
    cards, same = list(range(20)), list(range(20))
    lazy.shuffle(cards)
    made.shuffle(same)
    assert cards == same and (lazy.s0, lazy.s1, lazy.s2, lazy.s3) == (made.s0, made.s1, made.s2, made.s3)


def test_no_state_is_made_until_a_policy_reads_it():
    lazy = SeatGenerator(7, 1)
    assert isinstance(lazy, Xoshiro256)
    with pytest.raises(AttributeError):
        object.__getattribute__(lazy, "s0")  # not set yet: __getattr__ would make it
    made = generator(policy_seed(7, 1))
    assert lazy.next() == made.next()
    assert object.__getattribute__(lazy, "s0") == made.s0  # set now, read directly
    with pytest.raises(AttributeError, match="no attribute 'seed_'"):
        lazy.seed_


def test_a_chooser_gives_each_seat_its_own():
    """Each seat's generator is its own seat's, whichever seat draws first, and a seat whose
    policy never draws never makes one (its state stays unset)."""
    kinds = ("steal", "top")
    seats = [parse_policy("random", kinds) for _ in range(3)]
    chooser = PolicyChooser(seats, 99)
    assert [type(r) for r in chooser.rngs] == [SeatGenerator] * 3
    second, first = chooser.rngs[2].next(), chooser.rngs[0].next()  # out of seat order
    assert (first, second) == (generator(policy_seed(99, 0)).next(), generator(policy_seed(99, 2)).next())
    assert first != second
    with pytest.raises(AttributeError):
        object.__getattribute__(chooser.rngs[1], "s0")
