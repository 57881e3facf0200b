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
from ..engines.game import chance_in_games
from ..errors import DatasetError, DealError, Interrupted, RulesError, brief, interrupted, storage_error
from ..model.deal import check_deal, deal_deck, deal_lines, dealt_deck, deck_of, pile_sizes
from ..model.inputs import loads_json, not_regular
from ..model.rng import SplitMix64
from ..model.schema import Manifest, RuleSet
from ..storage.files import atomic_write_bytes
from ..storage.location import is_remote, location
from .generate import Plan, check_seed, generate
from .parallel import check_workers, dask_client, run_tasks, run_tasks_dask
from .place import check_new_output
from .request import rules_of
from .searcher import (
    GOALS, LEAST_POOL, MEASURES, Record, SearcherState, Task, codes_of, misplayed, fast_search, played_again,
    run_task, records_of, sorted_ranks,
)

__all__ = ["GOALS", "MEASURES", "Record", "Found", "StartDeal", "check_search", "check_state", "read_start",
           "search", "search_lock", "state_path", "check_records_out", "write_records"]

EPOCH_SECONDS = 10.0  # the longest a search runs between two saves of its state
MAX_SEARCHERS = 100_000  # each is a state held in memory and saved with the search
MAX_KEEP = 1_000_000  # the records become a dataset's games
STATE_VERSION = 1
STATE_KEYS = ("war_search", "rules", "goal", "measure", "seed", "searchers", "sessions", "wall_seconds", "states")
# Kept since a records line names the session that found its deal; a save without it (an older
# war's) is read as if its first session found every deal it holds, as that war said.
FOUND_IN = "found_in"  # per searcher, per pool slot: the index in `sessions` of the one that found its deal


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
    found_in: list[int] = field(default_factory=list)  # each record's session, an index in `sessions`

    def found_by(self, record: Record) -> str:
        """The command of the session that found `record` (one of `records`): a search resumed
        with other arguments (`--seconds 6` after `--rounds 4000`) found its later deals with
        those, not with the first session's."""
        at = self.records.index(record)
        if at < len(self.found_in) and self.found_in[at] < len(self.sessions):
            return self.sessions[self.found_in[at]]
        return self.sessions[0] if self.sessions else ""


