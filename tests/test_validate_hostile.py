"""`war validate`, and every reader, against a dataset tampered by hand (hostile QA pass A, defects
5, 6, 11 and 12): an engine version war does not know or not its files', a rule set that claims
every deal of a 52-card deck, policies for a variant without decisions, a games row duplicated or
two swapped. Each is a problem of the dataset, named where it is (manifest.json and its rule set,
or the games file and the game): validate exits 1 and its last line never says every game is good
under BAD lines; the other readers refuse the dataset in one line, in words of the manifest.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, war
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

GAMES = 30
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def w(tmp_path_factory) -> Path:
    """Classic War with its log and with the games table alone, and Steal War (decisions)."""
    w = tmp_path_factory.mktemp("hostile")
    generate(w / "events", [Plan(build_rules("classic"), GAMES)], seed=1)
    generate(w / "games", [Plan(build_rules("classic"), GAMES, log="games")], seed=1)
    generate(w / "steal", [Plan(build_rules("steal"), 20)], seed=1)
    return w


def tampered(w: Path, name: str, tmp_path: Path, edit) -> Path:
    """A copy of dataset `name` with `edit(manifest)` applied and the manifest re-signed."""
    root = tmp_path / name
    shutil.copytree(w / name, root)
    sign(root, edit)
    return root


def validated(monkeypatch, capsys, root: Path) -> tuple[list[str], str]:
    """`war validate -q ROOT`, which must exit 1: its BAD lines and its last line."""
    code, out, err = war(monkeypatch, capsys, "validate", root, "-q")
    assert code == 1 and "Traceback" not in out + err, (code, out, err)
    lines = out.strip().splitlines()
    return [line for line in lines if line.startswith("BAD ")], lines[-1]


def rule_set(**changes):
    return lambda m: m["rule_sets"][0].update(changes)


# ---------------------------------------------------------------- 5. engine versions

ENGINES = {
    "not a version": (lambda m: m.update(engine_version="banana"),
                      "engine_version 'banana' is not an engine version this war knows (1, 2)"),
    "newer than this war": (lambda m: m.update(engine_version="9"),
                            "engine_version '9' is not an engine version this war knows"),
    "a rule set's, not a version": (rule_set(engine_version="zz"),
                                    "rule set 0: engine_version 'zz' is not an engine version this war knows"),
    "not its files'": (lambda m: m.update(engine_version="1"),
                       "rule set 0: engine version 1 (the manifest's engine_version), but its files were written "
                       "by engine version 2"),
    "a rule set's, not its files'": (rule_set(engine_version="1"),
                                     "rule set 0: engine version 1 (its own engine_version), but its files were "
                                     "written by engine version 2"),
}


@pytest.mark.parametrize("case", list(ENGINES))
def test_an_engine_version_war_does_not_know_or_not_its_files_is_named(case, w, tmp_path, monkeypatch, capsys):
    """"banana", "9", a rule set's "zz", and an engine version that is not what the data files
    say wrote them all validated clean (exit 0), where an unknown schema_version or
    rules_id_version is named: now one problem of manifest.json."""
    edit, said = ENGINES[case]
    root = tampered(w, "events", tmp_path, edit)
    bad, last = validated(monkeypatch, capsys, root)
    assert len(bad) == 1 and bad[0].startswith(f"BAD manifest.json: {said}"), bad
    assert last == f"games checked: {GAMES}, good: {GAMES}, bad: 0, 1 file problem"


def test_an_older_engine_is_held_to_the_files_it_wrote(tmp_path):
    """A dataset of engine version 1 (its files say 1) has no engine problem; saying 2 in its
    manifest, where its files say 1, is one."""
    root = tmp_path / "engine-1"
    shutil.copytree(FIXTURES / "dataset-engine-1", root)
    assert not [p for p in validate(root).problems if "engine_version" in p.message or "written by" in p.message]
    sign(root, lambda m: m.update(engine_version="2"))
    said = [str(p) for p in validate(root).problems if "written by" in p.message]
    assert said == ["manifest.json: rule set 0: engine version 2 (the manifest's engine_version), but its files "
                    "were written by engine version 1 (war.engine_version in their metadata)"]


# ---------------------------------------------------------------- 6. every deal of a 52-card deck

TOO_MANY = "more than 10,000,000,000"


def test_every_deal_of_a_52_card_deck_is_a_problem_of_the_manifest(w, tmp_path):
    """validate died of a segmentation fault (exit 139) enumerating deals past what war plays:
    now one line naming the manifest's rule set, in `war generate --all-deals`' words, exit 1.
    In a process of its own, so that the fault, were it back, kills that one and not the tests."""
    root = tampered(w, "events", tmp_path, rule_set(all_deals=True))
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "validate", str(root), "-q"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    bad = [line for line in done.stdout.splitlines() if line.startswith("BAD ")]
    assert len(bad) == 1 and bad[0].startswith("BAD manifest.json: rule set 0: all_deals"), bad
    assert "every deal of a 52-card deck is" in bad[0] and TOO_MANY in bad[0]


READERS = {
    "sql": ["query", "{root}", "--sql", "SELECT count(*) FROM games"],
    "report": ["report", "{root}", "--output", "{out}/r.html", "-q"],
    "replay": ["replay", "{root}", "0"],
}


@pytest.mark.parametrize("reader", list(READERS))
def test_every_deal_of_a_52_card_deck_is_refused_by_every_reader(reader, w, tmp_path, monkeypatch, capsys):
    """query and report said `internal error: OverflowError`, and replay played the game with a
    warning that its row says `shuffle`: each refuses the dataset in one line."""
    root = tampered(w, "events", tmp_path, rule_set(all_deals=True))
    args = [a.format(root=root, out=tmp_path) for a in READERS[reader]]
    code, out, err = war(monkeypatch, capsys, *args)
    one_line(code, out, err, 2, "manifest.json", "rule set 0", "all_deals", TOO_MANY)
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------- 11. policies in the manifest

def test_policies_of_a_variant_without_decisions_are_a_problem_of_the_manifest(w, tmp_path, monkeypatch, capsys):
    """validate said `variant 'classic' has no decisions, so it takes no --policy` (a flag nobody
    gave) and exited 2, a usage error: now the manifest's rule set is named, exit 1."""
    root = tampered(w, "events", tmp_path, rule_set(policies=["always", "never"]))
    bad, _ = validated(monkeypatch, capsys, root)
    assert bad == ["BAD manifest.json: rule set 0: variant 'classic' has no decisions, but the manifest lists "
                   "policies for it (always, never)"]


