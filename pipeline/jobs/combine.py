"""Slices of one enumeration joined (`war combine SLICE ... --out DATASET`): datasets that each
count a range of the same rule set's deals (`war generate --all-deals --log counts --deal-range
FIRST:STOP`), written on different machines, become one dataset whose counts are the sum of
theirs and whose shards are all of theirs, so its exact answers are those of the deals they
cover together: the whole enumeration, when the slices tile it. Games the slices kept (`--keep`,
the same condition in every slice) are kept in the joined dataset as one run keeps them: the
first deals of the kinds the condition chooses, played again from their deals.

Slices are matched by rule set (its id and policies). Refused, naming what is wrong, before
anything is written: a slice that is not a finished dataset of counts; a counts, shards or seeds
file that does not match its checksum in its slice's manifest; shards that do not tile the deals
their manifest claims, or counts that are not as many games as those deals; slices of different
master seeds, of different rule sets, or kept by different conditions; a rule set whose slices
leave a gap between them or count a deal twice; and counts of every deal whose sum is not the
deck's deal count (an exact answer has no other denominator).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..engines.compiled import tally as tallies
from ..errors import DatasetError, brief
from ..log.counts import counts_classes, game_columns, shards_table, table_tally, tally_table
from ..model.all_deals import deal_count
from ..model.schema import DataFile, Manifest, RuleSetEntry
from ..storage.dataset import MANIFEST, Dataset, part_path
from ..storage.files import atomic_write_bytes, read_whole_parquet, remove_tree, write_parquet
from ..storage.location import location
from .counts import MOST_KEPT, kept_rows, kinds_chosen, write_kept
from .place import prepare_output, refuse_inside_dataset, swap_in


@dataclass(frozen=True)
class Combined:
    manifest: Manifest
    deals: dict[str, tuple[int, int, int]]  # by rule set name: first deal, stop, the deck's deals


@dataclass
class _Slice:
    """One rule set of one slice, read and checked: its counts, its shards and its kept deals."""

    ds: Dataset
    entry: RuleSetEntry
    tally: tallies.Tally
    shards: list[tuple[int, int, int]]  # (first deal, deals, digest)
    kept: list[int]                     # the deal numbers of its kept games, in order

    @property
    def name(self) -> str:
        return repr(str(self.ds.root))


def combine(slices, out, overwrite: bool = False) -> Combined:
    """Join the counts datasets `slices` (a list of folders) into a new dataset at `out` (see the module)."""
    if not isinstance(slices, (list, tuple)) or not all(isinstance(s, (str, os.PathLike)) for s in slices):
        # one folder given alone ('abc' read as three folders 'a', 'b', 'c'), an iterator, a number
        raise DatasetError(f"`slices` is a list of dataset folders, not {brief(slices)}", params=("slices",))
    if len(slices) < 1:
        raise DatasetError("`slices`: give the datasets to join, one or more", params=("slices",))
    opened = [Dataset.open(s) for s in slices]
    seeds = {ds.manifest.master_seed for ds in opened}
    if len(seeds) > 1:
        raise DatasetError(f"the slices have master seeds {', '.join(map(str, sorted(seeds)))}: slices of one "
                           f"enumeration share theirs", params=("slices",))
    seed = seeds.pop()
    read = [_read(ds) for ds in opened]
    _same_rule_sets(read)
    groups: dict[tuple, list[_Slice]] = {}
    for parts in read:
        for key, part in parts.items():
            groups.setdefault(key, []).append(part)
    joined = []
    for ordinal, group in enumerate(groups.values()):
        group = sorted(group, key=lambda s: s.entry.deal_range[0])
        _check_tiling(group)
        joined.append(_join(ordinal, group, seed))
    root = location(out)
    refuse_inside_dataset(root)
    target = prepare_output(root, overwrite)
    try:
        manifest, said = _write(target, joined, seed)
    except BaseException:
        if target != root:
            remove_tree(target)
        raise
    if target != root:
        swap_in(target, root)
    return Combined(manifest, said)


def _checked_bytes(ds: Dataset, f: DataFile) -> bytes:
    """A file a slice's manifest lists, read whole (kilobytes) and held to its checksum there."""
    try:
        data = (ds.root / f.path).read_bytes()
    except OSError as err:
        raise DatasetError(f"{str(ds.root)!r}: cannot read {f.path}: {err.strerror or err}") from None
    if hashlib.sha256(data).hexdigest() != f.sha256:
        raise DatasetError(f"{str(ds.root)!r}: {f.path} does not match its checksum in the manifest (changed or "
                           f"damaged since it was written): war validate {ds.root} says more", params=("slices",))
    return data


