"""Records by search: deals of a deck too big to play whole that give the longest game that ends
(by battles or by cards laid), or a game that cycles, on the compiled engine.

Searchers (jobs.searcher) each play rounds of random deals into a pool of their best and, on a
fast path that searches (Family.fast: in open play, engines.table.unplay), give the pool's best
deals a longer past: the search that measured best (docs/decisions.md, "Records by search"). They run on every worker, or on a Dask
cluster, in epochs of at most EPOCH_SECONDS, after each of which the whole search is saved to
its state file: a search stopped by Ctrl-C or a kill continues from there (`resume`), losing at
most the epoch it was in. With a number of `rounds` the records are a pure function of the
search's arguments (the seed, the searchers, the rounds), whatever the workers and however
often it was stopped; `seconds` is the wall-clock budget of the whole search.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engines.choice import compiled_engine
from ..errors import DatasetError, Interrupted, RulesError, brief, interrupted, storage_error
from ..model.deal import check_deal, deal_deck
from ..model.inputs import loads_json, not_regular
from ..model.pickups import PICKUP_ORDERS, PICKUPS_BY_NAME
from ..model.rng import SplitMix64
from ..model.schema import Manifest, RuleSet
from ..storage.files import atomic_write_bytes
from ..storage.location import is_remote, location
from .generate import Plan, check_seed, generate
from .parallel import check_workers, dask_client, run_tasks, run_tasks_dask
from .place import check_new_output
from .searcher import (
    GOALS, LEAST_POOL, MEASURES, Record, SearcherState, Task, misplayed, fast_search, run_task, records_of,
    sorted_ranks,
)

__all__ = ["GOALS", "MEASURES", "Record", "Found", "check_search", "check_state", "search", "search_lock",
           "state_path", "check_records_out", "write_records"]

EPOCH_SECONDS = 10.0  # the longest a search runs between two saves of its state
MAX_SEARCHERS = 100_000  # each is a state held in memory and saved with the search
MAX_KEEP = 1_000_000  # the records become a dataset's games
STATE_VERSION = 1
STATE_KEYS = ("war_search", "rules", "goal", "measure", "seed", "searchers", "sessions", "wall_seconds", "states")


@dataclass
class Found:
    """What a search found: its best `records`, best first, and what it took in all its sessions:
    the deals played, the positions taken back, the rounds, the wall-clock seconds, and what
    each graft of a longer past added to its deal's score."""

    records: list[Record]
    deals: int
    taken_back: int
    rounds: int
    wall_seconds: float
    sessions: list[str]
    grafts: list[int] = field(default_factory=list)
    engine: str = "open duel"


