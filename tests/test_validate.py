"""`war validate` against tampered datasets.

Two small datasets are generated once per module: 120 classic games (seed 5, shards of 50, so
three part files per table) and 40 three-player games with pooled pickup (shards of 20), which
have `reshuffle` events and a card set aside at the deal. Each test copies one, tampers the copy
by rewriting a Parquet file with pyarrow (same schema), and checks that validation names the
tampered game (and the event, where there is one).

Most tampers run twice (`manifest` fixture): with the manifest left stale, so the checksum
problem must be reported as well as the game, and with the manifest's sha256 and row count fixed
up, so that only the game-level checks can catch it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.storage.dataset import MANIFEST, WORK_DIR, Dataset
from pipeline.model.deal import Deal, shuffled_deal
from pipeline.engines.chance import RandomChance
from pipeline.engines.event import Recorder
from pipeline.engines.table.reference import play_table
from pipeline.errors import DatasetError
from pipeline.engines.game import play_game
from pipeline.jobs.generate import Plan, generate
from pipeline.log.tables import game_record
from pipeline.model.rng import Xoshiro256
from pipeline.model.rules import build_rules
from pipeline.model.schema import SCHEMA_VERSION
from pipeline.log.tables import game_logs
from pipeline.storage.files import sha256_file
from pipeline.jobs.validate import validate
from rulekit import event_dict, rewrite_game_events

CLASSIC_GAMES = 120
POOLED_GAMES = 40
CLASSIC_GAME = 57  # in the middle shard (games 50..99)
POOLED_GAME = 27   # in the second shard (games 20..39)


# --- datasets and tampering helpers ---------------------------------------------------------

@pytest.fixture(scope="module")
def classic(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("validate") / "classic"
    generate(out, [Plan(build_rules("classic"), CLASSIC_GAMES)], seed=5, shard_size=50)
    return out


@pytest.fixture(scope="module")
def pooled(tmp_path_factory) -> Path:
    """Three players (one card set aside at the deal), won cards pooled and reshuffled.
    Multiplayer's one-card wars avoid the classic-pooled defect tested at the end."""
    out = tmp_path_factory.mktemp("validate") / "pooled"
    generate(out, [Plan(build_rules("multiplayer", {"pickup": "pooled"}), POOLED_GAMES)],
             seed=5, shard_size=20)
    return out


@pytest.fixture(params=["stale", "fixed"])
def manifest(request) -> str:
    return request.param


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def files_of(root: Path, gid: int) -> tuple[str, str]:
    """(games file, events file) holding a game, as manifest paths."""
    _, gf, ef = Dataset.open(root).locate(gid)
    return gf.path, ef.path


def rewrite(root: Path, rel: str, edit) -> None:
    """Rewrite one Parquet file: rows -> edit(rows), same schema (and schema metadata)."""
    path = root / rel
    table = pq.read_table(path)
    rows = edit(table.to_pylist())
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path, compression="zstd")


def edit_game(root: Path, gid: int, table: str, edit) -> str:
    """Replace one game's rows in its games or events file by edit(its rows); the file's path.
    Events are edited one dict per event and written back encoded (rulekit), so a test tampers
    with what happened, not with the encoding."""
    rel = files_of(root, gid)[0 if table == "games" else 1]
    if table == "events":
        rewrite_game_events(root / rel, gid, edit)
        return rel

    def whole(rows):
        first = next(i for i, r in enumerate(rows) if r["game_id"] == gid)
        stop = first
        while stop < len(rows) and rows[stop]["game_id"] == gid:
            stop += 1
        return rows[:first] + edit(rows[first:stop]) + rows[stop:]

    rewrite(root, rel, whole)
    return rel


def record_of(root: Path, gid: int) -> dict:
    rows = pq.read_table(root / files_of(root, gid)[0]).to_pylist()
    return next(r for r in rows if r["game_id"] == gid)




def replace_game(root: Path, gid: int, log, summary) -> tuple[str, str]:
    """Write an engine log under game `gid`, with the record the generator would build for it
    (same id, index and seed as before). Returns (events file, games file)."""
    entry = Dataset.open(root).rule_set(0)
    old = record_of(root, gid)
    record = game_record(gid, old["game_index"], old["game_seed"], entry.rules, entry.policies,
                         Deal((), explicit=False), summary, len(log))
    events = [event_dict(gid, i, ev) for i, ev in enumerate(log)]
    return (edit_game(root, gid, "events", lambda rows: events),
            edit_game(root, gid, "games", lambda rows: [record]))