def _only(ds: Dataset, e: RuleSetEntry, table: str) -> DataFile:
    listed = [f for f in ds.files(table) if f.rule_set == e.ordinal]
    if len(listed) != 1:
        raise DatasetError(f"{str(ds.root)!r}: rule set {e.ordinal} lists {len(listed)} {table} files, one wanted "
                           f"(war validate says more)", params=("slices",))
    return listed[0]


def _read(ds: Dataset) -> dict[tuple, _Slice]:
    """Each rule set of a slice, by its id and policies, with its counts, shards and kept deals
    read and checked: the files against their checksums, the shards against the deals the
    manifest claims, the counts against those deals."""
    out = {}
    for e in ds.manifest.rule_sets:
        if e.log != "counts":
            raise DatasetError(f"{str(ds.root)!r}: rule set {e.ordinal} ({e.label}) stores "
                               f"{'games rows' if e.log == 'games' else 'its event log'}, not counts: only "
                               f"counts (--log counts) are joined", params=("slices",))
        files = {table: _only(ds, e, table) for table in ("counts", "count_shards")}
        data = {table: _checked_bytes(ds, f) for table, f in files.items()}
        tables = {}
        for table, f in files.items():
            tables[table] = read_whole_parquet(ds.root / f.path, data[table])
            if tables[table].num_rows != f.rows:
                raise DatasetError(f"{str(ds.root)!r}: {f.path} holds {tables[table].num_rows:,} rows, its manifest "
                                   f"says {f.rows:,}", params=("slices",))
        shards = sorted(zip(*(tables["count_shards"].column(c).to_pylist() for c in ("first_deal", "deals", "digest"))))
        part = _Slice(ds, e, table_tally(tables["counts"]), shards, _kept(ds, e))
        _check_shards(part, files["count_shards"].path)
        _check_counts(part)
        out[(e.rules_id, tuple(e.policies))] = part
    return out


def _kept(ds: Dataset, e: RuleSetEntry) -> list[int]:
    """The deal numbers of a slice's kept games (`keep`), from its seeds file."""
    if e.keep is None or e.games == 0:
        return []
    listed = [f for f in ds.files("seeds") if f.rule_set == e.ordinal and f.path == e.seeds]
    if not e.seeds or len(listed) != 1:
        raise DatasetError(f"{str(ds.root)!r}: rule set {e.ordinal} keeps {e.games:,} games (--keep) but its "
                           f"manifest lists no seeds file of their deals (war validate says more)", params=("slices",))
    deals = []
    try:
        for line in _checked_bytes(ds, listed[0]).decode("utf-8").splitlines():
            deals.append(int(json.loads(line)["deal_index"]))
    except (ValueError, KeyError, TypeError) as err:
        raise DatasetError(f"{str(ds.root)!r}: {e.seeds}: not the seeds of kept deals ({err})",
                           params=("slices",)) from None
    if len(deals) != e.games or any(b <= a for a, b in zip(deals, deals[1:])):
        raise DatasetError(f"{str(ds.root)!r}: {e.seeds} lists {len(deals):,} deals for the {e.games:,} kept games "
                           f"of rule set {e.ordinal}, or not in increasing order", params=("slices",))
    return deals


def _said(first: int, stop: int) -> str:
    return f"{first:,} .. {stop - 1:,}"


def _check_shards(part: _Slice, path: str) -> None:
    """The slice's shards count the deals its manifest claims, one after another, each once."""
    first, stop = part.entry.deal_range
    at = first
    for start, deals, _ in part.shards:
        if start != at or deals <= 0:
            break
        at += deals
    else:
        if at == stop:
            return
    covered = _said(part.shards[0][0], part.shards[-1][0] + part.shards[-1][1]) if part.shards else "none"
    raise DatasetError(f"{part.name}: rule set {part.entry.label} claims deals {_said(first, stop)}, but its shards "
                       f"({path}) do not count them one after another: they count deals {covered}"
                       f"{'' if at == stop or not part.shards else f', with a gap or an overlap at deal {at:,}'}",
                       params=("slices",))