def check_search(rules: RuleSet, goal: str = "longest", rounds: int | None = 20, seconds: float | None = None,
                 searchers: int = 2, keep: int = 10, workers: int = 1, scheduler: str | None = None,
                 measure: str = "battles", seed: int = 0) -> None:
    """A search's arguments, checked before the engine is compiled or a deal played (a seed that
    the records' dataset cannot take was refused after the search, which may take hours)."""
    if goal not in GOALS:
        raise RulesError(f"`goal` is {' or '.join(GOALS)}, got {goal!r}", params=("goal",))
    if measure not in MEASURES:
        raise RulesError(f"`measure` is {' or '.join(MEASURES)}, got {measure!r}", params=("measure",))
    pickup = PICKUPS_BY_NAME.get(getattr(rules, "pickup", None))
    if goal == "cycle" and pickup is not None and not pickup.fixed:
        raise RulesError(f"pickup={pickup.name} draws the order won cards join a pile, so no game cycles for "
                         f"certain (rules 2.6, ruling 7) and a search for one would never find it: a cycle needs a "
                         f"fixed pickup ({', '.join(p.name for p in PICKUP_ORDERS if p.fixed)})",
                         params=("goal", "rules"))
    if compiled_engine(rules) is None:
        raise RulesError(f"rule set {rules.variant} {rules.rules_id}: the compiled engine does not play it, "
                         f"and a search needs it", params=("rules",))
    if rounds is None and seconds is None:
        raise RulesError("give `rounds` or `seconds`, or both", params=("rounds", "seconds"))
    for name, value, low in (("searchers", searchers, 1), ("keep", keep, 1), ("rounds", rounds, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise RulesError(f"`{name}` must be an integer of at least {low}, got {value!r}", params=(name,))
    for name, value, high in (("searchers", searchers, MAX_SEARCHERS), ("keep", keep, MAX_KEEP)):
        if value > high:
            raise RulesError(f"`{name}` must be at most {high:,}, got {value:,}", params=(name,))
    check_seed(seed)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 < seconds < float("inf")):
        raise RulesError(f"`seconds` must be a number of seconds above 0, got {seconds!r}", params=("seconds",))
    if scheduler is None:
        check_workers(workers)


def state_path(out: str | Path) -> Path | None:
    """Where a search writing its records to `out` keeps its state: beside it, `OUT.search.json`
    (None for an `out` on remote storage: a search is saved on the machine that runs it)."""
    where = location(out)
    if is_remote(where):
        return None
    return where.with_name(where.name + ".search.json")


def search(rules: RuleSet, goal: str = "longest", rounds: int | None = 20, seconds: float | None = None,
           searchers: int = 2, seed: int = 0, keep: int = 10, workers: int = 1, scheduler: str | None = None,
           progress=None, measure: str = "battles", state: str | Path | None = None, resume: bool = False,
           overwrite: bool = False, command: str | None = None) -> Found:
    """The best `keep` deals `searchers` searchers find (distinct by their ranks), best first: the
    longest games that end (`goal` longest, by `measure` battles or cards laid), or deals that
    cycle (`goal` cycle). Each searcher plays `rounds` rounds in all, and the search stops
    sooner when `seconds` of wall clock have passed; searchers are seeded from `seed` and their
    number, and run on `workers` processes or on the Dask cluster at `scheduler`.

    With a `state` file the search is saved there after every epoch; `resume` continues the
    search saved there (the same rule set, goal, measure, seed and searchers), to `rounds` in
    all or for `seconds` more. A state already there is refused without `resume` or
    `overwrite`; so is a save damaged inside (DatasetError naming it), one whose scores are not
    its deals' games played again among them. A search with a `state` holds its lock
    (search_lock) from start to end: another search saved there is refused at its start.
    `command` is the command line that ran it, kept with the state.

    The records' numbers are their deals played again as the games of master seed `seed`
    (searcher.records_of), what write_records with that seed writes."""
    check_search(rules, goal, rounds, seconds, searchers, keep, workers, scheduler, measure, seed)
    state = None if state is None else Path(state)
    check_state(state, resume, overwrite)
    with search_lock(state):
        return _search(rules, goal, rounds, seconds, searchers, seed, keep, workers, scheduler, progress, measure,
                       state, resume, overwrite, command)


def _search(rules, goal, rounds, seconds, searchers, seed, keep, workers, scheduler, progress, measure, state,
            resume, overwrite, command) -> Found:
    identity = {"war_search": STATE_VERSION, "rules": rules.model_dump(mode="json"), "goal": goal,
                "measure": measure, "seed": seed, "searchers": searchers}
    saved = _load_state(state, identity, resume, overwrite)
    if saved is not None:
        states = _saved_states(state, saved, rules, goal, measure, searchers)
        sessions, wall = saved["sessions"], saved["wall_seconds"]
    else:
        seeds = SplitMix64(seed)
        size = len(sorted_ranks(rules))
        states = [SearcherState.fresh(i, seeds.next(), size, max(keep, LEAST_POOL)) for i in range(searchers)]
        sessions, wall = [], 0.0
    sessions = sessions + [command or ""]
    if progress is not None and rounds is not None and saved is not None:
        progress(sum(min(s.rounds, rounds) for s in states))  # the rounds of the sessions before
    began = time.monotonic()
    deadline = None if seconds is None else began + seconds

    def save() -> None:
        if state is not None:
            data = {**identity, "sessions": sessions, "wall_seconds": wall + time.monotonic() - began,
                    "states": [s.to_json() for s in states]}
            atomic_write_bytes(state, (json.dumps(data, separators=(",", ":")) + "\n").encode())

    try:
        with dask_client(scheduler) as client:
            capacity = workers if client is None else max(sum(client.nthreads().values()), 1)
            while True:
                todo = [s for s in states if rounds is None or s.rounds < rounds]
                now = time.monotonic()
                if not todo or (deadline is not None and now >= deadline):
                    break
                span = EPOCH_SECONDS if deadline is None else min(EPOCH_SECONDS, deadline - now)
                waves = math.ceil(len(todo) / capacity)
                tasks = [Task(rules.model_dump_json(), goal, measure, s.to_json(), rounds, span / waves) for s in todo]
                if client is not None:
                    done = run_tasks_dask(run_task, tasks, client, None)
                else:
                    done = run_tasks(run_task, tasks, workers, progress, warm=lambda: warm_search(rules))
                for data in done:
                    states[data["number"]] = SearcherState.from_json(data)
                save()
    except BaseException as err:
        if interrupted(err) and state is not None and state.exists():
            played = sum(s.deals for s in states)
            raise Interrupted(f"interrupted; the search ({played:,} deals so far) is saved in {str(state)!r}: "
                              f"continue it with the same command and --resume") from None
        raise
    save()
    found = Found(records_of(rules, states, keep, goal, measure, seed), sum(s.deals for s in states),
                  sum(s.taken_back for s in states), sum(s.rounds for s in states),
                  wall + time.monotonic() - began, sessions, sorted(g for s in states for g in s.grafts),
                  _engine_title(rules))
    if not found.records:
        raise RulesError(f"the search played {found.deals:,} deals and found "
                         f"{'none that cycles' if goal == 'cycle' else 'no game that ends'}; nothing written "
                         f"(more `rounds` or `seconds` search further)", params=("rounds", "seconds"))
    return found


def check_state(path: Path | None, resume: bool = False, overwrite: bool = False) -> None:
    """Refuse, before a search, to resume a search not saved at `path`, or to start one over a
    saved search without `overwrite`."""
    if path is None:
        if resume:
            raise RulesError("a search on remote storage is not saved, so it cannot be resumed", params=("resume",))
        return
    if not resume and path.exists() and not overwrite:
        raise RulesError(f"a search is saved in {str(path)!r}: continue it with `resume`, or start afresh "
                         f"with `overwrite`", params=("resume", "overwrite"))
    holder = _running(path)
    if holder is not None:
        raise DatasetError(f"a search saved in {str(path)!r} is running{holder}: it holds {str(lock_path(path))!r}; "
                           f"wait for it to end, or stop it", params=("out",))
    if resume and not path.is_file():
        raise RulesError(f"no search saved in {str(path)!r} to resume", params=("resume",))
    kind = not_regular(path)
    if kind is not None:
        raise DatasetError(f"the search save {str(path)!r} is {kind}, not a file", params=("out",))


def _load_state(path: Path | None, identity: dict, resume: bool, overwrite: bool) -> dict | None:
    """The saved search to continue (`resume`), checked to be this search; None for a new one."""
    check_state(path, resume, overwrite)
    if not resume:
        return None
    try:
        saved = loads_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise RulesError(f"cannot read the saved search {str(path)!r}: {err}", params=("resume",)) from None
    if not isinstance(saved, dict) or saved.get("war_search") != STATE_VERSION or "states" not in saved:
        raise RulesError(f"{str(path)!r} is not a search war saved", params=("resume",))
    missing = [k for k in STATE_KEYS if k not in saved]
    unknown = [str(k) for k in saved if k not in STATE_KEYS]
    if missing or unknown:
        _damaged(path, "; ".join(([f"no {', '.join(missing)}"] if missing else [])
                                 + ([f"unknown {brief(', '.join(unknown))}"] if unknown else [])))
    for name in ("rules", "goal", "measure", "seed", "searchers"):
        if saved.get(name) != identity[name]:
            raise RulesError(f"the search saved in {str(path)!r} has another {name} ({_brief(saved.get(name))}, "
                             f"not {_brief(identity[name])}): resume it with its own", params=(name,))
    return saved


def _brief(value) -> str:
    if isinstance(value, dict):
        try:
            return RuleSet.model_validate(value).label
        except ValueError:
            return "another rule set"
    return brief(value)


def _saved_states(path: Path, saved: dict, rules: RuleSet, goal: str, measure: str,
                  searchers: int) -> list[SearcherState]:
    """The searchers' states of a saved search (_load_state: this search's), each checked to be
    one a search makes, and their scores to be their deals' games played again; a save that is
    not is refused as damaged, naming what is wrong."""
    sessions, wall, states = saved["sessions"], saved["wall_seconds"], saved["states"]
    if not isinstance(sessions, list) or not sessions or not all(isinstance(x, str) for x in sessions):
        _damaged(path, "its sessions are not a list of command lines")
    if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not 0 <= wall < float("inf"):
        _damaged(path, f"its wall_seconds are {brief(wall)}, not a number of seconds")
    if not isinstance(states, list) or len(states) != searchers:
        _damaged(path, f"it holds {len(states) if isinstance(states, list) else 'no list of'} searchers' states, "
                       f"not {searchers:,}")
    deck = [int(r) for r in sorted_ranks(rules)]
    try:
        checked = [SearcherState.checked(data, i, deck, rules.players, MAX_KEEP) for i, data in enumerate(states)]
    except ValueError as err:
        _damaged(path, str(err))
    wrong = misplayed(rules, checked, goal, measure)
    if wrong is not None:
        _damaged(path, wrong)
    return checked


def _damaged(path: Path, what: str):
    raise DatasetError(f"the search saved in {str(path)!r} is damaged: {what}; start it afresh with `overwrite`",
                       params=("overwrite",))


# ---------------------------------------------------------------- one search at a time

_held: dict[str, list[int]] = {}  # lock file -> [its open descriptor, how many times this process took it]


def _forget_locks_in_child() -> None:
    """A forked worker closes its copy of its parent's lock files: the flock then ends with the
    parent (as storage.journal's)."""
    for fd, _ in _held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


os.register_at_fork(after_in_child=_forget_locks_in_child)


def lock_path(state: Path) -> Path:
    """The lock of the search saved at `state` (`OUT.search.json`): `OUT.search.lock` beside it."""
    name = state.name[:-len(".json")] if state.name.endswith(".json") else state.name
    return state.with_name(name + ".lock")


def _running(state: Path | None) -> str | None:
    """Whether another process holds the lock of the search saved at `state` (what it says of
    itself, " in process N", or ""); None when none does. Reads only: the lock is not taken."""
    if state is None or str(lock_path(state)) in _held:
        return None
    lock = lock_path(state)
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not_regular(lock) is not None:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(fd)
        except OSError:
            return None
        return None
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        said = os.pread(fd, 200, 0).decode("ascii", "replace").split()
    except OSError:
        return ""
    return f" in process {said[0]}" if said and said[0].isdigit() else ""


@contextmanager
def search_lock(state: str | Path | None):
    """Hold the lock of the search saved at `state` (lock_path) for the block: the flock of a
    file beside it, which ends with its process (a search killed with -9 leaves a file that the
    next takes over). Another process's search saved there is refused (DatasetError) at once,
    never waited for; this process may take it again inside the block. No lock for a search
    on remote storage (`state` None), which is not saved."""
    if state is None:
        yield
        return
    lock = lock_path(Path(state))
    key = str(lock)
    if key in _held:
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    fd = _take(Path(state), lock)
    _held[key] = [fd, 1]
    try:
        yield
    finally:
        del _held[key]
        try:
            lock.unlink(missing_ok=True)  # under the flock: a search waiting for it finds it gone, and looks again
        except OSError:
            pass
        os.close(fd)


def _take(state: Path, lock: Path) -> int:
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise storage_error(err, lock.parent) from None
    while True:
        kind = not_regular(lock)
        if kind is not None:
            raise DatasetError(f"the search lock {str(lock)!r} is {kind}, not a file", params=("out",))
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644)
        except OSError as err:
            raise storage_error(err, lock) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise DatasetError(f"a search saved in {str(state)!r} is running{holder}: it holds {str(lock)!r}; "
                               f"wait for it to end, or stop it", params=("out",)) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except OSError:
            same = False
        if not same:  # its holder ended and removed it between our open and our flock: again
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {os.uname().nodename}\n".encode(), 0)
        return fd


