"""Validating what a dataset's manifest says it holds, before any file is read: each file listed
once, under the name the format gives it, for a rule set the manifest has; every rule set's games
0..n-1 in exactly one games file and (where the log is stored) exactly one events file of the
same range; its deals and seeds files where it has them, each game
one line. A manifest whose checksums were recomputed after a file was dropped, listed twice or
renamed still passes the file checks (validate_files); these say what is missing or extra.

Also the deals and seeds files' lines, read and checked against the rule set (read_deals,
read_seeds), which validation hands to the shards.
"""

from __future__ import annotations

import re
from collections import Counter

from ..errors import WarError
from ..model.deal import check_deal
from ..model.inputs import lines as split_lines
from ..model.inputs import loads_json
from ..model.schema import RuleSetEntry
from ..storage.dataset import MANIFEST, Dataset
from .validate_files import Problem

PART = re.compile(r"(games|events|counts|count_shards)/variant=([^/]+)/part-\d{5,}\.parquet")


def _span(first: int, count: int) -> str:
    return f"game {first}" if count == 1 else f"games {first}..{first + count - 1}"


def check_layout(ds: Dataset) -> tuple[list[Problem], set[str]]:
    """The manifest's problems of layout, each named (see the module's docstring), and the
    paths of the files that must not be read as a rule set's part (listed twice, of no rule
    set, or overlapping another): validation checks no game through them."""
    problems: list[Problem] = []
    skip: set[str] = set()
    counts = Counter(f.path for f in ds.manifest.files)
    for path, n in counts.items():
        if n > 1:
            problems.append(Problem(path, None, None, f"listed {n} times in the manifest"))
    ordinals = Counter(e.ordinal for e in ds.manifest.rule_sets)
    for ordinal, n in ordinals.items():
        if n > 1:
            problems.append(Problem(MANIFEST, None, None, f"rule set {ordinal} is listed {n} times"))
    entries = {e.ordinal: e for e in ds.manifest.rule_sets}
    outside = ds.outside_paths()
    seen: set[str] = set()
    by_set: dict[int, dict[str, list]] = {o: {"games": [], "events": [], "deals": [], "seeds": [], "counts": [],
                                              "count_shards": []} for o in entries}
    for f in ds.manifest.files:
        if f.path in seen:
            continue
        seen.add(f.path)
        entry = entries.get(f.rule_set)
        if entry is None:
            problems.append(Problem(f.path, None, None, f"a file of rule set {f.rule_set}, which the manifest "
                                                        f"does not have"))
            skip.add(f.path)
            continue
        wrong = _misnamed(f, entry) if f.path not in outside else None  # named as outside already
        if wrong:
            problems.append(Problem(f.path, None, None, wrong))
        by_set[f.rule_set][f.table].append(f)
    for ordinal, entry in entries.items():
        if entry.seed != ds.manifest.master_seed:
            problems.append(Problem(MANIFEST, None, None, f"rule set {ordinal} has seed {entry.seed}, not the "
                                                          f"master seed {ds.manifest.master_seed}"))
        files = by_set[ordinal]
        problems += _tiling(entry, "games", files["games"], skip)
        if entry.log == "events":
            problems += _tiling(entry, "events", files["events"], skip)
            games_spans = {(f.first_game, f.games) for f in files["games"]}
            for f in files["events"]:
                if f.path not in skip and (f.first_game, f.games) not in games_spans:
                    problems.append(Problem(f.path, None, None, f"its {_span(f.first_game, f.games)} are not "
                                                                f"the games of any one games file"))
        elif files["events"]:
            for f in files["events"]:
                problems.append(Problem(f.path, None, None, f"an events file of rule set {ordinal}, which stores "
                                                            f"the games table alone"))
                skip.add(f.path)
        for table in ("deals", "seeds"):
            problems += _companion(entry, table, files[table])
        problems += _counted(entry, files["counts"], files["count_shards"], skip)
    return problems, skip


def _counted(entry: RuleSetEntry, counts: list, shards: list, skip: set[str]) -> list[Problem]:
    """A counts rule set's counts file and shards file: one each, of one part number; none for
    a rule set that stores rows."""
    if entry.log != "counts":
        for f in counts + shards:
            skip.add(f.path)
        return [Problem(f.path, None, None, f"a {f.table} file of rule set {entry.ordinal}, which stores rows, "
                                            f"not counts") for f in counts + shards]
    problems = []
    for table, files in (("counts", counts), ("count_shards", shards)):
        if len(files) != 1:
            problems.append(Problem(MANIFEST, None, None, f"rule set {entry.ordinal} stores counts: one {table} "
                                                          f"file wanted, the manifest lists {len(files)}"))
            skip.update(f.path for f in files)
    if len(counts) == len(shards) == 1 and counts[0].path.rsplit("/", 1)[1] != shards[0].path.rsplit("/", 1)[1]:
        problems.append(Problem(shards[0].path, None, None, f"the shards file of rule set {entry.ordinal} is not "
                                                            f"its counts file's ({counts[0].path})"))
    return problems


