"""Where a game comes from, when it was taken from another dataset (`war generate --from`): the
dataset as given then (RuleSetEntry.source), the game's game_id there and its deal_index where it
had one, all kept in the rule set's seeds file (Dataset.lineage), which replay and the games
view read.
"""

from __future__ import annotations

from ..model.schema import GAME_ID_STRIDE, RuleSetEntry
from ..storage.dataset import Dataset


def source_of(ds: Dataset, entry: RuleSetEntry, game_id: int) -> dict | None:
    """Where game `game_id` of rule set `entry` comes from: {"dataset" (None in a manifest written
    before it was kept), "game_id", "deal_index" (or None)}; None for a game played here."""
    if entry.seeds is None:
        return None
    [(game, deal)] = ds.lineage(entry, [game_id - entry.ordinal * GAME_ID_STRIDE])
    return {"dataset": entry.source, "game_id": game, "deal_index": deal}


def source_line(source: dict) -> str:
    """The source of a taken game in words: `Copied from game 17 of data/classic (war generate
    --from), deal 139059 of every deal of its deck`."""
    where = f" of {source['dataset']}" if source.get("dataset") else " of the dataset it was taken from"
    deal = f", deal {source['deal_index']} of every deal of its deck" if source.get("deal_index") is not None else ""
    return f"Copied from game {source['game_id']}{where} (war generate --from){deal}"