def warm_search(rules: RuleSet) -> None:
    """Load (or compile) what a searcher runs, before its workers are forked."""
    from ..engines.compiled.search_pool import shuffles

    deck = sorted_ranks(rules)
    state = SearcherState.fresh(0, 0, len(deck), 1)
    rng = np.array(state.rng, np.uint64)
    fast = fast_search(rules)
    if fast is None:
        shuffles(deck, rng, 1)
        return
    fast.warm_search(rules, deck, rng, np.array(state.rows, np.int64))


def _engine_title(rules: RuleSet) -> str:
    """What a search ran on: its fast path's name (the table family's: "open duel") or
    "compiled"."""
    fast = fast_search(rules)
    return getattr(fast, "TITLE", "fast path") if fast is not None else "compiled"


def check_records_out(out: str | Path, overwrite: bool = False) -> None:
    """Refuse, before a search, an `out` that write_records would refuse after it (a folder
    holding data without `overwrite`, a dataset's own files...): a search may run for hours."""
    check_new_output(location(out), overwrite)


def write_records(out: str | Path, rules: RuleSet, records: list[Record], seed: int = 0, overwrite: bool = False,
                  progress=None) -> Manifest:
    """The records as a dataset of explicit deals (game i plays record i), which replays and
    validates like any other dataset."""
    if not records:
        raise RulesError("the search found no deal to keep", params=("goal",))
    deals = [check_deal(rules, *piles_of(rules, record.deck), "a record") for record in records]
    return generate(out, [Plan(rules, len(deals), deals)], seed, overwrite=overwrite, progress=progress)


def piles_of(rules: RuleSet, deck) -> tuple[list[list[int]], list[int]]:
    """Each seat's pile (top first) and the cards set aside, of a deck order dealt as the rule
    set deals (docs/rules.md 1.4, model.deal.deal_deck: card i to seat i mod n under `deal =
    even`)."""
    piles, aside = deal_deck(rules, list(deck))
    return [list(p) for p in piles], list(aside)
