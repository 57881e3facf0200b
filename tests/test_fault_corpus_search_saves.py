"""The fault corpus, round four (issue 50): `war search`, its save beside --out and its records
file. The records a search prints and keeps are its deals played again, never the scores its save
says; a save damaged inside (its scores edited, a pool entry cut, a key unknown, a searcher
missing or numbered out of range, a generator state cut short, a value of the wrong type) is
refused in one line naming it; a search takes a lock, so that a second search into the same
--out is refused at its start; a records file that is a FIFO or a device, or a line whose numbers
are not numbers, is refused before the search; a reader that hangs up (`| head -1`) loses
neither the dataset nor the records file.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from faultkit import one_line, tree, war
from faultkit import procs  # noqa: F401  the fixture
from pipeline.jobs.query import run
from pipeline.jobs.records import read_records
from pipeline.jobs.validate import validate

pytest.importorskip("numba")

SMALL = ["--set", "ranks=4", "--set", "suits=2"]          # the won cards shuffled: a game draws from its seed
FIXED = [*SMALL, "--set", "pickup=winner_first"]          # a game is a function of its deal
SEARCH = ["search", *FIXED, "--searchers", "2", "--keep", "3", "-q"]


def games(root: Path) -> list[tuple[int, int, str]]:
    table = run(root, sql="SELECT battles, cards_laid, outcome FROM games ORDER BY game_id")
    return list(zip(*(table.column(i).to_pylist() for i in range(3))))


def printed(out: str) -> list[tuple[int, int]]:
    """The battles and cards laid of each record `war search` printed."""
    rows = [line.split() for line in out.splitlines() if line[:6].strip().isdigit()]
    return [(int(r[1].replace(",", "")), int(r[2].replace(",", ""))) for r in rows]


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """A finished search of one round (its dataset `r`, its save `r.search.json`), run once."""
    from pipeline.cli import main

    folder = tmp_path_factory.mktemp("saved")
    with pytest.raises(SystemExit) as done:
        main([*SEARCH, "--rounds", "1", "--out", str(folder / "r")])
    assert done.value.code == 0
    assert (folder / "r.search.json").is_file()
    return folder


@pytest.fixture
def copy(saved, tmp_path) -> Path:
    shutil.copytree(saved, tmp_path, dirs_exist_ok=True)
    return tmp_path


def edit_save(folder: Path, edit) -> None:
    path = folder / "r.search.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def best_row(state: dict) -> int:
    return max(range(len(state["rows"])), key=lambda i: state["rows"][i][0])


def resumed_is_refused(folder: Path, monkeypatch, capsys, *said: str) -> str:
    """Resume the damaged save with a records file: refused in one line naming the save (and
    `said`), the dataset and the records file as they were."""
    before = tree(folder)
    records = folder / "records.jsonl"
    code, out, err = war(monkeypatch, capsys, *SEARCH, "--rounds", "2", "--out", folder / "r", "--resume",
                         "--records", records)
    line = one_line(code, out, err, 2, "r.search.json", *said)
    assert out == "" and tree(folder) == before and not records.exists()
    return line


# ---------------------------------------------------------------- 1: the save's scores are not the record


def test_edited_scores_in_a_save_are_refused_not_printed_or_kept(copy, monkeypatch, capsys):
    """Issue 50, 1: a save's best score raised by 50 battles was printed and kept in --records,
    while the dataset played the deal to its own length."""
    def raise_best(data):
        state = data["states"][0]
        row = state["rows"][best_row(state)]
        row[0] += 50
        row[1] += 50

    edit_save(copy, raise_best)
    resumed_is_refused(copy, monkeypatch, capsys, "damaged")


@pytest.mark.parametrize("column", [2, 3, 4])  # cards laid, outcome, winner
def test_any_number_of_a_saved_deal_that_is_not_its_game_is_refused(column, copy, monkeypatch, capsys):
    def edit(data):
        state = data["states"][1]
        row = state["rows"][best_row(state)]
        row[column] = 1 - row[column] if column > 2 else row[column] + 1

    edit_save(copy, edit)
    resumed_is_refused(copy, monkeypatch, capsys, "damaged")


def test_a_saved_score_alone_edited_is_said_as_the_score(copy, monkeypatch, capsys):
    """Only the score changed: the refusal said the game's numbers twice, alike ('plays 229
    battles, 500 cards laid (win), not the 229, 500 (win) saved'), not which number was wrong."""
    def edit(data):
        state = data["states"][0]
        state["rows"][best_row(state)][0] += 7

    edit_save(copy, edit)
    line = resumed_is_refused(copy, monkeypatch, capsys, "damaged")
    assert "scores" in line and "saved with it" in line and "not the" in line, line