def fix_manifest(root: Path, *rels: str) -> None:
    """Make the manifest agree with the files as they are now (sha256 and row count)."""
    path = root / MANIFEST
    data = json.loads(path.read_text())
    for f in data["files"]:
        if f["path"] in rels:
            f["sha256"] = sha256_file(root / f["path"])
            f["rows"] = pq.ParquetFile(root / f["path"]).metadata.num_rows
    path.write_text(json.dumps(data, indent=2))


def edit_manifest_file(root: Path, rel: str, **changes) -> None:
    path = root / MANIFEST
    data = json.loads(path.read_text())
    entry = next(f for f in data["files"] if f["path"] == rel)
    entry.update(changes)
    path.write_text(json.dumps(data, indent=2))


def finish(root: Path, mode: str, *rels: str):
    """Fix up the manifest if asked, then validate."""
    if mode == "fixed":
        fix_manifest(root, *rels)
    return validate(root)


def assert_caught(report, gid: int, mode: str, rels: tuple[str, ...], seq: int | None = None,
                  message: str | None = None):
    """The tampered game, and only it, is bad; named with its seq; the checksum reported when stale."""
    assert not report.ok
    assert report.bad == 1, report.problems
    games = [p for p in report.problems if p.game_id is not None]
    assert [p.game_id for p in games] == [gid], games
    problem = games[0]
    if seq is not None:
        assert problem.seq == seq, str(problem)
    if message is not None:
        assert message in problem.message, str(problem)
    file_problems = [p for p in report.problems if p.game_id is None]
    if mode == "stale":
        for rel in rels:
            assert any(p.file == rel and "checksum differs" in p.message for p in file_problems), file_problems
    else:
        assert file_problems == []
    return problem


def nth_of_kind(rows: list[dict], kind: str, after: int = 0) -> int:
    """Index of the first event of `kind` at or after `after` (or the first one at all)."""
    hits = [i for i, r in enumerate(rows) if r["kind"] == kind]
    assert hits, f"no {kind} event"
    return next((i for i in hits if i >= after), hits[0])


# --- clean datasets ---------------------------------------------------------------------------

def test_clean_copy_validates(classic, tmp_path):
    """An untampered copy: every game good, no problems, and a summary with the counts."""
    report = validate(copy(classic, tmp_path))
    assert report.ok and report.problems == []
    assert report.good == report.games_checked == CLASSIC_GAMES and report.bad == 0
    assert report.summary() == f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES}, bad: 0"


def test_clean_pooled_validates(pooled):
    """The pooled dataset is clean too, and holds the event kinds the card tampers need."""
    report = validate(pooled)
    assert report.ok, report.problems[:3]
    assert report.good == POOLED_GAMES
    logs = game_logs(pq.read_table(pooled / files_of(pooled, POOLED_GAME)[1]))
    kinds = {ev.kind for log in logs.values() for ev in log}
    assert {"reshuffle", "set_aside"} <= kinds


def test_summary_counts_bad_games_and_file_problems(classic, tmp_path):
    """The summary line carries games checked, good, bad and the number of file problems."""
    root = copy(classic, tmp_path)
    edit_game(root, CLASSIC_GAME, "games", lambda rows: [{**rows[0], "battles": rows[0]["battles"] + 1}])
    report = validate(root)
    assert report.summary() == f"games checked: {CLASSIC_GAMES}, good: {CLASSIC_GAMES - 1}, bad: 1, 1 file problem"


# --- 1. a changed card, in every kind of event that carries cards ---------------------------

CARD_CASES = [
    ("classic", "deal"), ("classic", "play"), ("classic", "down"), ("classic", "collect"),
    ("pooled", "deal"), ("pooled", "set_aside"), ("pooled", "play"), ("pooled", "down"),
    ("pooled", "collect"), ("pooled", "reshuffle"),
]


