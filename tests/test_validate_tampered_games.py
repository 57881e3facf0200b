"""`war validate` against tampered games: a card changed in every kind of event that carries
cards (rules 1.3 and 1.4: every card in exactly one place), a collect or reshuffle in another
random order (rules 2.4 and Randomness: only regenerating the game from its seed can tell),
events dropped, duplicated or swapped, a games row that disagrees with its events or is missing,
a legal game of another seed written under the game's id, and event rows that no log encodes to.
Each test tampers with a copy of a dataset of tests/validatekit.py, with the manifest left stale
and fixed up, and checks that validation names the tampered game, only it, and the event where
there is one (README, Validation).
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pipeline.storage.dataset import Dataset
from pipeline.model.deal import shuffled_deal
from pipeline.engines.chance import RandomChance
from pipeline.engines.event import Recorder
from pipeline.engines.table.reference import play_table
from pipeline.engines.game import play_game
from pipeline.model.rng import Xoshiro256
from pipeline.log.tables import game_logs
from pipeline.jobs.validate import validate
from validatekit import (CLASSIC_GAME, CLASSIC_GAMES, POOLED_GAME, POOLED_GAMES, assert_caught, copy, edit_game,
                         files_of, finish, nth_of_kind, record_of, replace_game, rewrite)
from validatekit import classic_dataset, manifest_mode, pooled_dataset  # noqa: F401 (fixtures)


# --- the pooled dataset ---------------------------------------------------------------------

def test_clean_pooled_validates(pooled):
    """The pooled dataset is clean too, and holds the event kinds the card tampers need."""
    report = validate(pooled)
    assert report.ok, report.problems[:3]
    assert report.good == POOLED_GAMES
    logs = game_logs(pq.read_table(pooled / files_of(pooled, POOLED_GAME)[1]))
    kinds = {ev.kind for log in logs.values() for ev in log}
    assert {"reshuffle", "set_aside"} <= kinds

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

# --- 4. a valid game, but not the one its seed makes ------------------------------------------

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


# --- 5. rows that no log encodes to --------------------------------------------------------

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
