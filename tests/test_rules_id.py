"""Rule set ids (model.schema.rules_id): version 2 hashes the variant and the options that differ
from its defaults, so adding an option whose default keeps today's games changes no id; a
manifest entry says which version its id is, and datasets written with version-1 ids still
read, validate and take `--append`."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules
from pipeline.model.schema import RULES_ID_VERSION, RuleSet, rules_id
from pipeline.storage.dataset import Dataset
from conftest import OLD_DATASET



class WithDiscard(RuleSet):
    """A rule set with one more option, as a new rule would add it: off by default."""

    discard_down: bool = False


def test_an_option_added_at_its_default_changes_no_id():
    for name, options in (("classic", {}), ("classic", {"pickup": "table_order"}), ("razboi", {"jokers": "2"}),
                          ("steal", {"players": "3"}), ("arneson", {"pickup": "pooled"})):
        rules = build_rules(name, options)
        wider = WithDiscard(**rules.model_dump())
        assert rules_id(wider) == rules_id(rules)
        assert rules_id(wider, 1) == rules_id(rules, 1)
        changed = WithDiscard(**rules.model_dump(), discard_down=True)
        assert rules_id(changed) != rules_id(rules) and rules_id(changed, 1) != rules_id(rules, 1)


def test_an_id_covers_what_differs_from_the_variant():
    """A variant's own defaults are not differences: Multiplayer War's 3 seats is its default,
    and setting an option to its default value gives the same id."""
    assert build_rules("multiplayer").differences() == {}
    assert build_rules("multiplayer", {"players": "3"}).rules_id == build_rules("multiplayer").rules_id
    assert build_rules("multiplayer", {"players": "4"}).differences() == {"players": 4}
    assert build_rules("classic").rules_id != build_rules("jokers").rules_id  # the same options, not the same variant
    assert len({build_rules("classic", {"pickup": p}).rules_id for p in ("shuffled", "table_order", "pooled")}) == 3


def test_version_1_is_the_hash_of_every_option():
    """The ids datasets were written with before versions: a fixed value of the classic rules."""
    assert rules_id(build_rules("classic"), 1) == "a9955ad693273e42"
    manifest = json.loads((OLD_DATASET / "manifest.json").read_text())
    for entry in manifest["rule_sets"]:
        assert "rules_id_version" not in entry
        assert rules_id(RuleSet(**entry["rules"]), 1) == entry["rules_id"]
    with pytest.raises(ValueError, match="no rules_id version 3"):
        rules_id(build_rules("classic"), 3)


def test_a_new_dataset_records_its_ids_version(tmp_path):
    generate(tmp_path / "d", [Plan(build_rules("classic"), 5)], seed=1)
    entry = Dataset.open(tmp_path / "d").manifest.rule_sets[0]
    assert entry.rules_id_version == RULES_ID_VERSION == 2
    assert entry.rules_id == build_rules("classic").rules_id
    assert run(tmp_path / "d", sql="SELECT DISTINCT rules_id FROM games").column(0).to_pylist() == [entry.rules_id]


def test_a_dataset_with_version_1_ids_reads_and_validates(old_dataset):
    entries = Dataset.open(old_dataset).manifest.rule_sets
    assert [e.rules_id_version for e in entries] == [1, 1]
    report = validate(old_dataset)
    assert report.ok and report.good == 60, [str(p) for p in report.problems]
    ids = run(old_dataset, sql="SELECT DISTINCT rules_id FROM games ORDER BY 1").column(0).to_pylist()
    assert ids == sorted(e.rules_id for e in entries)


def test_a_dataset_with_version_1_ids_takes_an_append(old_dataset):
    """The new rule set gets an id of today's version, the old ones keep theirs, and the whole
    validates; a rule set already there is refused whatever the version of its id."""
    generate(old_dataset, [Plan(build_rules("classic", {"pickup": "table_order"}), 30)], append=True,
             shard_size=20)
    entries = Dataset.open(old_dataset).manifest.rule_sets
    assert [e.rules_id_version for e in entries] == [1, 1, 2]
    report = validate(old_dataset)
    assert report.ok and report.good == 90, [str(p) for p in report.problems]
    from pipeline.errors import DatasetError
    with pytest.raises(DatasetError, match="already"):
        generate(old_dataset, [Plan(build_rules("classic"), 30)], append=True, shard_size=20)


def test_a_re_signed_manifest_with_a_wrong_id_fails_validation(old_dataset):
    """An entry whose id is not its rules' id of its version is named, manifest re-signed or not
    (the manifest has no checksum of its own)."""
    path = old_dataset / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["rule_sets"][1]["rules_id_version"] = 2
    path.write_text(json.dumps(manifest))
    report = validate(old_dataset)
    assert any("rule set 1: rules_id" in str(p) and "is not its rules' id" in str(p) for p in report.problems)


def test_games_rows_keep_their_datasets_id(old_dataset):
    """A games row's rules_id is its entry's, which validation checks it against."""
    games = pq.read_table(next((old_dataset / "games" / "variant=classic").glob("*.parquet")))
    entry = Dataset.open(old_dataset).manifest.rule_sets[0]
    assert set(games.column("rules_id").to_pylist()) == {entry.rules_id} != {build_rules("classic").rules_id}