@pytest.mark.parametrize("which,kind", CARD_CASES)
def test_changed_card(request, tmp_path, manifest, which, kind):
    """One card of one event replaced by another card of the deck (for a deal, the last seat's
    pile gets a card of seat 0's, so the duplicate shows at that very event): the cards no longer
    add up at that event."""
    root = copy(request.getfixturevalue(which), tmp_path)
    gid = CLASSIC_GAME if which == "classic" else POOLED_GAME
    seen = {}

    def edit(rows):
        if kind == "deal":
            i = max(i for i, r in enumerate(rows) if r["kind"] == "deal")
        else:
            i = nth_of_kind(rows, kind, after=len(rows) // 2)
        cards = rows[i]["cards"]
        other = next(c for c in rows[0]["cards"] if c not in cards)
        rows[i] = {**rows[i], "cards": [other] + cards[1:]}
        seen["seq"] = rows[i]["seq"]
        return rows

    rel = edit_game(root, gid, "events", edit)
    report = finish(root, manifest, rel)
    problem = assert_caught(report, gid, manifest, (rel,), seq=seen["seq"])
    assert problem.file == rel


class RotateOnce(RandomChance):
    """The game's own random orders, except that the first order of `kind` with two or more
    cards from the `after`-th random order on comes out rotated by one."""

    def __init__(self, rng, rec, kind: str, after: int) -> None:
        super().__init__(rng)
        self.rec, self.kind, self.after, self.calls, self.seq = rec, kind, after, 0, None

    def order(self, kind, seat, cards):
        out = super().order(kind, seat, cards)
        self.calls += 1
        if self.seq is None and kind == self.kind and len(out) >= 2 and self.calls > self.after:
            self.seq = self.rec.position  # the collect or reshuffle is the next event
            out = out[1:] + out[:1]
        return out


@pytest.mark.parametrize("kind", ["collect", "reshuffle"])
def test_random_order_changed(request, tmp_path, manifest, kind):
    """A legal game that leaves its seed's path midway: one collect (shuffled pickup) or
    reshuffle comes out in another order and the game is played on from there, record and all.
    Every card is in one place and the rules allow any order, so only regeneration can tell,
    and it must name that event."""
    which = "classic" if kind == "collect" else "pooled"
    root = copy(request.getfixturevalue(which), tmp_path)
    gid = CLASSIC_GAME if which == "classic" else POOLED_GAME
    rules = Dataset.open(root).rule_set(0).rules
    rng = Xoshiro256(record_of(root, gid)["game_seed"])
    deal = shuffled_deal(rules, rng)
    rec = Recorder()
    chance = RotateOnce(rng, rec, kind, after=10)
    summary = play_table(rules, deal, chance, rec)
    assert chance.seq is not None
    rels = replace_game(root, gid, rec.events, summary)
    report = finish(root, manifest, *rels)
    assert_caught(report, gid, manifest, rels, seq=chance.seq, message="regenerates differently")


# --- 2. dropped, duplicated and swapped events ------------------------------------------------

def _drop(rows, i):
    return rows[:i] + rows[i + 1:]


def _duplicate(rows, i):
    return rows[:i + 1] + [dict(rows[i])] + rows[i + 1:]


def _swap(rows, i):
    return rows[:i] + [rows[i + 1], rows[i]] + rows[i + 2:]


# (name, edit, seq reported relative to the tampered position i)
ORDER_CASES = [("drop", _drop, 0), ("duplicate", _duplicate, 1), ("swap", _swap, 0)]


@pytest.mark.parametrize("name,edit,offset", ORDER_CASES,
                         ids=[c.values[0] if hasattr(c, "values") else c[0] for c in ORDER_CASES])
def test_event_order(classic, tmp_path, manifest, name, edit, offset):
    """An event dropped, duplicated, or swapped with the next one (seat 0's battle card with seat
    1's), and the log written back as a well-formed encoding: the content must show it. The
    problem names the first event that differs."""
    root = copy(classic, tmp_path)
    seen = {}

    def tamper(rows):
        i = next(i for i, r in enumerate(rows)
                 if i >= len(rows) // 2 and r["kind"] == "play" and rows[i + 1]["kind"] == "play")
        seen["i"] = i
        return edit(rows, i)

    rel = edit_game(root, CLASSIC_GAME, "events", tamper)
    report = finish(root, manifest, rel)
    assert_caught(report, CLASSIC_GAME, manifest, (rel,), seq=seen["i"] + offset)


def test_dropped_end_event(classic, tmp_path, manifest):
    """The last event (the end) dropped: the log stops short."""
    root = copy(classic, tmp_path)
    seen = {}

    def tamper(rows):
        seen["n"] = len(rows) - 1
        return rows[:-1]

    rel = edit_game(root, CLASSIC_GAME, "events", tamper)
    assert_caught(finish(root, manifest, rel), CLASSIC_GAME, manifest, (rel,), seq=seen["n"])


# --- 3. a game record that disagrees with its events ------------------------------------------

RECORD_CASES = {
    "battles": lambda r: r["battles"] + 1,
    "winner": lambda r: 1 - r["winner"],
    "outcome": lambda r: "draw" if r["outcome"] != "draw" else "win",
    "wars": lambda r: r["wars"] + 1,
    "game_seed": lambda r: (r["game_seed"] + 1) % 2**64,
    "max_war_depth": lambda r: r["max_war_depth"] + 1,
    "final_cards": lambda r: list(reversed(r["final_cards"])),
    "events": lambda r: r["events"] - 1,
}


@pytest.mark.parametrize("column", list(RECORD_CASES))
def test_record_disagrees(classic, tmp_path, manifest, column):
    """One column of one row of games/ changed: the record no longer matches its events."""
    root = copy(classic, tmp_path)

    def tamper(rows):
        (row,) = rows
        assert row["outcome"] == "win"  # so winner is a seat
        return [{**row, column: RECORD_CASES[column](row)}]

    rel = edit_game(root, CLASSIC_GAME, "games", tamper)
    report = finish(root, manifest, rel)
    problem = assert_caught(report, CLASSIC_GAME, manifest, (rel,), seq=None,
                            message=f"game record disagrees with its events: {column}")
    assert problem.file == rel


def test_record_missing(classic, tmp_path, manifest):
    """A game's row deleted from games/: its events have no record."""
    root = copy(classic, tmp_path)
    rel = edit_game(root, CLASSIC_GAME, "games", lambda rows: [])
    report = finish(root, manifest, rel)
    assert_caught(report, CLASSIC_GAME, manifest, (rel,), message="no record")


# --- 4. checksums and row counts --------------------------------------------------------------

def test_appended_byte(classic, tmp_path):
    """A byte appended to an events file: its checksum differs, the file no longer reads as
    Parquet, and every game it holds is reported bad, by id."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    with open(root / rel, "ab") as f:
        f.write(b"\0")
    report = validate(root)
    assert not report.ok
    assert any(p.file == rel and p.game_id is None and "checksum differs" in p.message for p in report.problems)
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50
    assert {p.game_id for p in report.problems if p.game_id is not None} == set(range(50, 100))


def test_manifest_checksum_changed(classic, tmp_path):
    """The manifest's sha256 of a file changed (the data intact): a file problem naming it.
    The games themselves still check out, so none is counted bad."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    edit_manifest_file(root, rel, sha256="0" * 64)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == rel and problem.game_id is None and "checksum differs" in problem.message
    assert report.summary().endswith("bad: 0, 1 file problem")

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



@pytest.mark.parametrize("table", ["games", "events"])
def test_manifest_row_count_changed(classic, tmp_path, table):
    """The manifest's row count of a file changed: a file problem naming it, with both counts."""
    root = copy(classic, tmp_path)
    rel = files_of(root, CLASSIC_GAME)[0 if table == "games" else 1]
    rows = pq.ParquetFile(root / rel).metadata.num_rows
    edit_manifest_file(root, rel, rows=rows + 1)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == rel and problem.game_id is None
    assert f"row count differs from the manifest: expected {rows + 1}, found {rows}" in problem.message


# --- 5. missing and unlisted files ------------------------------------------------------------

@pytest.mark.parametrize("table", ["games", "events"])
def test_missing_file(classic, tmp_path, table):
    """A listed data file deleted: reported missing, and every game it held reported bad."""
    root = copy(classic, tmp_path)
    rel = files_of(root, CLASSIC_GAME)[0 if table == "games" else 1]
    (root / rel).unlink()
    report = validate(root)
    assert not report.ok
    assert any(p.file == rel and p.game_id is None and "missing" in p.message for p in report.problems)
    assert report.games_checked == CLASSIC_GAMES
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50
    named = [p for p in report.problems if p.game_id is not None]
    assert {p.game_id for p in named} == set(range(50, 100))
    assert all(p.file == rel for p in named)


def test_unlisted_file(classic, tmp_path):
    """An extra Parquet file in events/ that the manifest does not list (readers of the folder
    would see its rows twice): a file problem naming it."""
    root = copy(classic, tmp_path)
    _, rel = files_of(root, CLASSIC_GAME)
    extra = Path(rel).with_name("part-00099.parquet").as_posix()
    shutil.copy(root / rel, root / extra)
    report = validate(root)
    assert not report.ok
    (problem,) = report.problems
    assert problem.file == extra and "not listed in the manifest" in problem.message


# --- 6. a valid game, but not the one its seed makes ------------------------------------------

def test_game_of_another_seed(classic, tmp_path, manifest):
    """A game's events and record replaced by those of another seed's game, written under its
    id: every move is legal and the record agrees with the events, but regenerating from the
    dataset's seed gives a different deal."""
    root = copy(classic, tmp_path)
    log, summary, _ = play_game(Dataset.open(root).rule_set(0).rules, 12345)
    rels = replace_game(root, CLASSIC_GAME, log, summary)
    report = finish(root, manifest, *rels)
    problem = assert_caught(report, CLASSIC_GAME, manifest, rels, seq=0,
                            message="regenerates differently from its seed")
    assert problem.file == rels[0]


# --- opening a folder that is not a finished dataset ------------------------------------------

def test_no_manifest(classic, tmp_path):
    """A folder without manifest.json is not a dataset; with a .war work folder it is unfinished."""
    root = copy(classic, tmp_path)
    (root / MANIFEST).unlink()
    with pytest.raises(DatasetError, match="no manifest.json"):
        Dataset.open(root)
    with pytest.raises(DatasetError, match="no manifest.json"):
        validate(root)
    (root / WORK_DIR).mkdir()
    with pytest.raises(DatasetError, match="unfinished"):
        Dataset.open(root)


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


# --- once defects, kept as regressions ----------------------------------------------------------------------------

def test_classic_pooled_validates_clean(tmp_path):
    """A freshly generated classic dataset with pooled pickup (wars of 3 down) validates clean."""
    out = tmp_path / "classic-pooled"
    generate(out, [Plan(build_rules("classic", {"pickup": "pooled"}), 20)], seed=5)
    report = validate(out)
    assert report.ok, report.problems[:3]


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


def _row_tamper(rows):
    """The game's first row whose shape takes a two-card table."""
    return next(i for i, r in enumerate(rows) if "@1,0" in r["shape"] or "@0,1" in r["shape"])


ROW_CASES = [
    ("seq", lambda r: {**r, "seq": r["seq"] + 1}, "starts at seq"),
    ("shape", lambda r: {**r, "shape": r["shape"] + " bogus!"}, "cannot read event"),
    ("take", lambda r: {**r, "shape": r["shape"].replace("@1,0", "@1,1").replace("@0,1", "@1,1")},
     "takes positions"),
    ("cards", lambda r: {**r, "cards": r["cards"] + [0]}, "more cards"),
]


@pytest.mark.parametrize("name,edit,message", ROW_CASES, ids=[c[0] for c in ROW_CASES])
def test_undecodable_row(classic, tmp_path, manifest, name, edit, message):
    """A file row that no log encodes to (a seq out of step, a shape that does not parse, a take
    that is not a permutation of the table, cards the shape does not name): the game is bad,
    named with the row's seq, and the rest of the file still validates."""
    root = copy(classic, tmp_path)
    rel = files_of(root, CLASSIC_GAME)[1]
    seen = {}

    def tamper(rows):
        mine = [i for i, r in enumerate(rows) if r["game_id"] == CLASSIC_GAME]
        i = mine[0] + _row_tamper(rows[mine[0]:mine[-1] + 1])
        seen["seq"] = rows[i]["seq"]
        return rows[:i] + [edit(rows[i])] + rows[i + 1:]

    rewrite(root, rel, tamper)
    report = finish(root, manifest, rel)
    problem = assert_caught(report, CLASSIC_GAME, manifest, (rel,), seq=seen["seq"], message=message)
    assert report.good == CLASSIC_GAMES - 1, problem


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


# --- issue 12: validation that explains ------------------------------------------------------

def test_a_file_rewritten_by_another_tool_is_explained_and_its_games_still_checked(classic, tmp_path):
    """Same rows, no key-value metadata, snappy instead of zstd, plain strings instead of
    dictionaries: each difference is named with its column, and the games, which read as this
    war's schema, are still checked (and good)."""
    from pipeline.jobs.validate import Report, check_files

    root = copy(classic, tmp_path)
    rel, _ = files_of(root, CLASSIC_GAME)
    table = pq.read_table(root / rel)
    plain = pa.table({name: (col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col)
                      for name, col in zip(table.column_names, table.columns)})
    pq.write_table(plain, root / rel, compression="snappy")
    report = validate(root)
    messages = [p.message for p in report.problems if p.file == rel]
    assert any("checksum differs" in m for m in messages)
    assert any(f"key-value metadata has no war.schema_version (expected {SCHEMA_VERSION})" in m for m in messages)
    assert any("compressed with snappy, expected zstd" in m for m in messages)
    assert any(m.endswith("column variant has type string, expected dictionary<values=string, "
                          "indices=int32, ordered=0>") for m in messages)
    assert any("column game_id is nullable, expected not nullable" in m for m in messages)
    assert not any("cannot be checked" in p.message for p in report.problems)
    assert report.games_checked == report.good == CLASSIC_GAMES and report.bad == 0
    assert check_files(Dataset.open(root), Report()) == set()  # readable: nothing left out


def test_a_file_whose_rows_do_not_fit_the_schema_names_the_column(classic, tmp_path):
    root = copy(classic, tmp_path)
    rel, _ = files_of(root, CLASSIC_GAME)
    table = pq.read_table(root / rel).drop_columns(["battles"])
    pq.write_table(table, root / rel, compression="zstd")
    report = validate(root)
    messages = [p.message for p in report.problems if p.file == rel]
    assert any("column battles is missing" in m for m in messages)
    assert any("rows cannot be read as this war's schema" in m for m in messages)
    assert report.bad == 50 and report.good == CLASSIC_GAMES - 50


def test_an_empty_dataset_is_a_problem(classic, tmp_path):
    root = copy(classic, tmp_path)
    manifest = json.loads((root / MANIFEST).read_text())
    (root / MANIFEST).write_text(json.dumps({**manifest, "rule_sets": [], "files": []}))
    shutil.rmtree(root / "games")
    shutil.rmtree(root / "events")
    report = validate(root)
    assert not report.ok and [p.message for p in report.problems] == ["the dataset holds no games"]


def _interrupted_append(root: Path) -> None:
    """The state an append killed after its first shard leaves: the old manifest, the journal,
    one new shard's files."""
    import pipeline.jobs.generate as jobs

    real = jobs.run_shard
    done = []

    def once(shard, tick=None):
        if done:
            raise KeyboardInterrupt
        done.append(shard.part)
        return real(shard, tick)

    try:
        jobs.run_shard = once
        with pytest.raises(KeyboardInterrupt):
            generate(root, [Plan(build_rules("jokers", {"pickup": "table_order"}), 100)], append=True,
                     shard_size=50)
    finally:
        jobs.run_shard = real


def test_an_interrupted_append_is_reported_with_the_command_that_finishes_it(classic, tmp_path):
    root = copy(classic, tmp_path)
    _interrupted_append(root)
    report = validate(root)
    (problem,) = report.problems
    assert problem.message.startswith(
        f"an append to this dataset was interrupted; finish it with: war generate -v jokers "
        f"--set pickup=table_order --games 100 --shard-size 50 --out {root} --append --resume")
    assert "of its files are not in the manifest yet" in problem.message
    assert report.good == CLASSIC_GAMES
    import shlex

    command = shlex.split(problem.message.split("finish it with: ", 1)[1].split(" (")[0])
    result = CliRunner().invoke(app, command[1:] + ["-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert validate(root).good == CLASSIC_GAMES + 100


def test_an_append_in_progress_is_reported_as_that(classic, tmp_path):
    import os
    import socket

    root = copy(classic, tmp_path)
    _interrupted_append(root)
    (root / WORK_DIR / "lock").write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}))
    (problem,) = validate(root).problems
    assert problem.message.startswith(f"an append to this dataset is in progress (pid {os.getpid()} on ")


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


def test_an_events_file_whose_data_cannot_be_decoded_is_named(classic, tmp_path):
    """An events file whose footer reads but whose data pages do not decode (bytes damaged in
    the middle, the manifest's checksum updated to match): the problem names that file, not the
    games file beside it, and its games are all bad."""
    import hashlib

    root = copy(classic, tmp_path)
    games_rel, events_rel = files_of(root, CLASSIC_GAME)
    damaged = bytearray((root / events_rel).read_bytes())
    for i in range(200, 2200):
        damaged[i] = (damaged[i] * 7 + 3) & 0xFF
    (root / events_rel).write_bytes(bytes(damaged))
    edit_manifest_file(root, events_rel, sha256=hashlib.sha256(damaged).hexdigest())
    report = validate(root)
    problems = [p for p in report.problems if p.game_id is None]
    assert [p.file for p in problems] == [events_rel], problems
    assert "cannot read" in problems[0].message
    entry = next(f for f in Dataset.open(root).manifest.files if f.path == events_rel)
    assert report.bad == entry.games
