"""The fault corpus, round two (issue 35): validation is complete. Each tamper is made the way
someone who knows the format would, with the manifest re-signed (every listed file's checksum
and row count recomputed), so that the file checks pass and only the checks of what the
manifest says the dataset holds can catch it; validation names each problem and exits 1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, war
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

GAMES, SHARD = 60, 20


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """Classic War and Jokers, 60 games each in shards of 20, and 20 explicit deals."""
    w = tmp_path_factory.mktemp("layout")
    deals = w / "deals.jsonl"
    line = json.dumps({"piles": [list(range(0, 52, 2)), list(range(1, 52, 2))], "set_aside": []})
    deals.write_text((line + "\n") * 20, encoding="utf-8")
    plans = [Plan(build_rules("classic"), GAMES), Plan(build_rules("jokers"), GAMES)]
    plans += make_plans([build_rules("classic", {"pickup": "table_order"})], deals=deals)
    generate(w / "ds", plans, seed=9, shard_size=SHARD)
    assert validate(w / "ds").ok
    return w / "ds"


@pytest.fixture
def ds(pristine, tmp_path) -> Path:
    out = tmp_path / "ds"
    shutil.copytree(pristine, out)
    return out


def files(manifest: dict, **match) -> list[dict]:
    return [f for f in manifest["files"] if all(f[k] == v for k, v in match.items())]


def drop(ds: Path, manifest: dict, f: dict) -> None:
    (ds / f["path"]).unlink()
    manifest["files"].remove(f)


def shard_gone(ds, m):
    """A whole shard (games 20..39 of rule set 0) gone, from the folder and the manifest."""
    for f in files(m, rule_set=0, first_game=20):
        drop(ds, m, f)


def games_file_dropped(ds, m):
    """A games part dropped while its events file stays listed."""
    drop(ds, m, files(m, rule_set=1, table="games", first_game=40)[0])


def listed_twice(ds, m):
    m["files"].append(dict(files(m, rule_set=0, table="events")[0]))


def events_swapped(ds, m):
    """Two games' events swapped in their file: each game's rows intact, the file no longer in
    (game_id, seq) order."""
    path = ds / files(m, rule_set=0, table="events", first_game=20)[0]["path"]
    table = pq.read_table(path)
    ids = table.column("game_id").to_pylist()
    first = [i for i, g in enumerate(ids) if g == ids[0]]
    second = [i for i, g in enumerate(ids) if g == ids[0] + 1]
    rest = list(range(len(first) + len(second), len(ids)))
    pq.write_table(table.take(second + first + rest), path, compression="zstd")


def games_swapped(ds, m):
    path = ds / files(m, rule_set=1, table="games", first_game=0)[0]["path"]
    table = pq.read_table(path)
    pq.write_table(table.take([1, 0] + list(range(2, table.num_rows))), path, compression="zstd")


def wrong_rules_id(ds, m):
    m["rule_sets"][1]["rules_id"] = m["rule_sets"][0]["rules_id"]


def under_another_variant(ds, m):
    """Jokers' games file moved under variant=classic: queries would count them as Classic War's."""
    f = files(m, rule_set=1, table="games", first_game=0)[0]
    new = f["path"].replace("variant=jokers", "variant=classic").replace("part-", "part-9")
    (ds / new).parent.mkdir(parents=True, exist_ok=True)
    (ds / f["path"]).rename(ds / new)
    f["path"] = new


def deals_cut(ds, m):
    """The deals file loses its last line, its manifest entry re-signed to match."""
    f = files(m, table="deals")[0]
    lines = (ds / f["path"]).read_text(encoding="utf-8").splitlines(keepends=True)
    (ds / f["path"]).write_text("".join(lines[:-1]), encoding="utf-8")
    f["rows"] = f["games"] = len(lines) - 1


def deals_unlisted(ds, m):
    m["files"].remove(files(m, table="deals")[0])


def file_of_no_rule_set(ds, m):
    f = dict(files(m, rule_set=0, table="games", first_game=0)[0])
    new = f["path"].replace("part-00000", "part-00099")
    shutil.copy(ds / f["path"], ds / new)
    f.update(rule_set=7, path=new)
    m["files"].append(f)


def rule_set_twice(ds, m):
    m["rule_sets"].append(dict(m["rule_sets"][0]))


def other_seed(ds, m):
    m["rule_sets"][1]["seed"] = m["master_seed"] + 1


TAMPERS = {
    "a shard gone": (shard_gone, ["rule set 0: its games 20..39 are in no games file",
                                  "rule set 0: its games 20..39 are in no events file"]),
    "a games file dropped, its events listed": (games_file_dropped, ["rule set 1: its games 40..59 are in no games file",
                                                                     "are not the games of any one games file"]),
    "a file listed twice": (listed_twice, ["listed 2 times in the manifest"]),
    "two games' events swapped": (events_swapped, ["rows not sorted by (game_id, seq)"]),
    "two games' records swapped": (games_swapped, ["rows not sorted by game_id"]),
    "a rules_id not its rules' hash": (wrong_rules_id, ["is not its rules' id"]),
    "a file under another variant": (under_another_variant, ["under variant=classic"]),
    "a deals file cut short": (deals_cut, ["holds 19 deals for rule set 2's 20 games"]),
    "a deals file unlisted": (deals_unlisted, ["deals file is not listed in the manifest"]),
    "a file of no rule set": (file_of_no_rule_set, ["rule set 7, which the manifest does not have"]),
    "a rule set listed twice": (rule_set_twice, ["rule set 0 is listed 2 times"]),
    "a rule set with another seed": (other_seed, ["not the master seed"]),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_tamper_with_the_manifest_re_signed_is_named(name, ds, monkeypatch, capsys):
    tamper, said = TAMPERS[name]
    manifest = json.loads((ds / "manifest.json").read_text(encoding="utf-8"))
    tamper(ds, manifest)
    sign(ds, lambda m: m.update(manifest))
    report = validate(ds)
    assert not report.ok
    text = "\n".join(str(p) for p in report.problems)
    for words in said:
        assert words in text, text
    code, out, err = war(monkeypatch, capsys, "validate", ds)
    assert code == 1 and "Traceback" not in out + err, err
    for words in said:
        assert words in out, out


def test_a_file_listed_twice_is_refused_by_query_and_replay(ds, monkeypatch, capsys):
    """Listed twice, a file's rows were counted twice: query answered 8,000 games of 6,000."""
    sign(ds, lambda m: m["files"].append(dict(files(m, rule_set=0, table="games")[0])))
    for args in (("query", ds, "outcomes"), ("replay", ds, "3")):
        code, out, err = war(monkeypatch, capsys, *args)
        one_line(code, out, err, 2, "twice")


def test_an_untampered_dataset_has_no_layout_problem(pristine):
    assert validate(pristine).ok