def check_search(rules: RuleSet, goal: str = "longest", rounds: int | None = 20, seconds: float | None = None,
                 searchers: int = 2, keep: int = 10, workers: int = 1, scheduler: str | None = None,
                 measure: str = "battles", seed: int = 0) -> None:
    """A search's arguments, checked before the engine is compiled or a deal played (a seed that
    the records' dataset cannot take was refused after the search, which may take hours)."""
    if goal not in GOALS:
        raise RulesError(f"`goal` is {' or '.join(GOALS)}, got {goal!r}", params=("goal",))
    if measure not in MEASURES:
        raise RulesError(f"`measure` is {' or '.join(MEASURES)}, got {measure!r}", params=("measure",))
    drawn = chance_in_games(rules)
    if goal == "cycle" and drawn is not None:
        why, advice = drawn
        raise RulesError(f"{why}, so no game cycles for certain (rules 2.6, ruling 7) and a search for one would "
                         f"never find it{advice}", params=("goal", "rules"))
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
           overwrite: bool = False, command: str | None = None,
           start: str | Path | list["StartDeal"] | None = None) -> Found:
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

    `start` (a deals or records file, read_start, or what it read) puts known deals in every
    searcher's pool, unpolished, before the first round: the search gives them a longer past
    (a record found before the polish changed, or polished again).

    The records' numbers are their deals played again as the games of master seed `seed`
    (searcher.records_of), what write_records with that seed writes."""
    check_search(rules, goal, rounds, seconds, searchers, keep, workers, scheduler, measure, seed)
    state = None if state is None else Path(state)
    check_state(state, resume, overwrite)
    if start is not None and not isinstance(start, list):
        start = read_start(start, rules)
    with search_lock(state):
        return _search(rules, goal, rounds, seconds, searchers, seed, keep, workers, scheduler, progress, measure,
                       state, resume, overwrite, command, start or [])


def _search(rules, goal, rounds, seconds, searchers, seed, keep, workers, scheduler, progress, measure, state,
            resume, overwrite, command, start) -> Found:
    identity = {"war_search": STATE_VERSION, "rules": rules.model_dump(mode="json"), "goal": goal,
                "measure": measure, "seed": seed, "searchers": searchers}
    saved = _load_state(state, identity, resume, overwrite)
    if saved is not None:
        states = _saved_states(state, saved, rules, goal, measure, searchers)
        sessions, wall = saved["sessions"], saved["wall_seconds"]
        known = _found_before(state, saved, states)
    else:
        seeds = SplitMix64(seed)
        size = len(sorted_ranks(rules))
        states = [SearcherState.fresh(i, seeds.next(), size, max(keep, LEAST_POOL)) for i in range(searchers)]
        sessions, wall, known = [], 0.0, {}
    if start:
        seed_pools(rules, states, start, goal, measure)
    sessions = sessions + [command or ""]
    this = len(sessions) - 1  # a deal the sessions before did not hold was found by this one
    if progress is not None and rounds is not None and saved is not None:
        progress(sum(min(s.rounds, rounds) for s in states))  # the rounds of the sessions before
    began = time.monotonic()
    deadline = None if seconds is None else began + seconds

    def save() -> None:
        if state is not None:
            data = {**identity, "sessions": sessions, "wall_seconds": wall + time.monotonic() - began,
                    "states": [s.to_json() for s in states],
                    FOUND_IN: [[known.get(tuple(ranks), this) for ranks in s.pool] for s in states]}
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
    records = records_of(rules, states, keep, goal, measure, seed)
    rank = deck_of(rules).rank  # a record's deck (card codes) as its pool held it (ranks)
    found = Found(records, sum(s.deals for s in states),
                  sum(s.taken_back for s in states), sum(s.rounds for s in states),
                  wall + time.monotonic() - began, sessions, sorted(g for s in states for g in s.grafts),
                  _engine_title(rules), [known.get(tuple(int(rank[c]) for c in r.deck), this) for r in records])
    if not found.records:
        raise RulesError(f"the search played {found.deals:,} deals and found "
                         f"{'none that cycles' if goal == 'cycle' else 'no game that ends'}; nothing written "
                         f"(more `rounds` or `seconds` search further)", params=("rounds", "seconds"))
    return found


@dataclass(frozen=True)
class StartDeal:
    """A known deal a search starts from (read_start): where it was read (`FILE line N`), its
    ranks as a searcher's pool holds them (card i to seat i mod n), its cards as the file deals
    them, and the battles, cards laid and outcome the line says its game has (a records line's;
    None for a deals file's)."""

    where: str
    ranks: tuple[int, ...]
    codes: tuple[int, ...]
    stated: tuple[int, int, str] | None


def read_start(path: str | Path, rules: RuleSet) -> list[StartDeal]:
    """The deals of a deals file (`war generate --deals`: {"piles": ..., "set_aside": ...} a line)
    or of a records file (data/records.jsonl) that a search of `rules` starts from. A records
    file holds every deck's: its lines of other rule sets are passed over, but a file with
    none of this one's is refused, and so is a deals-file line that is not a deal of this deck,
    or not dealt as the rule set deals (the piles' sizes): a DealError naming the line."""
    by_rank = np.array(deck_of(rules).rank, np.int64)
    sizes = pile_sizes(rules)
    deals, other = [], None
    for where, data in deal_lines(path, "start file", " (a deals file's line or a records line)", ("start",)):
        if "rules" in data:
            try:
                same = isinstance(data["rules"], str) and (data["rules"] == rules.label
                                                           or rules_of(data["rules"]) == rules)
            except Exception:  # a rule set this war does not read is not this search's
                same = False
            if not same:
                other = other or (where, data["rules"])
                continue
        deal = check_deal(rules, data["piles"], data.get("set_aside"), where)
        if tuple(len(p) for p in deal.piles) + (len(deal.set_aside),) != sizes:
            said = ", ".join(str(len(p)) for p in deal.piles)
            raise DealError(f"{where}: its piles hold {said} cards, not the {', '.join(map(str, sizes[:-1]))} "
                            f"that {rules.label} deals: a search plays deals dealt as its rule set deals",
                            params=("start",))
        codes = dealt_deck(rules, deal.piles, deal.set_aside)
        stated = None
        if "rules" in data and all(k in data for k in ("battles", "cards_laid", "outcome")):
            stated = (data["battles"], data["cards_laid"], data["outcome"])
        deals.append(StartDeal(where, tuple(int(r) for r in by_rank[codes]), tuple(codes), stated))
    if not deals:
        if other is not None:
            said = other[1] if isinstance(other[1], str) else brief(other[1])
            raise DealError(f"{other[0]}: a deal of {said}, not of this search's {rules.label}; "
                            f"start file {str(path)!r} holds none of its rule set", params=("start",))
        raise DealError(f"start file {str(path)!r} holds no deal", params=("start",))
    return deals


def seed_pools(rules: RuleSet, states: list[SearcherState], start: list[StartDeal], goal: str,
               measure: str) -> None:
    """Put the start deals in every searcher's pool, unpolished, each in place of the pool's
    least (a deal already there by its ranks is marked unpolished, to be polished again). Each
    is played again first: its game must be the one its line lists, the same dealt as the pool
    deals its ranks (each rank's cards in code order), and one the search keeps (a game that
    ends, or one that cycles); else a DealError naming the line, and nothing is changed."""
    from ..engines.compiled.layout import OUTCOMES
    from ..engines.compiled.search_pool import EMPTY, ROW_SCORE

    held = min(len(s.rows) for s in states)
    if len(start) > held:
        raise DealError(f"{start[0].where.split(' line ')[0]} holds {len(start):,} deals of this rule set; a "
                        f"searcher's pool holds {held:,} (--keep)", params=("start", "keep"))
    rows = played_again(rules, codes_of(rules, [d.ranks for d in start]), goal, measure)
    own = played_again(rules, np.array([d.codes for d in start], np.int64), goal, measure)
    for deal, row, mine in zip(start, rows, own):
        said = f"{mine[1]:,} battles, {mine[2]:,} cards laid ({OUTCOMES[mine[3]]})"
        if deal.stated is not None and (int(mine[1]), int(mine[2]), OUTCOMES[mine[3]]) != deal.stated:
            b, c, o = deal.stated
            raise DealError(f"{deal.where}: its deal plays {said}, not the {brief(b)}, {brief(c)} ({brief(o)}) "
                            f"it lists", params=("start",))
        if row.tolist() != mine.tolist():
            raise DealError(f"{deal.where}: its deal plays {said}, but its ranks dealt each rank's cards in code "
                            f"order (how a search holds a deal) play another game", params=("start",))
        if row[ROW_SCORE] == EMPTY:
            wanted = "cycles" if goal == "cycle" else "ends"
            raise DealError(f"{deal.where}: its game ({said}) is not one that {wanted}, which this search keeps",
                            params=("start",))
    for state in states:
        seeded: set[int] = set()
        for deal, row in zip(start, rows):
            ranks = list(deal.ranks)
            at = next((i for i, r in enumerate(state.pool) if r == ranks and state.rows[i][ROW_SCORE] != EMPTY),
                      None)
            if at is None:
                at = min((i for i in range(len(state.rows)) if i not in seeded), key=lambda i: state.rows[i][ROW_SCORE])
            state.pool[at], state.rows[at], state.polished[at] = ranks, row.tolist(), False
            seeded.add(at)


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
    unknown = [str(k) for k in saved if k not in STATE_KEYS and k != FOUND_IN]
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


def _found_before(path: Path, saved: dict, states: list[SearcherState]) -> dict[tuple, int]:
    """The session (an index in the save's `sessions`) that found each deal the saved pools hold,
    by its ranks: the save's FOUND_IN, checked to be a session for every pool slot; without it (an
    older war's save) the first session, as that war's records lines said."""
    if FOUND_IN not in saved:
        return {tuple(ranks): 0 for s in states for ranks in s.pool}
    found, sessions = saved[FOUND_IN], len(saved["sessions"])
    if not isinstance(found, list) or len(found) != len(states) or not all(
            isinstance(slots, list) and len(slots) == len(s.pool)
            and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < sessions for i in slots)
            for slots, s in zip(found, states)):
        _damaged(path, f"its {FOUND_IN} is not, for each searcher's deal, one of its {sessions:,} sessions")
    known: dict[tuple, int] = {}
    for slots, s in zip(found, states):
        for ranks, i in zip(s.pool, slots):
            known[tuple(ranks)] = min(i, known.get(tuple(ranks), i))
    return known


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