def _misnamed(f, entry: RuleSetEntry) -> str | None:
    """Why a file's path is not the name the format gives it, or None."""
    if f.table in ("deals", "seeds"):
        want = f"{f.table}/rule_set-{entry.ordinal}.jsonl"
        return None if f.path == want else f"a {f.table} file of rule set {entry.ordinal} is named {want}"
    m = PART.fullmatch(f.path)
    if m is None or m.group(1) != f.table:
        return f"a {f.table} file is named {f.table}/variant=VARIANT/part-NNNNN.parquet"
    if m.group(2) != entry.rules.variant:
        return (f"a file of rule set {entry.ordinal} ({entry.rules.variant}) under variant={m.group(2)}: "
                f"queries would take its rows for {m.group(2)}'s")
    return None


def _tiling(entry: RuleSetEntry, table: str, files: list, skip: set[str]) -> list[Problem]:
    """Problems of a rule set's `table` files, which must hold its games 0..n-1 once each."""
    problems = []
    at = 0
    for f in sorted(files, key=lambda f: (f.first_game, f.games, f.path)):
        end = f.first_game + f.games
        if f.games == 0:
            problems.append(Problem(f.path, None, None, "holds no games"))
            skip.add(f.path)
            continue
        if f.first_game > at:
            problems.append(Problem(None, None, None, f"rule set {entry.ordinal}: its {_span(at, f.first_game - at)} "
                                                      f"are in no {table} file"))
        elif f.first_game < at:
            problems.append(Problem(f.path, None, None, f"its {_span(f.first_game, min(end, at) - f.first_game)} "
                                                        f"are in another {table} file too"))
            skip.add(f.path)
            continue
        if end > entry.games:
            problems.append(Problem(f.path, None, None, f"holds {_span(f.first_game, f.games)}, past rule set "
                                                        f"{entry.ordinal}'s {entry.games} games"))
        at = max(at, end)
    if at < entry.games:
        problems.append(Problem(None, None, None, f"rule set {entry.ordinal}: its {_span(at, entry.games - at)} are "
                                                  f"in no {table} file"))
    return problems


def _companion(entry: RuleSetEntry, table: str, files: list) -> list[Problem]:
    """A rule set's deals or seeds file: listed once when the rule set names one, never else,
    for all its games."""
    named = entry.deals if table == "deals" else entry.seeds
    if named is None:
        return [Problem(f.path, None, None, f"a {table} file of rule set {entry.ordinal}, which has none")
                for f in files]
    listed = [f for f in files if f.path == named]
    if not listed:
        return [Problem(named, None, None, f"rule set {entry.ordinal}'s {table} file is not listed in the manifest")]
    problems = []
    for f in listed:
        if f.first_game != 0 or f.games != entry.games or f.rows != entry.games:
            problems.append(Problem(f.path, None, None, f"lists {f.rows} lines for games {f.first_game} and the "
                                                        f"{f.games} after, expected one line for each of rule set "
                                                        f"{entry.ordinal}'s {entry.games} games"))
    return problems


def read_deals(ds: Dataset, entry: RuleSetEntry) -> list | Problem:
    """A rule set's explicit deals, one (piles, set aside) a game, each a deal of its rules; or
    the problem that names the line at fault."""
    try:
        lines = split_lines((ds.root / entry.deals).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        return Problem(entry.deals, None, None, f"unreadable deals: {err}")
    deals = []
    for number, line in enumerate(lines, 1):
        try:
            data = loads_json(line)
            piles, aside = data["piles"], data["set_aside"]
            check_deal(entry.rules, piles, aside, f"line {number}")
        except (WarError, ValueError, KeyError, TypeError) as err:
            return Problem(entry.deals, None, None, f"unreadable deals: line {number}: {err}"
                           if not isinstance(err, WarError) else f"unreadable deals: {err}")
        deals.append((piles, aside))
    if len(deals) != entry.games:
        return Problem(entry.deals, None, None, f"holds {len(deals)} deals for rule set {entry.ordinal}'s "
                                                f"{entry.games} games")
    return deals


def read_seeds(ds: Dataset, entry: RuleSetEntry) -> list | Problem:
    """A rule set's own seeds, one a game; or the problem that names what is wrong."""
    try:
        lines = split_lines((ds.root / entry.seeds).read_text(encoding="utf-8"))
        seeds = [int(loads_json(line)["seed"]) for line in lines]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
        return Problem(entry.seeds, None, None, f"unreadable seeds: {err}")
    if len(seeds) != entry.games or not all(0 <= s < 2**64 for s in seeds):
        return Problem(entry.seeds, None, None, f"unreadable seeds: {entry.games} seeds of 0 .. 2^64 - 1 wanted, "
                                                f"found {len(seeds)}")
    return seeds
