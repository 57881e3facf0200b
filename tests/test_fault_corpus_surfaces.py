"""The fault corpus, round three (issue 45): the surfaces added since round two, searched for the
same classes of fault. War search refuses what its records' dataset would refuse before it
searches, and budgets it could not hold; an enumeration too large to count in a message is
said by its power of ten; a games row that names another seed or deal than the game its dataset
plays is said by replay, of a dataset that stores its log or not. A stopped search leaves nothing.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from faultkit import TRIES, can_see_processes, catches_ctrl_c, one_line, sign, war
from faultkit import procs  # noqa: F401  the fixture
from waitkit import GONE_WITHIN
from pipeline.jobs.generate import Plan, generate, make_plans
from pipeline.model.rules import build_rules

SMALL = ["--set", "ranks=4", "--set", "suits=2"]


@pytest.mark.parametrize("args, culprit", [
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**64)], "--seed"),
    (["--searchers", "100001"], "--searchers"),  # a billion ran out of memory: a test must not
    (["--keep", "1000000000000"], "--keep"),
])
def test_a_search_refuses_what_it_could_not_finish_before_it_searches(args, culprit, tmp_path, monkeypatch, capsys):
    """A seed the records' dataset cannot take was refused after the search (the records were
    printed, then lost); a billion searchers were a billion tasks made in memory before any
    deal was played (it ran out of memory): now at most 100,000."""
    code, out, err = war(monkeypatch, capsys, "search", *SMALL, "--rounds", "1", *args, "--out", tmp_path / "r", "-q")
    one_line(code, out, err, 2, culprit)
    assert out == "" and not (tmp_path / "r").exists()


@pytest.mark.skipif(not can_see_processes(), reason="needs Linux's /proc to find processes")
def test_a_stopped_search_leaves_nothing_and_no_process(tmp_path, procs):
    """What the README says a stopped search leaves: nothing in --out, not even a journal; its
    workers end with it."""
    for _ in range(TRIES):
        proc = procs.war("search", "--set", "ranks=8", "--set", "suits=2", "--rounds", "100000", "--workers", "2",
                         "--out", tmp_path / "r", "-q")
        catches_ctrl_c(proc)
        time.sleep(random.uniform(0.5, 4.0))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err.strip().endswith("error: interrupted"), err
        assert not (tmp_path / "r").exists() and not procs.gone(GONE_WITHIN)


def test_an_enumeration_too_large_to_print_is_said_by_its_power_of_ten(tmp_path, monkeypatch, capsys):
    """Every deal of 1,000 ranks of 32 suits is a count of some 95,000 digits, past what Python
    prints: `internal error: ValueError: Exceeds the limit (4300 digits)`."""
    code, out, err = war(monkeypatch, capsys, "generate", "--all-deals", "--set", "ranks=1000", "--set", "suits=32",
                         "--out", tmp_path / "d")
    line = one_line(code, out, err, 2, "32000-card deck", "about 10^94,8")
    assert len(line) < 300
    code, out, err = war(monkeypatch, capsys, "generate", "--all-deals", "--out", tmp_path / "d")
    assert "92,024,242,230,271,040,357,108,320,801,872,044,844,750,000,000,000 deals" in one_line(code, out, err, 2)


def set_column(root: Path, column: str, row: int, value) -> None:
    """Change one cell of the games file of game `row`, then re-sign the manifest."""
    path = next((root / "games").rglob("*.parquet"))
    file = pq.ParquetFile(path)
    table = file.read()
    cells = table.column(column).to_pylist()
    cells[row] = value
    field = table.schema.field(column)
    if pa.types.is_dictionary(field.type):
        array = pa.array(cells, field.type.value_type).dictionary_encode().cast(field.type)
    else:
        array = pa.array(cells, field.type)
    table = table.set_column(table.schema.get_field_index(column), field, array)
    pq.write_table(table.replace_schema_metadata(file.schema_arrow.metadata), path, compression="zstd")
    sign(root)


@pytest.mark.parametrize("log", ["games", "events"])
def test_a_games_row_naming_another_seed_is_said_by_replay(log, tmp_path, monkeypatch, capsys):
    """A dataset that stores the games table alone plays a game from its own seed: a row that
    names another one showed it as the game's seed, without a word (validate named it)."""
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 6, log=log)], seed=11)
    seeds = pq.read_table(next((root / "games").rglob("*.parquet"))).column("game_seed").to_pylist()
    set_column(root, "game_seed", 3, seeds[4])
    code, out, err = war(monkeypatch, capsys, "replay", root, "3")
    assert code == 0
    assert err.strip() == (f"warning: game 3: the games row disagrees with its log: game_seed: the row says "
                           f"{seeds[4]}, the dataset says {seeds[3]}")
    code, out, err = war(monkeypatch, capsys, "replay", root, "4")
    assert code == 0 and err == ""


def test_replay_s_headline_is_the_log_s_game_when_the_row_says_otherwise(tmp_path, monkeypatch, capsys):
    """A row saying 999 battles and the other winner was warned of on stderr, then printed as the
    game's outcome on the headline a reader trusts (hostile pass E, 8)."""
    root = tmp_path / "d"
    generate(root, [Plan(build_rules("classic"), 6)], seed=11)
    rows = pq.read_table(next((root / "games").rglob("*.parquet"))).to_pylist()
    true = rows[2]
    set_column(root, "battles", 2, 999)
    code, out, err = war(monkeypatch, capsys, "replay", root, "2")
    assert code == 0 and "battles: the row says 999, the log says " + str(true["battles"]) in err
    [outcome] = [line for line in out.splitlines() if line.startswith("Outcome:")]
    assert f"after {true['battles']} battles" in outcome and "999" not in outcome, outcome
    code, page, err = war(monkeypatch, capsys, "replay", root, "2", "--format", "html")
    assert code == 0 and '"battles":999' not in page and f'"battles":{true["battles"]},' in page, err


def test_a_games_row_naming_another_deal_is_said_by_replay(tmp_path, monkeypatch, capsys):
    """A game of every deal whose row says it was shuffled: its deal_index and piles read as
    null, and replay said nothing."""
    root = tmp_path / "d"
    generate(root, make_plans([build_rules("classic", {"ranks": 5, "suits": 1})], all_deals=True), seed=1)
    set_column(root, "deal", 3, "shuffle")
    code, out, err = war(monkeypatch, capsys, "replay", root, "3")
    assert code == 0 and "deal: the row says 'shuffle', the dataset says 'all'" in err
