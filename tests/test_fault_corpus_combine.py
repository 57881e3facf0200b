"""The fault corpus, round four (issue 50, items 3, 6, 14, 15, 16 and 19): slices of counts joined,
`--keep` and what a counts dataset says of itself.

`war combine` checks each slice's counts and shards files against its manifest's checksums, that
its shards tile the deals it claims and that its counts are as many as those deals, and never
signs an answer over every deal whose denominator is not the deck's deal count; it carries the
slices' kept games when they kept by the same condition and refuses slices of different
conditions or of different rule sets. `--keep` refuses a function whose value is not the same in
every run (`random()`, `now()`), and `--resume` a condition other than the interrupted run's. A
counts dataset's messages say what it holds: its kept games, and the deals a slice counted.

The deck is the issue's: four ranks of two suits, 2,520 deals (in open play under natural pickup,
a slice counts the classes whose first deal lies in it, both deals of each).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from faultkit import one_line, sign, tree, war
from pipeline.jobs import counts as counting
from pipeline.jobs.generate import generate, make_plans
from pipeline.jobs.query import run
from pipeline.jobs.validate import validate
from pipeline.model.rules import build_rules

OPEN = ["--set", "ranks=4", "--set", "suits=2", "--set", "pickup=natural", "--set", "war_down=0"]
OPEN_OPTIONS = {"ranks": "4", "suits": "2", "pickup": "natural", "war_down": "0"}
PLAIN_OPTIONS = {"ranks": "4", "suits": "2"}  # every deal played: a slice counts its own deals
DEALS = 2520
KEEP = "battles > 10"
COUNTS = "counts/variant=classic/part-00000.parquet"
SHARDS = "count_shards/variant=classic/part-00000.parquet"


def _count(root: Path, options: dict, deal_range=None, keep=None) -> Path:
    rules = build_rules("classic", options)
    generate(root, make_plans([rules], all_deals=True, log="counts", deal_range=deal_range, keep=keep))
    return root


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """The open deck counted whole and in two slices, with and without `--keep`; the plain deck
    in two slices; a slice of another rule set (sorted pickup) of the same deck."""
    base = tmp_path_factory.mktemp("combine")
    return {
        "whole": _count(base / "whole", OPEN_OPTIONS),
        "whole-kept": _count(base / "whole-kept", OPEN_OPTIONS, keep=KEEP),
        "a": _count(base / "a", OPEN_OPTIONS, (0, 1000)),
        "b": _count(base / "b", OPEN_OPTIONS, (1000, DEALS)),
        "a-kept": _count(base / "a-kept", OPEN_OPTIONS, (0, 1000), KEEP),
        "b-kept": _count(base / "b-kept", OPEN_OPTIONS, (1000, DEALS), KEEP),
        "b-other-keep": _count(base / "b-other-keep", OPEN_OPTIONS, (1000, DEALS), "battles > 12"),
        "b-sorted": _count(base / "b-sorted", {**OPEN_OPTIONS, "pickup": "sorted"}, (1000, DEALS)),
        "plain-a": _count(base / "plain-a", PLAIN_OPTIONS, (0, 800)),
        "plain-b": _count(base / "plain-b", PLAIN_OPTIONS, (1000, DEALS)),
    }


def _copy(made, name: str, tmp_path: Path) -> Path:
    copy = tmp_path / name
    shutil.copytree(made[name], copy)
    return copy


def _add_games(root: Path, extra: int) -> None:
    """`extra` more games in the counts file's first row of the first deals of their class."""
    table = pq.read_table(root / COUNTS)
    games = table.column("games").to_pylist()
    games[table.column("first_of_class").to_pylist().index(True)] += extra
    table = table.set_column(table.schema.get_field_index("games"), "games", pa.array(games, pa.int64()))
    pq.write_table(table, root / COUNTS, compression="zstd")


# ---------------------------------------------------------------- item 3: checksums, tiling, denominators


def test_a_tampered_slice_is_refused_by_its_checksum(made, tmp_path, monkeypatch, capsys):
    """18 games added to a slice's counts: the join said "exact" over 2,538 deals of 2,520."""
    a = _copy(made, "a", tmp_path)
    _add_games(a, 18)
    code, out, err = war(monkeypatch, capsys, "combine", a, made["b"], "--out", tmp_path / "j")
    one_line(code, out, err, 2, str(a), COUNTS, "checksum")
    assert not (tmp_path / "j").exists()


