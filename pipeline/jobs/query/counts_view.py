"""The `counts` view: every game of every rule set that plays every deal, counted by kind (outcome,
winner, first of its class, battles, cards laid, cycle length and key), with the first deal of
each kind. A rule set stored as counts (`--log counts`) gives its counts file's rows; one stored a
row a deal gives the same rows, counted from its games, so an exact query reads this view alone
and answers the same from either (a test holds them equal)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...engines.compiled.deals import deals_at
from ...model.schema import GAME_ID_STRIDE, rule_set_names
from ...storage.location import glob_literal

COLUMNS = ("outcome", "winner", "first_of_class", "battles", "cards_laid", "cycle_length", "cycle_key")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def counts_sql(entries, files: dict[int, str]) -> str:
    """The view's SQL: each counts rule set's file (`files`: its local path by ordinal), then the
    games of the rule sets that store a row a deal, counted."""
    names = rule_set_names(entries)
    parts = []
    for e in entries:
        if e.ordinal in files:
            parts.append(f"SELECT {_quote(e.rules.variant)} AS variant, {_quote(e.rules_id)} AS rules_id, "
                         f"{_quote(names[e.rules_id])} AS rule_set, CAST({e.ordinal} AS BIGINT) AS ordinal, "
                         f"{', '.join(COLUMNS)}, games, first_deal "
                         f"FROM read_parquet([{_quote(glob_literal(files[e.ordinal]))}], hive_partitioning = false)")
    parts.append(f"SELECT variant, rules_id, rule_set, game_id // {GAME_ID_STRIDE} AS ordinal, "
                 f"{', '.join(COLUMNS)}, count(*) AS games, min(deal_index) AS first_deal "
                 f"FROM games WHERE deal = 'all' GROUP BY ALL")
    return "CREATE VIEW counts AS " + " UNION ALL ".join(parts)


def create_counts_view(con, entries, files: dict[int, str]) -> None:
    """The view, and `war_enumerated_piles(ordinal, deal)`: a deal of a rule set's enumeration,
    each seat's pile as card codes top first (a counts rule set's first deals go past the game
    ids' range)."""
    enumerated = {e.ordinal: e.rules for e in entries if e.all_deals}

    def piles(ordinals: pa.Array, deals: pa.Array) -> pa.Array:
        ords = ordinals.to_numpy(zero_copy_only=False)
        idx = deals.to_numpy(zero_copy_only=False)
        out = [None] * len(ords)
        for ordinal in np.unique(ords):
            rules = enumerated.get(int(ordinal))
            if rules is None:
                continue
            where = np.flatnonzero(ords == ordinal)
            dealt = deals_at(rules, idx[where].astype(np.int64))
            for row, cards, sizes in zip(where, dealt.cards, dealt.sizes):
                bounds = np.concatenate([[0], np.cumsum(sizes[:-1])])
                out[row] = [cards[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
        return pa.array(out, pa.list_(pa.list_(pa.int16())))

    con.create_function("war_enumerated_piles", piles, ["BIGINT", "BIGINT"], "SMALLINT[][]", type="arrow",
                        null_handling="special", side_effects=False)
    con.execute(counts_sql(entries, files))


def kept_deals(ds) -> dict[int, np.ndarray]:
    """Each counts rule set's kept games' deal numbers (`--keep`), game by game, from its deals
    file, by ordinal."""
    import json

    out = {}
    for e in ds.manifest.rule_sets:
        if e.log == "counts" and e.deals:
            lines = (ds.root / e.deals).read_text(encoding="utf-8").splitlines()
            out[e.ordinal] = np.array([json.loads(line).get("deal_index", -1) for line in lines], np.int64)
    return out


def kept_deal_sql(con, kept: dict[int, np.ndarray]) -> str:
    """The SQL of a games row's deal number where its rule set keeps some of the games it counts:
    `war_kept_deal(game_id)`, registered here; 'NULL' when no rule set keeps any."""
    if not kept:
        return "NULL"

    def number(game_ids: pa.Array) -> pa.Array:
        ids = game_ids.to_numpy(zero_copy_only=False)
        out = np.full(len(ids), -1, np.int64)
        for ordinal, deals in kept.items():
            where = np.flatnonzero(ids // GAME_ID_STRIDE == ordinal)
            index = ids[where] - ordinal * GAME_ID_STRIDE
            inside = index < len(deals)
            out[where[inside]] = deals[index[inside]]
        return pa.array(out, pa.int64(), mask=out < 0)

    con.create_function("war_kept_deal", number, ["BIGINT"], "BIGINT", type="arrow", null_handling="special",
                        side_effects=False)
    ordinals = ", ".join(str(o) for o in kept)
    return f"CASE WHEN game_id // {GAME_ID_STRIDE} IN ({ordinals}) THEN war_kept_deal(game_id) END"
