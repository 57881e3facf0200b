"""engines.choice: a family's compiled engine plays only the options its spec declares, at the
values it declares; anything else, a new option first of all, is played by the reference."""

from __future__ import annotations

import pytest

from pipeline.engines.choice import compiled_engine, compiled_plays, supported
from pipeline.engines.families import FAMILIES, family_of
from pipeline.engines.game import play_game
from pipeline.log.shard import play_range
from pipeline.model.rules import build_rules
from pipeline.model.schema import RuleSet

pytest.importorskip("numba")


class WithDiscard(RuleSet):
    """A rule set with an option no compiled engine knows, as a new rule would add it."""

    discard_down: bool = False


@pytest.mark.parametrize("variant", ["classic", "razboi", "steal", "arneson"])
def test_an_option_the_spec_does_not_name_sends_the_games_to_the_reference(variant):
    rules = build_rules(variant)
    assert compiled_plays(rules)
    at_default = WithDiscard(**rules.model_dump())
    assert compiled_engine(at_default) is not None  # left at its default, it changes no game
    changed = WithDiscard(**rules.model_dump(), discard_down=True)
    assert not supported(family_of(changed), changed) and compiled_engine(changed) is None


def test_a_value_the_spec_does_not_list_sends_the_games_to_the_reference():
    rules = build_rules("classic", {"pickup": "winner_first"})
    table = FAMILIES["table"]
    assert compiled_plays(rules)
    options = {**table.compiled_options, "pickup": ("shuffled", "table_order", "pooled")}
    narrower = type(table)(**{**table.__dict__, "compiled_options": options})
    assert not supported(narrower, rules)
    assert supported(narrower, build_rules("classic", {"pickup": "pooled"}))


def test_games_of_an_unknown_option_are_played_by_the_reference(monkeypatch):
    """shard_tables asks the choice and takes the reference's tables, never the compiled engine's."""
    import pipeline.log.shard as shard

    rules = WithDiscard(**build_rules("classic").model_dump(), discard_down=True)
    monkeypatch.setattr(shard, "compiled_shard", lambda *a, **k: pytest.fail("the compiled engine played"))
    _events, games = shard.shard_tables(rules, 0, 1, 0, 3)
    _ids, _logs, records = play_range(rules, 0, 1, 0, 3)
    assert games.column("battles").to_pylist() == [r["battles"] for r in records]
    assert records[0]["battles"] == play_game(rules, records[0]["game_seed"])[1].battles


def test_every_family_spec_names_only_real_options():
    names = set(RuleSet.model_fields) - {"variant"}
    for family in FAMILIES.values():
        assert set(family.compiled_options) <= names, family.name
        assert set(family.kind_names), family.name
