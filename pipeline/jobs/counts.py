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

import pyarrow as pa

from ..engines.compiled import tally as tallies
from ..engines.compiled.tally import Tally
from ..errors import RulesError, WarError
from ..log.counts import (
    count_deals, count_rows, rows_digest, rows_table, shards_table, table_digest, table_tally, tally_table,
)
from ..model.all_deals import MOST_COUNTED_DEALS, check_enumerable
from ..model.schema import RuleSet
from ..storage.dataset import MANIFEST, WORK_DIR, part_path
from ..storage.files import read_whole_parquet, write_parquet
from ..storage.location import location
from .parallel import Span
from .validate_files import Problem

SMALLEST_COUNT_SHARD = 1 << 24  # deals: a few seconds of one core's counting
MOST_COUNT_SHARDS = 2000        # a rule set's shards: its shards file stays small


def count_shard_size(deals: int) -> int:
    """Deals a counts shard: enough that an enumeration has at most MOST_COUNT_SHARDS shards, at
    least SMALLEST_COUNT_SHARD; a function of the deal count alone, so the shards, their
    digests and the files are the same whatever the workers or machines."""
    return max(SMALLEST_COUNT_SHARD, -(-deals // MOST_COUNT_SHARDS))


def counted_range(rules: RuleSet, games: int | None, deal_range) -> tuple[int, int]:
    """The deals a counts plan counts: `deal_range`, else the first `games`, else all of them;
    checked against the deck's deal count."""
    count = check_enumerable(rules, MOST_COUNTED_DEALS)
    if deal_range is None:
        if games is not None and (isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= count):
            raise RulesError(f"`games` must be between 1 and the deck's {count:,} deals, got {games!r}",
                             params=("games",))
        return 0, count if games is None else games
    first, stop = deal_range
    if not (isinstance(first, int) and isinstance(stop, int)) or not 0 <= first < stop <= count:
        raise RulesError(f"`deal_range` must be first:stop with 0 <= first < stop <= {count:,} (the deck's deals), "
                         f"got {first}:{stop}", params=("deal_range",))
    return first, stop


MOST_KEPT = 100_000  # games rows a counts rule set keeps (`keep`): the first deals of the kinds asked for
KIND_COLUMNS = ("outcome", "winner", "first_of_class", "battles", "cards_laid", "cycle_length", "cycle_key")


def check_keep(condition: str) -> str:
    """`keep` as one condition over the counts' columns of a kind of game (outcome, winner,
    first_of_class, battles, cards_laid, cycle_length, cycle_key), refused before anything is
    counted when it is not one, names another column, or calls a function whose value may
    change from one run to the next (`random()`, `now()`: condition.refuse_changing)."""
    from .condition import one_condition, refuse_changing

    text = one_condition(condition, "keep", "the counts' columns (outcome, winner, battles, cards_laid, "
                                            "cycle_length, cycle_key, first_of_class), such as battles > 140")
    kinds_chosen(tally_table(tallies.new_tally()), text)
    refuse_changing(text, "keep", KIND_COLUMNS)
    return text


def kinds_chosen(table, condition: str) -> tallies.Tally:
    """The kinds of a counts table (its rows) that `condition` chooses, as a tally."""
    import duckdb

    from ..errors import QueryError

    con = duckdb.connect()
    try:
        con.execute("SET enable_external_access = false")
        kinds = table.select(list(KIND_COLUMNS)).append_column("row", pa.array(range(table.num_rows), pa.int64()))
        chosen = con.from_arrow(kinds).filter(condition).project("row").fetchnumpy()["row"]
    except duckdb.Error as err:
        raise QueryError(f"`keep` {condition!r}: {' '.join(str(err).split())}", params=("keep",)) from None
    finally:
        con.close()
    return table_tally(table.take(pa.array(chosen, pa.int64())))


def counted_deals(root, manifest, rules_ids=None) -> int:
    """The deals the counts rule sets of a dataset's `manifest` count (of those whose rules id
    is in `rules_ids`, when given): the games their counts files sum. A slice of the deal
    numbers counted by classes counts the deals of the classes whose first deal lies in it, each
    with its swapped deal, not the numbers walked."""
    ordinals = {e.ordinal for e in manifest.rule_sets
                if e.log == "counts" and (rules_ids is None or e.rules_id in rules_ids)}
    root = location(root)
    return sum(int(read_whole_parquet(root / f.path).column("games").to_numpy().sum())
               for f in manifest.files if f.table == "counts" and f.rule_set in ordinals)


def journal_path(part: int) -> str:
    return f"{WORK_DIR}/counts/part-{part:05d}.parquet"


JOURNAL_PAGE = 1 << 16  # bytes a page of a journal file: the sum reads every shard's at once, a page a column each


def write_journal(table: pa.Table, path, durable: bool = True) -> str:
    """Write a shard's tally into the journal, atomically; its SHA-256. The file is read once, by
    the sum, and then removed: lz4 rather than zstd, and no dictionary for the cycle keys and
    first deals, nearly all distinct (one built and dropped a column chunk): 0.2 s a 1x13 shard
    where write_parquet took 0.5 - 0.7 s, and quicker to read; pages of 64 KB, as the sum on
    disk holds a page of each column of every shard's file (1 MB pages: 3.3 GB for 372 shards).
    The sum's files are written as any dataset's."""
    import pyarrow.parquet as pq

    from ..storage.files import atomic_write_bytes, parquet_options

    options = parquet_options(table.schema)
    options.pop("compression_level")
    options.update(compression="lz4", data_page_size=JOURNAL_PAGE,
                   use_dictionary=[c for c in options["use_dictionary"] if c not in ("cycle_key", "first_deal")])
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, **options)
    return atomic_write_bytes(path, buf.getvalue(), durable, dataset=True)


def run_count_shard(shard, tick=None) -> list[dict]:
    """Count one shard of deals into the journal; its journal entry (a counts file of no games)."""
    rules = RuleSet.model_validate_json(shard.rules_json)
    rows = count_rows(rules, shard.ordinal, shard.seed, shard.start, shard.stop, shard.policies)
    table = rows_table(*rows)
    rel = journal_path(shard.part)
    digest = write_journal(table, location(shard.root) / rel, durable=shard.durable)
    if tick is not None:
        tick(shard.stop - shard.start)
    return [{"path": rel, "table": "counts", "rule_set": shard.ordinal, "first_game": 0, "games": 0,
             "rows": table.num_rows, "sha256": digest, "tally_digest": rows_digest(*rows)}]


def sum_counts(target, entry, variant: str, shards: list[tuple[int, int, int, dict]], keep_parts: bool = True):
    """The rule set's counts and shards files, from its shards' tallies in the journal
    ((part, first deal, stop, journal entry) each): their manifest entries, the sum and, with
    `keep_parts`, each part's tally (what keep_games chooses from, read once). Each part is
    added into the sum as it is read, so only the sum and one part are held at a time."""
    if not keep_parts and sum(int(s[3].get("rows", 0)) for s in shards) > SUMMED_IN_MEMORY:
        return _sum_on_disk(target, entry, variant, shards), None, {}
    parts = []
    total = tallies.new_tally()
    by_part = {}
    for part, start, stop, done in sorted(shards, key=lambda s: s[1]):
        tally = table_tally(read_whole_parquet(target / done["path"]))
        if keep_parts:
            by_part[part] = tally
        digest = _recorded_digest(done)
        parts.append((start, stop - start, tallies.digest(tally) if digest is None else digest))
        total = added(total, tally)
    first_part = min(s[0] for s in shards)
    out = []
    for table_name, table in (("counts", tally_table(total)), ("count_shards", shards_table(parts))):
        rel = part_path(table_name, variant, first_part)
        digest = write_parquet(table, target / rel)
        out.append({"path": rel, "table": table_name, "rule_set": entry.ordinal, "first_game": 0, "games": 0,
                    "rows": table.num_rows, "sha256": digest})
    return out, total, by_part


SUMMED_IN_MEMORY = 50_000_000  # rows of a rule set's shard tallies summed in memory (5 GB at most); beyond, on disk


def _sum_on_disk(target, entry, variant: str, shards) -> list[dict]:
    """The counts and shards files of a rule set whose shards' tallies do not fit memory together
    (one suit of 13 ranks: hundreds of millions of kinds): each shard's digest from its tally
    alone (its worker's), the sum one merge of the shards' sorted files (jobs.counts_sum), its
    rows in tally_table's order, written a row group at a time. Its bytes are not
    write_parquet's (a file too large to build in memory), its rows are."""
    import hashlib

    import pyarrow.parquet as pq

    from ..log.counts import COUNT_SCHEMA
    from ..storage.files import atomic_file, parquet_options
    from .counts_sum import sum_tallies

    ordered = sorted(shards, key=lambda s: s[1])
    parts = [(start, stop - start, _shard_digest(target, done)) for _, start, stop, done in ordered]
    first_part = min(s[0] for s in shards)
    rel = part_path("counts", variant, first_part)
    options = parquet_options(COUNT_SCHEMA)
    group_rows = options.pop("row_group_size")
    (target / rel).parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(target / rel, dataset=True) as f:
        with pq.ParquetWriter(f, COUNT_SCHEMA, **options) as writer:
            rows = sum_tallies([str(target / d["path"]) for *_, d in ordered],
                               lambda table: writer.write_table(table, row_group_size=group_rows), group_rows)
    sha = hashlib.sha256()
    with open(target / rel, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            sha.update(block)
    out = [{"path": rel, "table": "counts", "rule_set": entry.ordinal, "first_game": 0, "games": 0, "rows": rows,
            "sha256": sha.hexdigest()}]
    shards_rel = part_path("count_shards", variant, first_part)
    table = shards_table(parts)
    out.append({"path": shards_rel, "table": "count_shards", "rule_set": entry.ordinal, "first_game": 0, "games": 0,
                "rows": table.num_rows, "sha256": write_parquet(table, target / shards_rel)})
    return out


def _shard_digest(target, done: dict) -> int:
    """A shard's digest (tally.digest of its tally): the one its worker recorded, else folded
    from its file, read again (a journal from before the entry held it)."""
    digest = _recorded_digest(done)
    return digest if digest is not None else table_digest(read_whole_parquet(target / done["path"]))


def _recorded_digest(done: dict) -> int | None:
    """The digest a shard's worker folded from the rows it wrote (its journal entry's
    `tally_digest`, which the manifest's file entry drops); None where the entry has none."""
    digest = done.get("tally_digest")
    return digest if isinstance(digest, int) and not isinstance(digest, bool) else None


def added(total: Tally, part: Tally) -> Tally:
    """`part`'s games added into `total` (grown first when they may not fit), in place: the same
    rows as tallies.merge, without sorting the sum again for each part."""
    while 2 * (int(total.fill[0]) + int(part.fill[0]) + 1) > total.keys.shape[0]:
        total = tallies.grown(total)
    tallies._rehash(part.keys, part.games, part.first, total.keys, total.games, total.first, total.fill)
    return total


@dataclass(frozen=True)
class CountCheck(Span):
    """A shard of a counts rule set to count again, and the digest its counts file gives it."""

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
        rows = read_whole_parquet(ds.root / path)
        stored = tally_table(table_tally(rows)).to_pylist()
        if rows.to_pylist() != stored:  # the same sums, but a kind split over two rows, or out of order
            report.problems.append(Problem(path, None, None, (
                f"rule set {entry.ordinal}: its counts are not as war writes them, one row a kind of game in "
                f"order ({rows.num_rows:,} rows for {len(stored):,} kinds)")))
            bad = max(bad, 1)
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
                   (f", cycle {k[5]}" if k[5] is not None else "") + \
                   (f" (key {k[6]})" if k[6] is not None else "")  # two cycles of one length differ by it alone
            said = lambda r: "none" if r is None else f"{r['games']:,} from deal {r['first_deal']:,}"  # noqa: E731
            out.append(f"{kind}: {said(a)} stored, {said(b)} played")
    return out


def summed_counts(target, plans, entries, files: list[dict], workers: int, shards_of) -> tuple[list, list[dict]]:
    """The run's entries and files, with each counts rule set's shard tallies (in the journal)
    replaced by its summed counts and shards files, and its kept games written (`keep`): its
    games rows, deals and seeds. `shards_of(ordinal)`: a rule set's shards."""
    counted = {e.ordinal: p for e, p in zip(entries, plans) if p.log == "counts"}
    if not counted:
        return entries, files
    out = [f for f in files if not (f["table"] == "counts" and f["rule_set"] in counted)]
    by_path = {f["path"]: f for f in files if f["table"] == "counts"}
    done = []
    for entry in entries:
        plan = counted.get(entry.ordinal)
        if plan is None:
            done.append(entry)
            continue
        shards = [(s.part, s.start, s.stop, by_path[journal_path(s.part)]) for s in shards_of(entry.ordinal)]
        written, total, by_part = sum_counts(target, entry, plan.rules.variant, shards, plan.keep is not None)
        out += written
        if plan.keep is not None:
            entry, written = keep_games(target, entry, plan, shards, workers, total, by_part)
            out += written
        done.append(entry)
    return done, out


def keep_games(target, entry, plan, shards, workers: int, total: Tally, by_part: dict):
    """The games rows of the first deals (at most MOST_KEPT) whose games `plan.keep` chooses
    among the rule set's counts `total`, found by playing again the shards whose tallies
    (`by_part`) hold such games, written as the rule set's games, explicit deals (each line with
    its `deal_index`) and own seeds: the entry and its files."""
    from .parallel import run_tasks

    kinds = kinds_chosen(tally_table(total), plan.keep)
    tasks = []
    for part, start, stop, _ in shards:
        keys, _, _ = tallies.rows(by_part[part])
        if tallies.members(kinds, keys).any():
            tasks.append(KeepTask(entry.ordinal, plan.rules.model_dump_json(), tuple(plan.policies), entry.seed,
                                  start, stop, kinds))
    found = run_tasks(keep_shard, tasks, workers)
    deals = sorted(d for part in found for d in part)[:MOST_KEPT]
    entry = entry.model_copy(update={"keep": plan.keep, "games": len(deals)})
    if not deals:
        return entry, []
    return write_kept(target, entry, kept_rows(entry, deals), min(s[0] for s in shards))


def kept_rows(entry, deals: list[int]) -> tuple[pa.Table, list, list[int], list[int]]:
    """The kept games of a counts rule set (`entry`) whose deal numbers are `deals`, in order:
    their games rows, played again from their deals, each as an explicit deal with its own
    seed; their explicit deals, seeds and deal numbers."""
    from ..log.shard import shard_tables
    from ..model.all_deals import enumerated_deal
    from ..model.rng import game_seed

    dealt = [enumerated_deal(entry.rules, d) for d in deals]
    explicit = [type(d)(d.piles, d.set_aside, explicit=True) for d in dealt]
    seeds = [game_seed(entry.seed, d) for d in deals]
    _, games = shard_tables(entry.rules, entry.ordinal, entry.seed, 0, len(deals), explicit, tuple(entry.policies),
                            rules_id=entry.rules_id, events=False, seeds=seeds)
    return games, explicit, seeds, list(deals)


def write_kept(target, entry, rows, part: int):
    """Write a counts rule set's kept games (`rows`: kept_rows') as its games (part file
    `part`), explicit deals and own seeds (each line with its `deal_index`): the entry and its
    files."""
    from ..model.deal import deal_line
    from ..storage.files import atomic_write_bytes

    games, explicit, seeds, deals = rows
    rel = part_path("games", entry.rules.variant, part)
    written = [{"path": rel, "table": "games", "rule_set": entry.ordinal, "first_game": 0, "games": len(deals),
                "rows": games.num_rows, "sha256": write_parquet(games, target / rel, ("game_id",))}]
    entry = entry.model_copy(update={"deals": f"deals/rule_set-{entry.ordinal}.jsonl",
                                     "seeds": f"seeds/rule_set-{entry.ordinal}.jsonl"})
    lines = {"deals": "".join(deal_line(d) + "\n" for d in explicit),
             "seeds": "".join(f'{{"seed":{s},"from":null,"deal_index":{n}}}\n' for s, n in zip(seeds, deals))}
    for table_name, text in lines.items():
        path = getattr(entry, table_name)
        digest = atomic_write_bytes(target / path, text.encode(), dataset=True)
        written.append({"path": path, "table": table_name, "rule_set": entry.ordinal, "first_game": 0,
                        "games": len(deals), "rows": len(deals), "sha256": digest})
    return entry, written


@dataclass(frozen=True)
class KeepTask(Span):
    kinds: object  # a Tally


def keep_shard(task: KeepTask, tick=None) -> list[int]:
    from ..log.counts import keep_deals

    rules = RuleSet.model_validate_json(task.rules_json)
    return keep_deals(rules, task.ordinal, task.seed, task.start, task.stop, task.kinds, MOST_KEPT,
                      task.policies).tolist()


def check_kept(ds, entry, unreadable: set[str], report) -> None:
    """A counts rule set's kept games (`keep`): each deals line's `deal_index` is the number of
    the deal it lists, in increasing order; they are as many as the counts' kinds that `keep`
    chooses hold (up to MOST_KEPT); each kept game's kind is one of them (its row is checked
    against the engine as any game's is)."""
    import json

    from ..log.counts import game_columns
    from ..model.all_deals import deal_index
    from ..model.deal import Deal

    counts = [f.path for f in ds.files("counts") if f.rule_set == entry.ordinal]
    if entry.keep is None or not entry.deals or entry.deals in unreadable or len(counts) != 1 \
            or counts[0] in unreadable:
        return
    try:
        kinds = kinds_chosen(read_whole_parquet(ds.root / counts[0]), entry.keep)
    except WarError as err:
        report.problems.append(Problem(MANIFEST, None, None, f"rule set {entry.ordinal}: {err}"))
        return
    if not entry.seeds or entry.seeds in unreadable:
        return
    numbers = []
    said = [d for _, d in ds.lineage(entry, range(entry.games))]
    for line_number, line in enumerate((ds.root / entry.deals).read_text(encoding="utf-8").splitlines(), 1):
        data = json.loads(line)
        number = deal_index(entry.rules, Deal(tuple(map(tuple, data["piles"])), tuple(data["set_aside"])))
        given = said[line_number - 1] if line_number <= len(said) else None
        if given != number or (numbers and number <= numbers[-1]):
            report.problems.append(Problem(entry.seeds, None, None, (
                f"line {line_number}: deal_index {given} is not the number of game {line_number - 1}'s deal "
                f"({number}), or not after the line before's")))
        numbers.append(number)
    chosen = int(kinds.games.sum())
    if len(numbers) != min(chosen, MOST_KEPT):
        report.problems.append(Problem(entry.deals, None, None, (
            f"rule set {entry.ordinal} keeps {len(numbers):,} games; its counts hold {chosen:,} games that `keep` "
            f"({entry.keep}) chooses, of which it keeps the first {MOST_KEPT:,}")))
    games = [f for f in ds.files("games") if f.rule_set == entry.ordinal and f.path not in unreadable]
    for f in games:
        rows = read_whole_parquet(ds.root / f.path)
        inside = tallies.members(kinds, game_columns(entry.rules, rows, 0, numbers[f.first_game:]))
        for gid in [g for g, ok in zip(rows.column("game_id").to_pylist(), inside) if not ok]:
            report.problems.append(Problem(f.path, gid, None, f"a kept game that `keep` ({entry.keep}) does not choose"))