def _check_counts(part: _Slice) -> None:
    """The slice's counts are those of its deals: one game a deal, or, where a range is counted
    by classes (log.counts.counts_classes), at most one class first a deal with at most as many
    swapped deals; every kind's first deal among its deals (a swapped deal's anywhere)."""
    e = part.entry
    first, stop = e.deal_range
    deals = stop - first
    keys, games, firsts = tallies.rows(part.tally)
    total = int(games.sum())
    classes = e.rules.players == 2 and counts_classes(e.rules, tuple(e.policies))
    leading = keys[:, 2] != 0 if classes else np.ones(len(games), bool)  # the column first_of_class
    if classes:
        heads = int(games[leading].sum())
        if heads > deals or total - heads > heads:
            raise DatasetError(f"{part.name}: rule set {e.label} counts {heads:,} classes and {total - heads:,} "
                               f"swapped deals for its {deals:,} deals {_said(first, stop)}: at most one class a "
                               f"deal, and a swapped deal a class, wanted (war validate says more)", params=("slices",))
    elif total != deals:
        raise DatasetError(f"{part.name}: rule set {e.label} counts {total:,} games for its {deals:,} deals "
                           f"{_said(first, stop)}: one a deal wanted (war validate says more)", params=("slices",))
    outside = firsts[leading][(firsts[leading] < first) | (firsts[leading] >= stop)]
    if len(outside):
        raise DatasetError(f"{part.name}: rule set {e.label} counts a game of deal {int(outside[0]):,}, not one of "
                           f"its deals {_said(first, stop)} (war validate says more)", params=("slices",))


def _same_rule_sets(read: list[dict]) -> None:
    """Every slice counts the same rule sets: slices of different ones would be joined into a
    dataset of partial rule sets."""
    first = read[0]
    for parts in read[1:]:
        if set(parts) != set(first):
            a, b = next(iter(first.values())), next(iter(parts.values()))
            which = lambda ps: ", ".join(p.entry.label for p in ps.values())  # noqa: E731
            raise DatasetError(f"the slices count different rule sets: {a.name} counts {which(first)}, {b.name} "
                               f"counts {which(parts)}; slices of one enumeration count the same rule sets (join "
                               f"each rule set's slices apart)", params=("slices",))


def _check_tiling(group: list[_Slice]) -> None:
    """The slices of one rule set, in deal order, leave no gap between them and count no deal
    twice."""
    for a, b in zip(group, group[1:]):
        end, start = a.entry.deal_range[1], b.entry.deal_range[0]
        if start > end:
            raise DatasetError(f"rule set {a.entry.label}: no slice counts deals {end:,} .. {start - 1:,} (between "
                               f"{a.name} and {b.name})", params=("slices",))
        if start < end:
            raise DatasetError(f"rule set {a.entry.label}: deals {start:,} .. {min(end, b.entry.deal_range[1]) - 1:,} "
                               f"are counted by both {a.name} and {b.name}", params=("slices",))


@dataclass
class _Joined:
    entry: RuleSetEntry
    tally: tallies.Tally
    shards: list
    kept: tuple | None  # counts.kept_rows' of the kept games


