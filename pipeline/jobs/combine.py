"""Slices of one enumeration joined (`war combine SLICE ... --out DATASET`): datasets that each
count a range of the same rule set's deals (`war generate --all-deals --log counts --deal-range
FIRST:STOP`), written on different machines, become one dataset whose counts are the sum of
theirs and whose shards are all of theirs, so its exact answers are those of the deals they
cover together: the whole enumeration, when the slices tile it.

Slices are matched by rule set (its id and policies). Refused, naming what is wrong, before
anything is written: a slice that is not a finished dataset of counts, slices of different
master seeds, and a rule set whose slices leave a gap between them or count a deal twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engines.compiled import tally as tallies
from ..errors import DatasetError
from ..log.counts import shards_table, table_tally, tally_table
from ..model.all_deals import deal_count
from ..model.schema import DataFile, Manifest, RuleSetEntry
from ..storage.dataset import MANIFEST, Dataset, part_path
from ..storage.files import atomic_write_bytes, read_whole_parquet, remove_tree, write_parquet
from ..storage.location import location
from .place import prepare_output, refuse_inside_dataset, swap_in


@dataclass(frozen=True)
class Combined:
    manifest: Manifest
    deals: dict[str, tuple[int, int, int]]  # by rule set name: first deal, stop, the deck's deals


def combine(slices, out, overwrite: bool = False) -> Combined:
    """Join the counts datasets `slices` into a new dataset at `out` (see the module)."""
    if len(slices) < 1:
        raise DatasetError("`slices`: give the datasets to join, one or more", params=("slices",))
    opened = [Dataset.open(s) for s in slices]
    seeds = {ds.manifest.master_seed for ds in opened}
    if len(seeds) > 1:
        raise DatasetError(f"the slices have master seeds {', '.join(map(str, sorted(seeds)))}: slices of one "
                           f"enumeration share theirs", params=("slices",))
    groups: dict[tuple, list] = {}
    for ds in opened:
        for e in ds.manifest.rule_sets:
            if e.log != "counts":
                raise DatasetError(f"{str(ds.root)!r}: rule set {e.ordinal} ({e.label}) stores "
                                   f"{'games rows' if e.log == 'games' else 'its event log'}, not counts: only "
                                   f"counts (--log counts) are joined", params=("slices",))
            groups.setdefault((e.rules_id, tuple(e.policies)), []).append((ds, e))
    for group in groups.values():
        _check_tiling(group)
    root = location(out)
    refuse_inside_dataset(root)
    target = prepare_output(root, overwrite)
    try:
        manifest, said = _write(target, groups, seeds.pop())
    except BaseException:
        if target != root:
            remove_tree(target)
        raise
    if target != root:
        swap_in(target, root)
    return Combined(manifest, said)


def _check_tiling(group: list) -> None:
    """The slices of one rule set, in deal order, leave no gap between them and count no deal
    twice."""
    ranged = sorted(group, key=lambda de: de[1].deal_range[0])
    for (ds_a, a), (ds_b, b) in zip(ranged, ranged[1:]):
        end, start = a.deal_range[1], b.deal_range[0]
        if start > end:
            raise DatasetError(f"rule set {a.label}: no slice counts deals {end:,} .. {start - 1:,} (between "
                               f"{str(ds_a.root)!r} and {str(ds_b.root)!r})", params=("slices",))
        if start < end:
            raise DatasetError(f"rule set {a.label}: deals {start:,} .. {min(end, b.deal_range[1]) - 1:,} are counted "
                               f"by both {str(ds_a.root)!r} and {str(ds_b.root)!r}", params=("slices",))


def _write(target: Path, groups: dict, seed: int) -> tuple[Manifest, dict]:
    entries, files, said = [], [], {}
    for ordinal, group in enumerate(groups.values()):
        group = sorted(group, key=lambda de: de[1].deal_range[0])
        first = group[0][1]
        total = tallies.new_tally()
        shards = []
        for ds, e in group:
            counts = [f for f in ds.files("counts") if f.rule_set == e.ordinal]
            listed = [f for f in ds.files("count_shards") if f.rule_set == e.ordinal]
            if len(counts) != 1 or len(listed) != 1:
                raise DatasetError(f"{str(ds.root)!r}: rule set {e.ordinal} lists {len(counts)} counts and "
                                   f"{len(listed)} shards files, one each wanted (war validate says more)")
            total = tallies.merge(total, table_tally(read_whole_parquet(ds.root / counts[0].path)))
            table = read_whole_parquet(ds.root / listed[0].path)
            shards += list(zip(*(table.column(c).to_pylist() for c in ("first_deal", "deals", "digest"))))
        deal_range = [group[0][1].deal_range[0], group[-1][1].deal_range[1]]
        entry = RuleSetEntry(ordinal=ordinal, rules_id=first.rules_id, rules_id_version=first.rules_id_version,
                             rules=first.rules, policies=first.policies, seed=seed, games=0,
                             shard_size=max(deals for _, deals, _ in shards), all_deals=True, log="counts",
                             deal_range=deal_range, name=first.name,
                             engine_version=_engine(group))
        entries.append(entry)
        for table_name, table in (("counts", tally_table(total)), ("count_shards", shards_table(shards))):
            rel = part_path(table_name, first.rules.variant, ordinal)
            digest = write_parquet(table, target / rel)
            files.append(DataFile(path=rel, table=table_name, rule_set=ordinal, first_game=0, games=0,
                                  rows=table.num_rows, sha256=digest))
        said[entry.label] = (deal_range[0], deal_range[1], deal_count(first.rules))
    manifest = Manifest(master_seed=seed, rule_sets=entries, files=files)
    atomic_write_bytes(target / MANIFEST, (manifest.model_dump_json(indent=2) + "\n").encode(), dataset=True)
    return manifest, said


def _engine(group) -> str | None:
    """The engine version the slices were counted by, kept on the rule set when it is not
    today's; slices of different engines are refused."""
    from ..model.schema import ENGINE_VERSION

    versions = {e.engine_version or ds.manifest.engine_version for ds, e in group}
    if len(versions) > 1:
        raise DatasetError(f"the slices of rule set {group[0][1].label} were counted by engine versions "
                           f"{', '.join(sorted(versions))}: count them again with this war", params=("slices",))
    version = versions.pop()
    return None if version == ENGINE_VERSION else version

