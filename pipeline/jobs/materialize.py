"""The event log of chosen games, written as a new dataset: `war generate --from DATASET --where
"..." --out NEW`, for a dataset that stores the games table alone (`--log games`), or to take a
few games of any dataset with their full log.

The games are chosen by a WHERE over the source's `games` view, run in the query sandbox. Each
rule set with a chosen game becomes a rule set of the new dataset that plays exactly those games
again: each keeps its seed (and its deal, where it was not shuffled from its seed), written
beside it with the game it came from (`seeds/`), so the new dataset's games, events and records
are those of the source, under new game ids.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..errors import DatasetError, QueryError
from ..model.deal import Deal
from ..model.schema import GAME_ID_STRIDE, Manifest
from ..storage.dataset import Dataset
from ..storage.location import is_remote
from .condition import one_condition
from .generate import DEFAULT_SHARD_SIZE, Plan, generate


def chosen_games(source, where: str) -> list[int]:
    """The game ids of the source's games the WHERE chooses, in order."""
    condition = one_condition(where)
    from .query import run  # lazy: DuckDB and the views cost every `war generate` 0.1 s to import

    ids = run(source, sql=f"SELECT game_id FROM games WHERE ({condition}) ORDER BY game_id").column(0).to_pylist()
    if not ids:
        counted = [e for e in Dataset.open(source).manifest.rule_sets if e.log == "counts"]
        if counted:  # its games view holds the kept games alone: "no game matches" read as none of its deals did
            kept = any(e.keep for e in counted)
            raise QueryError(f"no game of {str(source)!r} matches `where` {where!r}: its "
                             f"{'rule sets store' if len(counted) > 1 else 'rule set stores'} counts of its deals, "
                             + ("and its games rows are only those `keep` chose" if kept else "no games rows")
                             + "; `keep` CONDITION, when counting, keeps the rows of the games it chooses",
                             params=("where", "keep"))
        raise QueryError(f"no game of {str(source)!r} matches `where` {where!r}", params=("where",))
    return ids


def _check_chosen(ds: Dataset, ids: list[int]) -> None:
    """Each chosen id a distinct game of the source's manifest (the games view is its files, which
    validation holds to the manifest; a damaged one is refused here, not played)."""
    games = {e.ordinal: e.games for e in ds.manifest.rule_sets}
    for before, gid in zip([None] + ids, ids):
        ordinal, index = divmod(gid, GAME_ID_STRIDE) if gid is not None and gid >= 0 else (None, None)
        if gid is None or gid == before or index >= games.get(ordinal, 0):
            what = "twice" if gid is not None and gid == before else "not one of its manifest's games"
            raise DatasetError(f"{str(ds.root)!r}: the games view gives game {gid} {what}: "
                               f"run war validate {str(ds.root)!r}")


def shown_source(source) -> str:
    """The dataset games were taken from, as a person names it: without a URI's query string
    (options, which may hold credentials) or a user and password before its host."""
    text = str(source).split("?", 1)[0]
    scheme, sep, rest = text.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}{sep}{host.rsplit('@', 1)[-1]}{slash}{path}" if sep else text


def check_not_source(source, out) -> None:
    """Refuse writing the copy over its own source (`--out` the `--from` dataset, with
    `--overwrite`): the source's games went, and the copy named itself as its source."""
    if is_remote(source) or is_remote(out):
        same = str(source).rstrip("/") == str(out).rstrip("/")
    else:
        same = Path(source).resolve() == Path(out).resolve()
    if same:
        raise DatasetError(f"`out` {str(out)!r} is the `from` dataset: the copy would replace the games it takes; "
                           f"give another folder", params=("out", "from"))


def materialize_plans(source, where: str) -> tuple[list[Plan], int]:
    """The plans that play the chosen games again, one per source rule set, and the source's
    master seed. The source is kept as an absolute path (a URI as given, less its credentials):
    one relative to the folder `war` ran in named another dataset from another folder."""
    ds = Dataset.open(source)
    by_set: dict[int, list[int]] = defaultdict(list)
    ids = chosen_games(source, where)
    _check_chosen(ds, ids)
    for gid in ids:
        by_set[gid // GAME_ID_STRIDE].append(gid)
    plans = []
    for ordinal, ids in sorted(by_set.items()):
        entry = ds.rule_set(ordinal)
        indexes = [gid - ordinal * GAME_ID_STRIDE for gid in ids]
        seeds = ds.game_seeds(entry, indexes)
        deals = None
        if entry.deals is not None or entry.all_deals:
            deals = [Deal(d.piles, d.set_aside, explicit=True) for d in ds.deals_of(entry, indexes)]
        plans.append(Plan(entry.rules, len(ids), deals, list(entry.policies), seeds=seeds, sources=ids,
                          name=entry.name, deal_indexes=[d for _, d in ds.lineage(entry, indexes)],
                          source=shown_source(source if is_remote(source) else Path(source).resolve())))
    return plans, ds.manifest.master_seed


def materialize(source, where: str, out: str | Path, workers: int = 1, shard_size: int = DEFAULT_SHARD_SIZE,
                overwrite: bool = False, progress=None) -> Manifest:
    """A new dataset at `out` with the chosen games of `source` played again, their whole log
    stored; returns its manifest."""
    check_not_source(source, out)
    plans, seed = materialize_plans(source, where)
    return generate(out, plans, seed, workers=workers, overwrite=overwrite, shard_size=shard_size,
                    progress=progress)
