"""The data contract: JSON Schema files in schemas/ follow the models, Arrow schemas derive from them."""

import json

import pytest

from pipeline.engines.event import Event
from pipeline.errors import RulesError
from pipeline.model.rules import build_rules, load_rules_file, parse_sets
from pipeline.model.schema import (SCHEMA_VERSION, EventModel, GameRecord, LogRow, RuleSet, arrow_fields, json_schemas,
                                   schemas_dir)
from pipeline.log.tables import EVENT_SCHEMA, GAME_SCHEMA


def test_exported_json_schemas_match_the_models():
    """Fails when a model changes without `python -m pipeline.model.schema` being rerun: the
    files are the built-in families' models, whatever else is installed."""
    folder = schemas_dir()
    for name, text in json_schemas(outside=False).items():
        path = folder / name
        assert path.exists(), f"{name} missing: run python -m pipeline.model.schema"
        assert path.read_text(encoding="utf-8") == text, f"{name} drifted: run python -m pipeline.model.schema"


def test_the_schemas_of_a_session_hold_every_installed_familys_options_and_kinds():
    """With a family installed (the example, tests/conftest.py), the JSON Schemas of the session
    take its options and kinds from its declaration; the files hold the built-in ones."""
    from pipeline.model.families import registry

    outside = set(registry().families) - set(registry().built_in)
    assert outside, "the example family is installed for the tests"
    ours, files = json.loads(json_schemas()["rule_set.schema.json"]), json.loads(json_schemas(False)["rule_set.schema.json"])
    extra = set(registry().options) - set(registry(outside=False).options)
    assert extra and extra <= set(ours["properties"]) and not extra & set(files["properties"])
    kinds = json.loads(json_schemas()["event.schema.json"])["properties"]["kind"]["enum"]
    assert set(registry().kinds) == set(kinds) and set(registry(outside=False).kinds) < set(kinds)


def test_no_stale_schema_files():
    assert {p.name for p in schemas_dir().glob("*.json")} == set(json_schemas())


def test_arrow_schemas_have_every_model_field_in_order():
    assert EVENT_SCHEMA.names == list(LogRow.model_fields)
    assert GAME_SCHEMA.names == list(GameRecord.model_fields)
    assert EVENT_SCHEMA.metadata[b"war.schema_version"] == str(SCHEMA_VERSION).encode()


def test_the_event_in_memory_has_the_exported_event_fields_in_order():
    """An event of the `events` view (EventModel, exported to event.schema.json) is its game_id
    and seq, then the fields of the Event that Python code builds and reads; the fields that may
    be null are the ones an Event leaves None by default."""
    assert list(EventModel.model_fields) == ["game_id", "seq", *Event._fields]
    assert [name for name, _, nullable in arrow_fields(EventModel) if nullable] == \
        [name for name, default in Event._field_defaults.items() if default is None]


def test_nullable_columns_are_exactly_the_optional_fields():
    assert [f.name for f in GAME_SCHEMA if f.nullable] == ["winner", "cycle_length", "cycle_key"]
    assert [f.name for f in EVENT_SCHEMA if f.nullable] == []


def test_rules_id_is_stable_and_depends_on_every_option():
    a = build_rules("classic")
    assert a.rules_id == build_rules("classic").rules_id
    assert a.rules_id != build_rules("classic", {"max_battles": "9999"}).rules_id
    assert len(a.rules_id) == 16


def test_set_values_are_typed():
    r = build_rules("classic", parse_sets(["war_down=1", "pickup=pooled", "win=wars:3", "jokers=2"]))
    assert (r.war_down, r.pickup, r.win, r.jokers, r.wars_to_win) == (1, "pooled", "wars:3", 2, 3)


@pytest.mark.parametrize("options, words", [
    ({"nosuch": "1"}, "unknown option 'nosuch'"),
    ({"pickup": "sideways"}, "pickup"),
    ({"war_down": "x"}, "war_down"),
    ({"war_down": "-1"}, "war_down"),
    ({"players": "9"}, "players"),
    ({"players": "1"}, "players"),
    ({"jokers": "1"}, "jokers"),
    ({"win": "wars:0"}, "win"),
    ({"max_battles": "0"}, "max_battles"),
    ({"ranks": "0"}, "ranks"),
    ({"players": "8", "ranks": "7", "suits": "1"}, "without a card"),
    ({"hand_size": "3"}, "does not apply"),
])
def test_bad_options_name_the_option(options, words):
    with pytest.raises(RulesError) as err:
        build_rules("classic", options)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_variant():
    with pytest.raises(RulesError, match="unknown variant 'nosuch'"):
        build_rules("nosuch")


def test_rule_files_toml_and_json(tmp_path):
    toml = tmp_path / "r.toml"
    toml.write_text('variant = "classic"\npickup = "winner_first"\nwar_down = 2\n')
    js = tmp_path / "r.json"
    js.write_text(json.dumps({"variant": "classic", "pickup": "winner_first", "war_down": 2}))
    assert load_rules_file(toml) == load_rules_file(js) == build_rules("classic", {"pickup": "winner_first", "war_down": 2})


@pytest.mark.parametrize("text, words", [
    ('variant = "classic"\nbogus = 1\n', "unknown option 'bogus'"),
    ('variant = "classic"\nwar_down = "many"\n', "war_down"),
    ('pickup = "pooled"\n', "must give `variant`"),
    ('variant = "classic"\npickup = \n', "not valid TOML"),
])
def test_bad_rule_files(tmp_path, text, words):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RulesError) as err:
        load_rules_file(path)
    assert words in str(err.value)


def test_missing_rule_file(tmp_path):
    with pytest.raises(RulesError, match="cannot read"):
        load_rules_file(tmp_path / "nope.toml")


def test_rule_set_is_frozen_and_rejects_extra_fields():
    with pytest.raises(Exception):
        RuleSet(variant="classic", bogus=1)


@pytest.mark.parametrize("variant, options, words", [
    ("razboi", {"ranks": "7"}, "option 'ranks' does not apply to variant 'razboi'"),
    ("razboi", {"suits": "2"}, "option 'suits' does not apply to variant 'razboi'"),
    ("classic", {"war_down": "by_rank", "ranks": "7"}, "standard deck"),
    ("multiplayer", {"players": "1"}, "players"),
    ("multiplayer", {"players": "9"}, "players"),
    ("multiplayer", {"players": "8", "ranks": "1", "suits": "7"}, "each needs at least one"),
])
def test_bad_variant_options(variant, options, words):
    with pytest.raises(RulesError) as err:
        build_rules(variant, options)
    assert words in str(err.value)


def test_rule_file_with_an_unknown_option_names_it(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"variant": "razboi", "players": 3, "colour": "red"}))
    with pytest.raises(RulesError, match="unknown option 'colour'"):
        load_rules_file(path)