def test_a_tampered_and_resigned_slice_never_gives_another_denominator(made, tmp_path, monkeypatch, capsys):
    a = _copy(made, "a", tmp_path)
    _add_games(a, 18)
    sign(a)
    code, out, err = war(monkeypatch, capsys, "combine", a, made["b"], "--out", tmp_path / "j")
    one_line(code, out, err, 2, f"{DEALS + 18:,}", f"{DEALS:,}")
    assert not (tmp_path / "j").exists()


def test_a_mislabelled_slice_is_refused_by_its_shards(made, tmp_path, monkeypatch, capsys):
    """A slice of deals 0 .. 799 whose manifest says 0 .. 999: joined, 2,320 deals of 2,520."""
    a = _copy(made, "plain-a", tmp_path)
    sign(a, lambda m: m["rule_sets"][0].update(deal_range=[0, 1000]))
    code, out, err = war(monkeypatch, capsys, "combine", a, made["plain-b"], "--out", tmp_path / "j")
    one_line(code, out, err, 2, str(a), "0 .. 999", "0 .. 799")
    assert not (tmp_path / "j").exists()


def test_a_mislabelled_slice_with_its_shards_relabelled_is_refused_by_its_counts(made, tmp_path, monkeypatch,
                                                                                 capsys):
    """The shards file rewritten to claim deals 0 .. 999 too: its counts hold 800 games."""
    a = _copy(made, "plain-a", tmp_path)
    table = pq.read_table(a / SHARDS)
    assert table.column("deals").to_pylist() == [800]
    table = table.set_column(table.schema.get_field_index("deals"), "deals", pa.array([1000], pa.int64()))
    pq.write_table(table, a / SHARDS, compression="zstd")
    sign(a, lambda m: m["rule_sets"][0].update(deal_range=[0, 1000]))
    code, out, err = war(monkeypatch, capsys, "combine", a, made["plain-b"], "--out", tmp_path / "j")
    one_line(code, out, err, 2, str(a), "800", "1,000")
    assert not (tmp_path / "j").exists()


def test_slices_that_tile_still_join_to_every_deal(made, tmp_path):
    from pipeline.jobs.combine import combine

    done = combine([made["b"], made["a"]], tmp_path / "j")
    assert list(done.deals.values()) == [(0, DEALS, DEALS)]
    rows = run(tmp_path / "j", name="exact_outcomes").to_pylist()
    assert rows and {r["denominator"] for r in rows} == {DEALS}
    assert (tmp_path / "j" / COUNTS).read_bytes() == (made["whole"] / COUNTS).read_bytes()


# ---------------------------------------------------------------- item 6: the slices' kept games


def _games(root: Path) -> list[dict]:
    return run(root, sql="SELECT * EXCLUDE (rule_set) FROM games ORDER BY game_id").to_pylist()


def test_kept_games_are_carried_when_the_slices_kept_alike(made, tmp_path, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "combine", made["b-kept"], made["a-kept"], "--out", tmp_path / "j")
    assert code == 0, err
    joined, whole = _games(tmp_path / "j"), _games(made["whole-kept"])
    assert joined == whole and len(joined) > 10
    for part in ("games", "deals", "seeds"):
        assert {k: v for k, v in tree(tmp_path / "j").items() if k.startswith(part)} == \
            {k: v for k, v in tree(made["whole-kept"]).items() if k.startswith(part)}, part
    manifest = json.loads((tmp_path / "j" / "manifest.json").read_text())
    assert manifest["rule_sets"][0]["keep"] == KEEP
    report = validate(tmp_path / "j")
    assert report.ok, [str(p) for p in report.problems]


@pytest.mark.parametrize("other, said", [("b", "none"), ("b-other-keep", "battles > 12")])
def test_slices_kept_by_different_conditions_are_refused(made, tmp_path, monkeypatch, capsys, other, said):
    code, out, err = war(monkeypatch, capsys, "combine", made["a-kept"], made[other], "--out", tmp_path / "j")
    one_line(code, out, err, 2, "--keep", KEEP, said, str(made[other]))
    assert not (tmp_path / "j").exists()


# ---------------------------------------------------------------- item 14: volatile functions


@pytest.mark.parametrize("condition, culprit", [
    ("random() < 0.5", "random"),
    ("battles > 10 OR uuid() IS NULL", "uuid"),
    ("battles > 10 AND now() > TIMESTAMP '2020-01-01'", "now"),
    ("battles > 10 AND current_timestamp > TIMESTAMP '2020-01-01'", "current_timestamp"),
    ("battles > 10 OR (SELECT random()) < 0.5", "random"),
    ("pg_sleep(0) IS NULL OR battles > 10", "pg_sleep"),  # a macro over sleep_ms
])
def test_a_keep_whose_value_changes_between_runs_is_refused(condition, culprit, tmp_path, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "generate", *OPEN, "--all-deals", "--log", "counts",
                         "--keep", condition, "--out", tmp_path / "k", "-q")
    one_line(code, out, err, 2, "--keep", culprit)
    assert not (tmp_path / "k").exists()