def test_a_saved_deal_swapped_for_another_is_refused(copy, monkeypatch, capsys):
    """Two deals of a pool swapped, each an order of the deck's ranks: the numbers kept beside
    each are the other's game's."""
    def swap(data):
        state = data["states"][0]
        i = best_row(state)
        j = next(j for j, row in enumerate(state["rows"]) if row[0] >= 0 and row[1:3] != state["rows"][i][1:3])
        state["pool"][i], state["pool"][j] = state["pool"][j], state["pool"][i]

    edit_save(copy, swap)
    resumed_is_refused(copy, monkeypatch, capsys, "damaged")


def test_the_records_printed_and_written_are_the_deals_played_again(tmp_path, monkeypatch, capsys):
    """With the won cards shuffled, the search's scores were its own draw of each game's
    randomness: it printed (and kept) 36 battles for a deal its dataset played in 12. Now what
    it prints is what the dataset plays; such a search keeps no records line (a line is a deal,
    played again as game 0 of seed 0: it kept game 0 of seed 5), refused before it searches."""
    code, out, err = war(monkeypatch, capsys, "search", *SMALL, "--rounds", "1", "--searchers", "2", "--keep", "3",
                         "--seed", "5", "--out", tmp_path / "r", "-q")
    assert code == 0, err
    played = games(tmp_path / "r")
    assert printed(out) == [(b, c) for b, c, _ in played]
    assert validate(tmp_path / "r").ok
    records = tmp_path / "records.jsonl"
    one_line(*war(monkeypatch, capsys, "search", *SMALL, "--rounds", "1", "--seed", "5",
                  "--out", tmp_path / "s", "--records", records, "-q"), 2, "pickup=shuffled draws", "records line")
    assert not records.exists() and not (tmp_path / "s").exists()


def test_a_kept_record_replays_as_its_line_says(tmp_path, monkeypatch, capsys):
    """Under a fixed pickup the search's best deal is kept (any seed): the line, played again as
    a deals file's game 0 of seed 0, plays what it lists and what the search's dataset played."""
    records = tmp_path / "records.jsonl"
    code, out, err = war(monkeypatch, capsys, *SEARCH, "--rounds", "1", "--seed", "5", "--out", tmp_path / "r",
                         "--records", records)
    assert code == 0, err
    (best,) = read_records(records)
    assert (best["battles"], best["cards_laid"], best["outcome"]) == games(tmp_path / "r")[0]
    code, out, err = war(monkeypatch, capsys, "generate", "--deals", records, *FIXED, "--out", tmp_path / "g", "-q")
    assert code == 0, err
    assert games(tmp_path / "g") == [(best["battles"], best["cards_laid"], best["outcome"])]


# ---------------------------------------------------------------- 10: a save damaged inside


def cut_pool_entry(data):
    state = data["states"][0]
    i = best_row(state)
    state["pool"][i] = state["pool"][i][:-1]


def number_out_of_range(data):
    data["states"][1]["number"] = 7


def number_twice(data):
    data["states"][1]["number"] = 0


def state_removed(data):
    data["states"].pop()


def short_generator(data):
    data["states"][0]["rng"] = data["states"][0]["rng"][:3]


def generator_of_zeros(data):
    data["states"][0]["rng"] = [0, 0, 0, 0]


def unknown_state_key(data):
    data["states"][0]["extra"] = 1


def unknown_key(data):
    data["extra"] = 1


def missing_key(data):
    del data["states"][1]["polished"]


def rounds_as_text(data):
    data["states"][0]["rounds"] = "1"


def rows_as_text(data):
    data["states"][0]["rows"] = "rows"


def row_too_short(data):
    data["states"][0]["rows"][0] = [5]


def huge_number(data):
    data["states"][0]["rows"][0][1] = 2**70


def polished_short(data):
    data["states"][0]["polished"].pop()


def wall_seconds_as_text(data):
    data["wall_seconds"] = "soon"


def sessions_not_a_list(data):
    data["sessions"] = 5


def state_not_an_object(data):
    data["states"][0] = [1, 2]


def grafts_of_text(data):
    data["states"][0]["grafts"] = ["x"]


def rank_out_of_deck(data):
    state = data["states"][0]
    state["pool"][best_row(state)][0] = 200


@pytest.mark.parametrize("edit", [
    cut_pool_entry, number_out_of_range, number_twice, state_removed, short_generator, generator_of_zeros,
    unknown_state_key, unknown_key, missing_key, rounds_as_text, rows_as_text, row_too_short, huge_number,
    polished_short, wall_seconds_as_text, sessions_not_a_list, state_not_an_object, grafts_of_text,
    rank_out_of_deck,
], ids=lambda f: f.__name__)
def test_a_save_damaged_inside_is_refused_in_one_line(edit, copy, monkeypatch, capsys):
    """Issue 50, 10: each was an internal error (KeyError, IndexError, TypeError...) or was
    taken silently (a searcher's state removed, a generator state cut short)."""
    edit_save(copy, edit)
    resumed_is_refused(copy, monkeypatch, capsys, "damaged")


