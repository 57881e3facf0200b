"""The quick paths of reading user files (model.inputs, model.deal): a JSON text's nesting bound
taken from the brackets it opens, and a deal of codes checked in one pass, each held to the full
check it skips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.errors import DealError
from pipeline.model import deal as dealing
from pipeline.model.deal import check_deal
from pipeline.model.inputs import MAX_DEPTH, TooDeep, depth, loads_json
from pipeline.model.rules import build_rules

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}a\"\\ ", max_size=4),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(alphabet="[{k", max_size=3), inner, max_size=3),
                           max_leaves=60)


def nested(levels: int, inside: str = "1") -> str:
    return "[" * levels + inside + "]" * levels


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(min_value=1, max_value=8))
def test_a_json_text_is_refused_exactly_when_it_nests_past_the_bound(value, limit):
    text = json.dumps(value)
    if depth(value, limit) > limit:
        with pytest.raises(TooDeep):
            loads_json(text, limit)
    else:
        assert loads_json(text, limit) == value


@pytest.mark.parametrize("levels", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_the_bound_holds_at_its_edge_with_brackets_inside_strings(levels):
    text = nested(levels, '"[[[{{{"')
    if levels > MAX_DEPTH:
        with pytest.raises(TooDeep):
            loads_json(text)
    else:
        assert depth(loads_json(text)) == levels
    shallow = json.dumps(["[" * 100, {"k": "{" * 100}])  # opens many in strings, nests 2
    assert loads_json(shallow) == json.loads(shallow)


RULES = [build_rules("classic", {"ranks": 3, "suits": 2}),
         build_rules("multiplayer", {"ranks": 2, "suits": 2, "jokers": 2, "players": 3})]
card = st.one_of(st.integers(min_value=-1, max_value=7), st.booleans(), st.sampled_from(["A♠", "2", "JK1", "x"]))


def outcome(rules, piles, aside):
    try:
        return check_deal(rules, piles, aside)
    except DealError as err:
        return DealError, str(err)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(RULES), st.data())
def test_a_deal_checked_in_one_pass_is_the_deal_the_full_check_gives(rules, data):
    size = rules.ranks * rules.suits + rules.jokers
    cards = data.draw(st.permutations(range(size)))  # a whole deck of codes, split, some set aside
    cut = data.draw(st.integers(min_value=0, max_value=size))
    piles = [list(cards[s:cut:rules.players]) for s in range(rules.players)]
    aside = list(cards[cut:])
    dealt = piles + [aside]
    for _ in range(data.draw(st.integers(min_value=0, max_value=2))):  # then spoiled, or not
        where = data.draw(st.sampled_from([p for p in dealt if p] or dealt))
        how = data.draw(st.sampled_from(["replace", "drop", "add"]))
        at = data.draw(st.integers(min_value=0, max_value=max(len(where) - 1, 0)))
        if how == "add" or not where:
            where.insert(at, data.draw(card))
        elif how == "drop":
            del where[at]
        else:
            where[at] = data.draw(card)
    if not aside:
        aside = data.draw(st.sampled_from([aside, None]))
    quick = outcome(rules, piles, aside)
    full_check = dealing._whole_deck
    dealing._whole_deck = lambda *args: None
    try:
        full = outcome(rules, piles, aside)
    finally:
        dealing._whole_deck = full_check
    assert quick == full
