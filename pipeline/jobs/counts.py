"""Every deal without a row a deal (`war generate --all-deals --log counts`): each shard of deals
is counted into a tally (log.counts), kept in the journal until the run ends, and the rule set's
tallies are then summed into one `counts/` file with a `shards` file beside it, a row a shard
with its digest: megabytes for an enumeration of 10^11 deals, and what every exact question
needs (the `counts` view of war query).

A shard's tally goes to `.war/counts/`, the journal, written whole before the shard's record, so
an interrupted run resumes from the shards it counted; the summed files are written with the
manifest, and the journal is removed after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engines.compiled.tally import Tally
from ..log.counts import count_deals, shards_table, table_tally, tally_table
from ..engines.compiled import tally as tallies
from ..model.schema import RuleSet
from ..storage.dataset import WORK_DIR, part_path
from ..storage.files import read_whole_parquet, write_parquet
from ..storage.location import location
from .validate_files import Problem

MOST_COUNTED_DEALS = 10**13  # an enumeration `--log counts` plays at most
SMALLEST_COUNT_SHARD = 1 << 24  # deals: a few seconds of one core's counting
MOST_COUNT_SHARDS = 2000        # a rule set's shards: its shards file stays small


def count_shard_size(deals: int) -> int:
    """Deals a counts shard: enough that an enumeration has at most MOST_COUNT_SHARDS shards, at
    least SMALLEST_COUNT_SHARD; a function of the deal count alone, so the shards, their
    digests and the files are the same whatever the workers or machines."""
    return max(SMALLEST_COUNT_SHARD, -(-deals // MOST_COUNT_SHARDS))


def journal_path(part: int) -> str:
    return f"{WORK_DIR}/counts/part-{part:05d}.parquet"


def run_count_shard(shard, tick=None) -> list[dict]:
    """Count one shard of deals into the journal; its journal entry (a counts file of no games)."""
    rules = RuleSet.model_validate_json(shard.rules_json)
    tally = count_deals(rules, shard.ordinal, shard.seed, shard.start, shard.stop, shard.policies)
    table = tally_table(tally)
    rel = journal_path(shard.part)
    digest = write_parquet(table, location(shard.root) / rel, durable=shard.durable)
    if tick is not None:
        tick(shard.stop - shard.start)
    return [{"path": rel, "table": "counts", "rule_set": shard.ordinal, "first_game": 0, "games": 0,
             "rows": table.num_rows, "sha256": digest}]


def sum_counts(target, entry, variant: str, shards: list[tuple[int, int, int, dict]]) -> list[dict]:
    """The rule set's counts and shards files, from its shards' tallies in the journal
    ((part, first deal, stop, journal entry) each): their manifest entries."""
    parts = []
    total = tallies.new_tally()
    for part, start, stop, done in sorted(shards, key=lambda s: s[1]):
        tally = table_tally(read_whole_parquet(target / done["path"]))
        parts.append((start, stop - start, tallies.digest(tally)))
        total = tallies.merge(total, tally)
    first_part = min(s[0] for s in shards)
    out = []
    for table_name, table in (("counts", tally_table(total)), ("count_shards", shards_table(parts))):
        rel = part_path(table_name, variant, first_part)
        digest = write_parquet(table, target / rel)
        out.append({"path": rel, "table": table_name, "rule_set": entry.ordinal, "first_game": 0, "games": 0,
                    "rows": table.num_rows, "sha256": digest})
    return out


@dataclass(frozen=True)
class CountCheck:
    """A shard of a counts rule set to count again, and the digest its counts file gives it."""

    ordinal: int
    rules_json: str
    policies: tuple[str, ...]
    seed: int
    start: int
    stop: int
    digest: int | None


def count_again(task: CountCheck, tick=None) -> tuple[CountCheck, Tally]:
    rules = RuleSet.model_validate_json(task.rules_json)
    tally = count_deals(rules, task.ordinal, task.seed, task.start, task.stop, task.policies)
    if tick is not None:
        tick(task.stop - task.start)
    return task, tally


def count_checks(ds, entry, unreadable: set[str], problems: list) -> list[CountCheck]:
    """The shards of a counts rule set to count again: those its shards file lists, when they
    tile its deals as its shard size does, else the planned ones (each then with no digest to
    hold it to, and a problem said)."""
    stop_all = entry.deal_range[1]
    planned = [(s, min(s + entry.shard_size, stop_all))
               for s in range(entry.deal_range[0], stop_all, entry.shard_size)]
    listed = []
    shards_files = [f for f in ds.files("count_shards") if f.rule_set == entry.ordinal]
    if len(shards_files) == 1 and shards_files[0].path not in unreadable:
        table = read_whole_parquet(ds.root / shards_files[0].path)
        listed = list(zip(*(table.column(c).to_pylist() for c in ("first_deal", "deals", "digest"))))
    if not _tiles(listed, entry):
        if shards_files:
            problems.append(Problem(shards_files[0].path, None, None, (
                f"its shards do not tile rule set {entry.ordinal}'s deals {entry.deal_range[0]:,} .. "
                f"{stop_all - 1:,} in shards of at most {entry.shard_size:,}: counted again whole")))
        listed = [(a, b - a, None) for a, b in planned]
    rules_json = entry.rules.model_dump_json()
    return [CountCheck(entry.ordinal, rules_json, tuple(entry.policies), entry.seed, first, first + deals, digest)
            for first, deals, digest in listed]


def _tiles(listed, entry) -> bool:
    """Whether shards (first deal, deals, digest) cover the rule set's deals one after another,
    each of at most its shard size (a joined dataset's slices may have shards of their own)."""
    at = entry.deal_range[0]
    for first, deals, _ in listed:
        if first != at or not 0 < deals <= entry.shard_size:
            return False
        at += deals
    return at == entry.deal_range[1]


def compare_counts(ds, entry, counted: list[tuple[CountCheck, Tally]], unreadable: set[str], report) -> None:
    """Each shard's counts against its digest, and their sum against the rule set's counts file,
    into `report` (the deals of a shard that differs are bad)."""
    total = tallies.new_tally()
    bad = 0
    for task, tally in sorted(counted, key=lambda c: c[0].start):
        found = tallies.digest(tally)
        if task.digest is not None and found != task.digest:
            bad += task.stop - task.start
            report.problems.append(Problem(_path(ds, entry, "count_shards"), None, None, (
                f"rule set {entry.ordinal}, deals {task.start:,} .. {task.stop - 1:,}: their counts played again "
                f"differ from the shard's digest ({task.digest} stored, {found} played)")))
        total = tallies.merge(total, tally)
    deals = entry.deal_range[1] - entry.deal_range[0]
    path = _path(ds, entry, "counts")
    if path is not None and path not in unreadable:
        stored = tally_table(table_tally(read_whole_parquet(ds.root / path))).to_pylist()
        played = tally_table(total).to_pylist()
        differ = _differing(stored, played)
        if differ:
            shown = "; ".join(differ[:5]) + (f"; and {len(differ) - 5} more" if len(differ) > 5 else "")
            report.problems.append(Problem(path, None, None, f"rule set {entry.ordinal}: counts differ from the "
                                                             f"deals played again: {shown}"))
            bad = max(bad, 1)
    report.games_checked += deals
    report.bad += min(bad, deals)
    report.good += deals - min(bad, deals)


def _path(ds, entry, table: str) -> str | None:
    found = [f.path for f in ds.files(table) if f.rule_set == entry.ordinal]
    return found[0] if len(found) == 1 else None


def _differing(stored: list[dict], played: list[dict]) -> list[str]:
    """What differs between two tables of counts, row by row (by their kind of game)."""
    def key(row):
        return tuple(row[c] for c in ("outcome", "winner", "first_of_class", "battles", "cards_laid",
                                      "cycle_length", "cycle_key"))

    have, want = {key(r): r for r in stored}, {key(r): r for r in played}
    out = []
    for k in sorted(set(have) | set(want), key=repr):
        a, b = have.get(k), want.get(k)
        if a != b:
            kind = f"{k[0]}{'' if k[1] is None else f' seat {k[1]}'}, {k[3]} battles, {k[4]} cards laid" + \
                   (f", cycle {k[5]}" if k[5] is not None else "")
            said = lambda r: "none" if r is None else f"{r['games']:,} from deal {r['first_deal']:,}"  # noqa: E731
            out.append(f"{kind}: {said(a)} stored, {said(b)} played")
    return out
