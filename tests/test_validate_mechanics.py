"""How `war validate` works, rather than what it catches: the summary line and its counts, the
command line's exit codes and lines, the whole-shard fast path (a regenerated shard compared
with the files a batch of rows at a time, its cards balanced as rules 1.3 and 1.4 require, no
game walked one by one on a clean dataset, explicit deals through the compiled engine) against
the deep game-by-game check, checksums hashed by the workers and reported in the same order
whatever their number, and once-defects kept as regressions (README, Validation). The datasets
and tampering helpers are those of tests/validatekit.py.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.storage.dataset import Dataset
from pipeline.model.deal import shuffled_deal
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from pipeline.jobs.validate import validate
from validatekit import (CLASSIC_GAME, CLASSIC_GAMES, assert_caught, copy, edit_game, edit_manifest_file, files_of,
                         finish)
from validatekit import classic_dataset  # noqa: F401 (fixtures)


# --- the summary -----------------------------------------------------------------------------

def test_clean_copy_validates(classic, tmp_path):
    """An untampered copy: every game good, no problems, and a summary with the counts."""
    report = validate(copy(classic, tmp_path))
    assert report.ok and report.problems == []
    assert report.good == report.games_checked == CLASSIC_GAMES and report.bad == 0
    assert report.summary() == f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES}, bad: 0"


def test_summary_counts_bad_games_and_file_problems(classic, tmp_path):
    """The summary line carries games checked, good, bad and the number of file problems."""
    root = copy(classic, tmp_path)
    edit_game(root, CLASSIC_GAME, "games", lambda rows: [{**rows[0], "battles": rows[0]["battles"] + 1}])
    report = validate(root)
    assert report.summary() == f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES - 1}, bad: 1, 1 file problem"


# --- the command line -------------------------------------------------------------------------

def test_cli_tampered(classic, tmp_path):
    """`war validate -q` on a tampered copy: exit 1, a BAD line naming the game, summary last."""
    root = copy(classic, tmp_path)
    edit_game(root, CLASSIC_GAME, "games", lambda rows: [{**rows[0], "wars": rows[0]["wars"] + 1}])
    result = CliRunner().invoke(app, ["validate", str(root), "-q"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.strip().splitlines()
    bad = [line for line in lines if line.startswith("BAD ")]
    assert any(f"game {CLASSIC_GAME}:" in line and "wars" in line for line in bad), lines
    assert any("checksum differs" in line for line in bad)
    assert lines[-1] == f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES - 1}, bad: 1, 1 file problem"


def test_cli_clean(classic, tmp_path):
    """`war validate -q` on a clean copy: exit 0, no BAD line, the summary."""
    result = CliRunner().invoke(app, ["validate", str(copy(classic, tmp_path)), "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines() == [f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES}, bad: 0"]


# --- the fast path, checked against the deep one --------------------------------------------

def test_cards_balance_on_regenerated_shards_and_its_failures(tmp_path):
    """The whole-shard invariant check behind fast validation: it holds on real games and fails
    when a card leaves the table that was never put there, a card is put down twice in a
    battle, or a deal repeats a card."""
    from pipeline.engines.compiled.layout import EVENT_CARDS_END as E_CEND, EVENT_KIND as E_KIND
    from pipeline.engines.table.compiled import play_arrays
    from pipeline.model.schema import EVENT_KINDS
    from pipeline.log.invariants import cards_balance

    for options in ({}, {"pickup": "pooled"}, {"shortfall": "lose", "players": "3"}):
        arrays = play_arrays(build_rules("classic", options), 9, 0, 40)
        assert cards_balance(arrays, 52)
    evi, cv = arrays[0], arrays[1]
    starts = np.concatenate([[0], evi[:-1, E_CEND]])

    def first_card(kind):
        return starts[np.flatnonzero(evi[:, E_KIND] == EVENT_KINDS.index(kind))[0]]

    def with_card(at, card):
        bad = cv.copy()
        bad[at] = card
        return (evi, bad, *arrays[2:])

    collect, play = first_card("collect"), first_card("play")
    assert not cards_balance(with_card(collect, (cv[collect] + 1) % 52), 52)
    assert not cards_balance(with_card(play + 1, cv[play]), 52)       # both battle cards the same
    assert not cards_balance(with_card(1, cv[0]), 52)                 # a card dealt twice


def test_deep_validation_agrees_with_the_fast_one(tmp_path):
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 30), Plan(build_rules("steal"), 10)], seed=4, shard_size=10)
    fast, deep = validate(root), validate(root, deep=True)
    assert fast.ok and deep.ok and fast.good == deep.good == 40


def test_a_clean_shard_needs_no_game_by_game_walk(classic, monkeypatch):
    """The fast path is what makes validation as fast as generation: on an untampered dataset
    of a compiled variant no game is walked one by one."""
    import pipeline.jobs.validate as validate_module

    def walked(*args, **kwargs):
        raise AssertionError("a clean shard was checked game by game")

    monkeypatch.setattr(validate_module, "check_game", walked)
    report = validate(classic)
    assert report.ok and report.good == CLASSIC_GAMES


def test_explicit_deals_validate_through_the_compiled_engine(tmp_path, monkeypatch):
    """A dataset of explicit deals is checked shard by shard against the compiled engine (the
    fast path, as for seeded games), and a game edited in it is still caught and named."""
    import pipeline.jobs.validate as validation

    rules = build_rules("classic")
    deals = [shuffled_deal(rules, Xoshiro256(1000 + i)) for i in range(30)]
    root = tmp_path / "dealt"
    generate(root, [Plan(rules, len(deals), deals)], seed=5, shard_size=10)
    exact = []
    real = validation._shard_is_exact
    monkeypatch.setattr(validation, "_shard_is_exact", lambda *a: exact.append(real(*a)) or exact[-1])
    report = validate(root)
    assert report.ok and report.good == 30, report.problems
    assert exact == [True, True, True]
    exact.clear()
    rel = edit_game(root, 12, "games", lambda rows: [{**rows[0], "battles": rows[0]["battles"] + 1}])
    report = finish(root, "fixed", rel)
    assert_caught(report, 12, "fixed", (rel,))
    assert False in exact


def test_the_events_file_is_compared_a_batch_of_rows_at_a_time(tmp_path):
    """The fast path reads the events file in batches and compares each with the regenerated
    rows: whatever the batch size, the same rows match, and one row more, one row fewer or one
    card changed does not; a file that cannot be read does not match either."""
    from pipeline.jobs.validate import _rows_match
    from pipeline.log.batches import compiled_shard
    from pipeline.storage.files import read_parquet_batches, write_parquet

    expected, _, _ = compiled_shard(build_rules("classic"), 0, 3, 0, 30)
    path = tmp_path / "events.parquet"

    def matches(table, rows=1000):
        write_parquet(table, path, ("game_id", "seq"))
        return _rows_match(expected, read_parquet_batches(path, rows=rows))

    for rows in (1, 777, 1 << 16):
        assert matches(expected, rows)
    assert not matches(pa.concat_tables([expected, expected.slice(0, 1)]))
    assert not matches(expected.slice(0, expected.num_rows - 1))
    cards = expected.column("cards").to_pylist()
    cards[500] = [cards[500][0] ^ 1] + cards[500][1:]
    assert not matches(expected.set_column(4, "cards", pa.array(cards, expected.schema.field("cards").type)))
    path.write_bytes(path.read_bytes()[:100])
    assert not _rows_match(expected, read_parquet_batches(path))


# --- checksums hashed by the workers --------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_checksums_hashed_by_workers_keep_their_place(classic, tmp_path, workers):
    """The workers hash the files they read; the parent hashes the rest (a file no worker can
    read). The problems are the same, in the same order, whatever the number of workers: the
    file problems first, each file's in the manifest's order, then the games'."""
    root = copy(classic, tmp_path)
    first_games, _ = files_of(root, 0)
    _, middle_events = files_of(root, CLASSIC_GAME)
    last_games, last_events = files_of(root, CLASSIC_GAMES - 1)
    edit_manifest_file(root, middle_events, sha256="0" * 64)
    edit_manifest_file(root, first_games, sha256="1" * 64)
    edit_manifest_file(root, last_games, rows=1)
    with open(root / last_events, "ab") as f:
        f.write(b"\0")
    report = validate(root, workers=workers)
    order = [f.path for f in Dataset.open(root).manifest.files]
    files = [p for p in report.problems if p.game_id is None]
    assert report.problems[:len(files)] == files
    assert [order.index(p.file) for p in files] == sorted(order.index(p.file) for p in files)
    said = [(p.file, p.message.split(":")[0]) for p in files]
    assert said == sorted([(first_games, "checksum differs from the manifest"),
                           (last_games, "row count differs from the manifest"),
                           (middle_events, "checksum differs from the manifest"),
                           (last_events, "checksum differs from the manifest"),
                           (last_events, "not a readable Parquet file")], key=lambda fp: order.index(fp[0]))
    assert {p.game_id for p in report.problems if p.game_id is not None} == set(range(100, CLASSIC_GAMES))
    assert str(report.problems) == str(validate(root, workers=3 - workers).problems)


# --- once defects, kept as regressions ----------------------------------------------------------------------------

def test_classic_pooled_validates_clean(tmp_path):
    """A freshly generated classic dataset with pooled pickup (wars of 3 down) validates clean."""
    out = tmp_path / "classic-pooled"
    generate(out, [Plan(build_rules("classic", {"pickup": "pooled"}), 20)], seed=5)
    report = validate(out)
    assert report.ok, report.problems[:3]