@pytest.mark.parametrize("reader", ["sql", "replay"])
def test_policies_of_a_variant_without_decisions_are_refused_by_every_reader(reader, w, tmp_path, monkeypatch,
                                                                             capsys):
    """replay blamed `--policy` (exit 2 as a usage error) and query read on: each says the
    manifest's problem, on one line, no flag in it."""
    root = tampered(w, "events", tmp_path, rule_set(policies=["always", "never"]))
    code, out, err = war(monkeypatch, capsys, *[a.format(root=root) for a in READERS[reader]])
    line = one_line(code, out, err, 2, "manifest.json", "rule set 0", "no decisions", "policies")
    assert "--policy" not in line


def test_policies_for_more_seats_than_players_are_a_problem_of_the_manifest(w, tmp_path, monkeypatch, capsys):
    """A variant with decisions and a seat too many in its policies: validate exited 2, naming
    `--policy`; now a problem of manifest.json's rule set."""
    root = tampered(w, "steal", tmp_path, rule_set(policies=["default"] * 3))
    bad, _ = validated(monkeypatch, capsys, root)
    assert len(bad) == 1 and bad[0].startswith("BAD manifest.json: rule set 0: the manifest's policies"), bad
    assert "3 seats' policies" in bad[0] and "--policy" not in bad[0]


# ---------------------------------------------------------------- 12. games rows twice or out of order

def rows_changed(root: Path, edit) -> None:
    """The games file's rows replaced by edit(rows), same schema and metadata, and re-signed."""
    path = next((root / "games").rglob("*.parquet"))
    table = pq.read_table(path)
    rows = edit(table.to_pylist())
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path, compression="zstd")
    sign(root)


def duplicated(rows):
    return rows[:4] + [dict(rows[3])] + rows[4:]


def duplicated_further_on(rows):
    return rows[:10] + [dict(rows[3])] + rows[10:]


def swapped(rows):
    return rows[:3] + [rows[4], rows[3]] + rows[5:]


ROWS = {
    "a row duplicated": (duplicated, "game 3: game record appears twice"),
    "a row duplicated further on": (duplicated_further_on, "game 3: game record appears twice"),
    "two rows swapped": (swapped, "game 3: rows not sorted by game_id, as the format says: row 4 (game 3) "
                                  "follows game 4"),
}


@pytest.mark.parametrize("name", ["events", "games"])
@pytest.mark.parametrize("case", list(ROWS))
def test_a_games_row_twice_or_out_of_order_is_a_bad_game(case, name, w, tmp_path, monkeypatch, capsys):
    """The summary said `good: 30, bad: 0` under the BAD line, and a duplicated row was said twice,
    once as `rows not sorted ... row 4 (game 3) follows game 3`: now said once, the game bad."""
    edit, said = ROWS[case]
    root = tmp_path / name
    shutil.copytree(w / name, root)
    rows_changed(root, edit)
    bad, last = validated(monkeypatch, capsys, root)
    assert len(bad) == 1 and bad[0].startswith("BAD games/") and bad[0].endswith(said), bad
    assert last == f"games checked: {GAMES}, good: {GAMES - 1}, bad: 1"


@pytest.mark.parametrize("name", ["events", "games"])
def test_a_record_of_a_game_outside_the_file_is_counted_in_the_summary(name, w, tmp_path, monkeypatch, capsys):
    """A record of another game's id among the file's: every game of the file is good, yet the
    summary must not read as if nothing were wrong (and the games table alone named nothing)."""
    root = tmp_path / name
    shutil.copytree(w / name, root)
    rows_changed(root, lambda rows: rows + [{**rows[3], "game_id": 999}])
    bad, last = validated(monkeypatch, capsys, root)
    assert len(bad) == 1 and bad[0].endswith("game 999: game record outside the file's range"), bad
    assert last == f"games checked: {GAMES}, good: {GAMES}, bad: 0, 1 problem"