def test_a_keep_of_consistent_functions_is_taken():
    said = counting.check_keep("battles + 1 > abs(cards_laid) % 7 OR coalesce(cycle_length, 0) > 2")
    assert "abs" in said and "coalesce" in said


# ---------------------------------------------------------------- item 15: --resume with another --keep


@pytest.mark.parametrize("again, said", [(["--keep", "battles > 12"], "battles > 12"), ([], "none")])
def test_a_resume_with_another_keep_is_refused_naming_both(tmp_path, monkeypatch, capsys, again, said):
    monkeypatch.setattr(counting, "SMALLEST_COUNT_SHARD", 500)
    real = counting.run_count_shard
    done = []

    def stopping(shard, tick=None):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(shard.part)
        return real(shard, tick)

    monkeypatch.setattr("pipeline.jobs.generate.run_count_shard", stopping)
    args = ["generate", *OPEN, "--all-deals", "--log", "counts", "--out", tmp_path / "k", "-q"]
    code, out, err = war(monkeypatch, capsys, *args, "--keep", KEEP)
    assert code == 130, err
    monkeypatch.setattr("pipeline.jobs.generate.run_count_shard", real)
    before = tree(tmp_path / "k")
    code, out, err = war(monkeypatch, capsys, *args, *again, "--resume")
    one_line(code, out, err, 2, "--keep", KEEP, said)
    assert tree(tmp_path / "k") == before
    code, out, err = war(monkeypatch, capsys, *args, "--keep", KEEP, "--resume")
    assert code == 0, err
    assert json.loads((tmp_path / "k" / "manifest.json").read_text())["rule_sets"][0]["keep"] == KEEP


# ---------------------------------------------------------------- item 16: slices of different rule sets


def test_slices_of_different_rule_sets_are_refused(made, tmp_path, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "combine", made["a"], made["b-sorted"], "--out", tmp_path / "j")
    one_line(code, out, err, 2, str(made["a"]), str(made["b-sorted"]), "rule set")
    assert not (tmp_path / "j").exists()


def test_the_runbook_says_what_combine_refuses():
    runbook = (Path(__file__).parents[1] / "docs" / "runbook-enumeration.md").read_text(encoding="utf-8")
    assert "refuses slices of different rule sets" in runbook and "checksum" in runbook


# ---------------------------------------------------------------- item 19: what a counts dataset says


def test_a_counts_dataset_says_it_has_no_games_not_a_range_of_none(made, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "replay", made["a"], "0")
    line = one_line(code, out, err, 2, "counts")
    assert "..-1" not in line


def test_a_counts_dataset_that_keeps_games_says_so(made, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, "query", made["a-kept"], "--sql", "SELECT count(*) FROM events")
    line = one_line(code, out, err, 2, "--keep")
    assert "nor games rows" not in line
    code, out, err = war(monkeypatch, capsys, "replay", made["a-kept"], "5000")
    line = one_line(code, out, err, 2)
    kept = json.loads((made["a-kept"] / "manifest.json").read_text())["rule_sets"][0]["games"]
    assert f"0..{kept - 1}" in line


def test_a_slice_says_the_deals_it_counted(tmp_path, monkeypatch, capsys):
    """A slice of deal numbers 0 .. 999 in open play counts the classes whose first deal is one
    of them: both deals of each, more than 1,000."""
    code, out, err = war(monkeypatch, capsys, "generate", *OPEN, "--all-deals", "--log", "counts",
                         "--deal-range", "0:1000", "--out", tmp_path / "s", "-q")
    assert code == 0, err
    counted = run(tmp_path / "s", sql="SELECT sum(games) FROM counts").column(0)[0].as_py()
    assert counted != 1000
    assert f"counted {counted:,} deals" in out, out


@pytest.mark.parametrize("slices", [Path("a"), iter(["a", "b"]), "abc", 3, ["a", 3]])
def test_combine_takes_a_list_of_folders_and_says_so(slices, tmp_path):
    """A Path or an iterator raised TypeError (no len()), and 'abc' was read as the folders 'a',
    'b' and 'c' ('no dataset at a'): each is the caller's error, one line (hostile pass E, 11)."""
    import pipeline as war

    with pytest.raises(war.DatasetError, match="`slices` is a list of dataset folders, not "):
        war.combine(slices, tmp_path / "out")
    assert not (tmp_path / "out").exists()
