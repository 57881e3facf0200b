"""Rule sets by name wherever a person reads them: a rule set's label is its variant and the
options that differ from the variant's defaults, or the name a user gave (`war generate
--name`, `name = "..."` in a rule file). A name is stored in the manifest's rule set entry, is
not one of the rules (it changes no `rules_id`), and shows in the `rules` and `games` views,
the text replay's header, the replay's JSON and the replay page."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import error_lines
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.jobs.replay import as_json, render_text, replay_game
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.errors import RulesError
from pipeline.model.rules import build_rules, load_rules_file, read_rules_file
from pipeline.model.names import rule_set_names
from pipeline.model.schema import Manifest, RuleSetEntry
from pipeline.present.replay_page import page_data, replay_page
from pipeline.storage.dataset import Dataset
from conftest import OLD_DATASET



def war(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_a_label_is_the_variant_and_what_differs_from_its_defaults():
    assert build_rules("classic").label == "classic"
    assert build_rules("classic", {"pickup": "table_order"}).label == "classic pickup=table_order"
    assert build_rules("classic", {"war_down": "1", "pickup": "pooled"}).label == "classic war_down=1 pickup=pooled"
    assert build_rules("multiplayer", {"players": "3"}).label == "multiplayer"  # its own default
    assert build_rules("multiplayer", {"players": "4"}).label == "multiplayer players=4"
    assert build_rules("jokers").label == "jokers"


def _entry(rules, ordinal, name=None):
    return RuleSetEntry(ordinal=ordinal, rules_id=rules.rules_id, rules=rules, seed=0, games=1, shard_size=1,
                        name=name)


def test_names_by_ordinal():
    """A rule set's first given name names every entry of its rules; two rule sets given one name
    are told apart by their ids."""
    classic, fixed, jokers = build_rules("classic"), build_rules("classic", {"pickup": "table_order"}), build_rules("jokers")
    names = rule_set_names([_entry(classic, 0), _entry(classic, 1, "base"), _entry(fixed, 2), _entry(jokers, 3)])
    assert names == {0: "base", 1: "base", 2: "classic pickup=table_order", 3: "jokers"}
    same = rule_set_names([_entry(classic, 0, "x"), _entry(jokers, 1, "x")])
    assert same == {0: f"x ({classic.rules_id})", 1: f"x ({jokers.rules_id})"}


def test_a_name_is_not_a_rule(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text('variant = "classic"\npickup = "table_order"\n')
    named = tmp_path / "named.toml"
    named.write_text('variant = "classic"\nname = "  fixed order "\npickup = "table_order"\n')
    assert load_rules_file(named) == load_rules_file(plain)
    assert read_rules_file(named) == (load_rules_file(plain), "fixed order")
    assert read_rules_file(plain)[1] is None
    for bad in ('name = ""', 'name = 3', f'name = "{"x" * 61}"'):
        path = tmp_path / "bad.toml"
        path.write_text(f'variant = "classic"\n{bad}\n')
        with pytest.raises(RulesError, match="name"):
            read_rules_file(path)


def test_an_old_manifest_without_names_reads():
    manifest = Manifest.model_validate_json((OLD_DATASET / "manifest.json").read_text())
    assert all(e.name is None for e in manifest.rule_sets)
    rows = run(OLD_DATASET, sql="SELECT DISTINCT rule_set, variant FROM rules ORDER BY variant").to_pylist()
    assert rows == [{"rule_set": "classic", "variant": "classic"}, {"rule_set": "steal", "variant": "steal"}]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    rules_file = folder / "mine.toml"
    rules_file.write_text('variant = "classic"\nname = "fixed order"\npickup = "table_order"\nmax_battles = 500\n')
    out = folder / "ds"
    request = generate_request(GenerateArgs(variants=["classic", "jokers"], names=["base", "with jokers"], games=6,
                                            out=out, seed=5))
    request.run()
    generate_request(GenerateArgs(rule_files=[rules_file], games=6, out=out, append=True)).run()
    generate(out, [Plan(build_rules("classic", {"war_down": "1"}), 6)], append=True)
    return out


def test_names_are_kept_in_the_manifest_and_change_no_id(root):
    entries = Dataset.open(root).manifest.rule_sets
    assert [e.name for e in entries] == ["base", "with jokers", "fixed order", None]
    assert [e.rules_id for e in entries] == [build_rules("classic").rules_id, build_rules("jokers").rules_id,
                                             build_rules("classic", {"pickup": "table_order",
                                                                     "max_battles": "500"}).rules_id,
                                             build_rules("classic", {"war_down": "1"}).rules_id]


def test_the_rules_and_games_views_name_each_rule_set(root):
    rules = run(root, sql="SELECT rule_set, ordinal, rules_id FROM rules ORDER BY ordinal").to_pylist()
    assert [r["rule_set"] for r in rules] == ["base", "with jokers", "fixed order", "classic war_down=1"]
    assert [r["ordinal"] for r in rules] == [0, 1, 2, 3]
    games = run(root, sql="SELECT rule_set, count(*) AS n, any_value(rules_id) AS rid FROM games "
                          "GROUP BY rule_set ORDER BY min(game_id)").to_pylist()
    assert [(g["rule_set"], g["n"]) for g in games] == [("base", 6), ("with jokers", 6), ("fixed order", 6),
                                                       ("classic war_down=1", 6)]
    # the documented join gives the same names
    joined = run(root, sql="SELECT DISTINCT g.rule_set = r.rule_set AS same FROM games g "
                           "JOIN rules r ON r.ordinal = g.game_id // 1000000000").to_pylist()
    assert joined == [{"same": True}]


def test_a_replay_says_its_rule_set(root):
    rp = replay_game(root, 2_000_000_001)
    assert render_text(rp).splitlines()[0].startswith("Game 2000000001 · fixed order (classic) · rules ")
    assert as_json(rp)["rule_set"] == "fixed order"
    assert render_text(replay_game(root, 3_000_000_000)).splitlines()[0].startswith(
        "Game 3000000000 · classic war_down=1 · rules ")
    assert page_data(rp)["rule_set"] == "fixed order"
    assert "<title>War replay · game 2000000001 · fixed order</title>" in replay_page(root, 2_000_000_001)


def test_the_name_flag(root, tmp_path):
    """--name names the rule set of each --variant, in order; the errors are one line each and
    write nothing."""
    r = war("generate", "-v", "classic", "--name", "mine", "-n", "4", "--out", tmp_path / "a", "-q")
    assert r.returncode == 0, r.stderr
    assert run(tmp_path / "a", sql="SELECT rule_set FROM rules").to_pylist() == [{"rule_set": "mine"}]
    for args, message in (
            (["-v", "classic", "-v", "jokers", "--name", "x"], "--name gives 1 name for 2 rule sets of --variant"),
            (["--name", "a\nb"], "--name: a rule set's name is 1 to 60 printable characters"),
            (["-v", "razboi", "--name", "base", "--append", "--out", root], "--name: 'base' already names rule set"),
            (["-v", "classic", "-v", "jokers", "--name", "x", "--name", "x"], "--name: 'x' already names")):
        before = (root / "manifest.json").read_bytes()
        out = ["--out", tmp_path / "b"] if "--out" not in args else []
        r = war("generate", *args, *out, "-n", "4", "-q")
        said = error_lines(r.stderr)  # an append checks names under its lock, after a compile
        assert r.returncode == 2 and len(said) == 1 and message in said[0], (args, r.stderr)
        assert not (tmp_path / "b").exists() and (root / "manifest.json").read_bytes() == before


def test_a_materialized_dataset_keeps_the_names(root, tmp_path):
    out = tmp_path / "some"
    generate_request(GenerateArgs(source=root, where="game_id // 1000000000 = 2", out=out)).run()
    assert [e.name for e in Dataset.open(out).manifest.rule_sets] == ["fixed order"]


def test_the_old_fixture_is_untouched_by_names(tmp_path):
    """Appending a named rule set to a dataset written before names: the old entries keep no
    name and read by their labels."""
    ds = tmp_path / "old"
    shutil.copytree(OLD_DATASET, ds)
    generate_request(GenerateArgs(variants=["jokers"], names=["J"], games=4, out=ds, append=True)).run()
    rows = run(ds, sql="SELECT DISTINCT rule_set FROM rules ORDER BY rule_set").to_pylist()
    assert [r["rule_set"] for r in rows] == ["J", "classic", "steal"]
    assert json.loads((ds / "manifest.json").read_text())["rule_sets"][0].get("name") is None