def _join(ordinal: int, group: list[_Slice], seed: int) -> _Joined:
    """One rule set's slices (in deal order, tiling its deals) joined in memory, and checked:
    the counts of every deal are the deck's deal count, the kept games those the condition
    chooses."""
    first = group[0].entry
    total = tallies.merge(tallies.new_tally(), *(s.tally for s in group))
    shards = [shard for s in group for shard in s.shards]
    deal_range = [first.deal_range[0], group[-1].entry.deal_range[1]]
    count = deal_count(first.rules)
    games = int(tallies.rows(total)[1].sum())
    if deal_range == [0, count] and games != count:
        raise DatasetError(f"the slices of rule set {first.label} count {games:,} games for every deal of the deck, "
                           f"which has {count:,}: a slice is not what its manifest says (war validate each of "
                           f"{', '.join(s.name for s in group)})", params=("slices",))
    keeps = {s.entry.keep for s in group}
    if len(keeps) > 1:
        said = "; ".join(f"{s.name} keeps {'none' if s.entry.keep is None else repr(s.entry.keep)}" for s in group)
        raise DatasetError(f"the slices of rule set {first.label} keep games by different conditions (`keep`): "
                           f"{said}: join slices counted with the same `keep`", params=("keep",))
    keep = keeps.pop()
    entry = RuleSetEntry(ordinal=ordinal, rules_id=first.rules_id, rules_id_version=first.rules_id_version,
                         rules=first.rules, policies=first.policies, seed=seed, games=0,
                         shard_size=max(deals for _, deals, _ in shards), all_deals=True, log="counts",
                         deal_range=deal_range, name=first.name, engine_version=_engine(group), keep=keep)
    if keep is None:
        return _Joined(entry, total, shards, None)
    kinds = kinds_chosen(tally_table(total), keep)
    chosen = int(kinds.games.sum())
    origin = {}
    for s in group:
        for d in s.kept:
            if d in origin:
                raise DatasetError(f"deal {d:,} is kept by both {origin[d].name} and {s.name}", params=("slices",))
            origin[d] = s
    deals = sorted(origin)[:MOST_KEPT]
    for s in group:  # a slice that kept its first MOST_KEPT may have more before the joined cut
        if len(s.kept) >= MOST_KEPT and deals and deals[-1] > s.kept[-1]:
            raise DatasetError(f"{s.name} keeps its first {MOST_KEPT:,} games of `keep` ({keep}), which end before "
                               f"the joined slices' first {MOST_KEPT:,}: count it with a narrower `keep`",
                               params=("keep",))
    if len(deals) != min(chosen, MOST_KEPT):
        raise DatasetError(f"the slices of rule set {first.label} keep {len(deals):,} games; their counts hold "
                           f"{chosen:,} games that `keep` ({keep}) chooses, of which the first {MOST_KEPT:,} are kept "
                           f"(war validate each of {', '.join(s.name for s in group)})", params=("slices",))
    entry = entry.model_copy(update={"games": len(deals)})
    if not deals:
        return _Joined(entry, total, shards, None)
    rows = kept_rows(entry, deals)
    inside = tallies.members(kinds, game_columns(entry.rules, rows[0], 0, deals))
    if not inside.all():
        d = deals[int(np.flatnonzero(~inside)[0])]
        raise DatasetError(f"{origin[d].name} keeps deal {d:,}, whose game `keep` ({keep}) does not choose "
                           f"(war validate {origin[d].ds.root} says more)", params=("slices",))
    return _Joined(entry, total, shards, rows)


def _write(target: Path, joined: list[_Joined], seed: int) -> tuple[Manifest, dict]:
    entries, files, said = [], [], {}
    for j in joined:
        entry = j.entry
        for table_name, table in (("counts", tally_table(j.tally)), ("count_shards", shards_table(j.shards))):
            rel = part_path(table_name, entry.rules.variant, entry.ordinal)
            digest = write_parquet(table, target / rel)
            files.append(DataFile(path=rel, table=table_name, rule_set=entry.ordinal, first_game=0, games=0,
                                  rows=table.num_rows, sha256=digest))
        if j.kept is not None:
            entry, written = write_kept(target, entry, j.kept, entry.ordinal)
            files += [DataFile(**f) for f in written]
        entries.append(entry)
        said[entry.label] = (entry.deal_range[0], entry.deal_range[1], deal_count(entry.rules))
    manifest = Manifest(master_seed=seed, rule_sets=entries, files=files)
    atomic_write_bytes(target / MANIFEST, (manifest.model_dump_json(indent=2) + "\n").encode(), dataset=True)
    return manifest, said


def _engine(group: list[_Slice]) -> str | None:
    """The engine version the slices were counted by, kept on the rule set when it is not
    today's; slices of different engines are refused."""
    from ..model.schema import ENGINE_VERSION

    versions = {s.entry.engine_version or s.ds.manifest.engine_version for s in group}
    if len(versions) > 1:
        raise DatasetError(f"the slices of rule set {group[0].entry.label} were counted by engine versions "
                           f"{', '.join(sorted(versions))}: count them again with this war", params=("slices",))
    version = versions.pop()
    return None if version == ENGINE_VERSION else version