def test_an_undamaged_save_still_resumes(copy, monkeypatch, capsys):
    code, out, err = war(monkeypatch, capsys, *SEARCH, "--rounds", "2", "--out", copy / "r", "--resume")
    assert code == 0, err
    assert printed(out)[:3] == [(b, c) for b, c, _ in games(copy / "r")]


# ---------------------------------------------------------------- 7: one search at a time into one --out


def test_a_second_search_into_the_same_out_is_refused_at_its_start(tmp_path, procs, monkeypatch, capsys):
    """Issue 50, 7: both ran; the second failed at the end, its save in place of the first's,
    and resuming replaced the first search's dataset. Now the second is refused before it
    searches, and a lock left by a search killed with -9 does not stop the next."""
    out = tmp_path / "r"
    first = procs.war("search", *FIXED, "--rounds", "1000000", "--out", out, "-q")
    lock, save = tmp_path / "r.search.lock", tmp_path / "r.search.json"
    deadline = time.time() + 120
    while time.time() < deadline and first.poll() is None and not lock.exists() and not save.exists():
        time.sleep(0.05)
    assert first.poll() is None, first.communicate()
    for more in (["--overwrite"], ["--resume"]):
        held = lock.read_bytes() if lock.exists() else None
        code, out_, err = war(monkeypatch, capsys, "search", *FIXED, "--rounds", "1", "--out", out, *more, "-q")
        if more == ["--resume"] and not save.exists():
            one_line(code, out_, err, 2)  # nothing saved yet: refused either way
        else:
            one_line(code, out_, err, 2, "running", str(first.pid))
        assert not out.exists() and lock.read_bytes() == held and str(first.pid).encode() in held
    assert first.poll() is None
    first.kill()
    first.communicate()
    code, out_, err = war(monkeypatch, capsys, "search", *FIXED, "--rounds", "1", "--out", out, "--overwrite", "-q")
    assert code == 0, err
    assert validate(out).ok and not lock.exists()


# ---------------------------------------------------------------- 11, 12: the records file


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_records_file_that_is_a_fifo_or_a_device_is_refused_before_the_search(kind, tmp_path, procs):
    """Issue 50, 11: a FIFO was waited on for ever; /dev/null was read as empty and "kept in"."""
    if kind == "fifo":
        records = tmp_path / "records.fifo"
        os.mkfifo(records)
    else:
        records = Path(os.devnull)
    proc = procs.war("search", *FIXED, "--rounds", "1", "--out", tmp_path / "r", "--records", records, "-q")
    out, err = proc.communicate(timeout=60)
    one_line(proc.returncode, out, err, 2, str(records), "fifo" if kind == "fifo" else "device")
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.search.json").exists()
    assert kind != "fifo" or Path(records).is_fifo()


def record(**change) -> dict:
    line = {"rules": "classic pickup=winner_first ranks=4 suits=2", "record": "battles", "battles": 5,
            "cards_laid": 10, "outcome": "win", "winner": 0, "piles": [["1♣"], ["2♣"]], "set_aside": []}
    return {**line, **change}


@pytest.mark.parametrize("change, said", [
    ({"battles": "many"}, "battles"),
    ({"cards_laid": [1]}, "cards_laid"),
    ({"battles": True}, "battles"),
    ({"battles": -3}, "battles"),
    ({"rules": 5}, "rules"),
    ({"outcome": 1}, "outcome"),
])
def test_a_records_line_whose_numbers_are_not_numbers_is_refused_before_the_search(change, said, tmp_path,
                                                                                    monkeypatch, capsys):
    """Issue 50, 12: `"battles": "many"` passed the check, the search ran to its end, then
    failed with TypeError."""
    records = tmp_path / "records.jsonl"
    text = json.dumps(record(rules="classic ranks=6 suits=1")) + "\n" + json.dumps(record(**change)) + "\n"
    records.write_text(text, encoding="utf-8")
    code, out, err = war(monkeypatch, capsys, "search", *FIXED, "--rounds", "1", "--out", tmp_path / "r",
                         "--records", records, "-q")
    one_line(code, out, err, 2, "records.jsonl line 2", said)
    assert not (tmp_path / "r").exists() and records.read_text(encoding="utf-8") == text


# ---------------------------------------------------------------- 17: a reader that hangs up


def test_a_reader_that_hangs_up_loses_neither_the_dataset_nor_the_records(tmp_path, procs):
    """Issue 50, 17: `war search ... --records F | head -1` exited 0 and never wrote F."""
    records = tmp_path / "records.jsonl"
    proc = procs.war("search", *FIXED, "--rounds", "1", "--keep", "3", "--out", tmp_path / "r",
                     "--records", records, "-q")
    first = proc.stdout.readline()
    assert first.startswith("Longest games that end"), (first, proc.communicate())
    proc.stdout.close()  # as `head -1` does
    proc.wait(timeout=120)
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "error" not in err, err
    assert validate(tmp_path / "r").ok
    best = read_records(records)[0]
    assert (best["battles"], best["cards_laid"], best["outcome"]) == games(tmp_path / "r")[0]
