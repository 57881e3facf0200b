"""The `counts` view: every game of every rule set that plays every deal, counted by kind (outcome,
winner, first of its class, battles, cards laid, cycle length and key), with the first deal of
each kind. A rule set stored as counts (`--log counts`) gives its counts file's rows; one stored a
row a deal gives the same rows, counted from its games, so an exact query reads this view alone
and answers the same from either (a test holds them equal). Its `exact` column says whether the
row's rule set counts every deal of its deck and its deal alone decides each game
(every_deal.exact_every_deal): only then is a share of its rows an exact probability, and every
exact query reads only those rows."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...model.names import rule_set_names
from ...model.schema import GAME_ID_STRIDE
from ...storage.location import glob_literal
from .every_deal import exact_every_deal
from .log_views import sql_literal

COLUMNS = ("outcome", "winner", "first_of_class", "battles", "cards_laid", "cycle_length", "cycle_key")


def counts_sql(entries, files: dict[int, str]) -> str:
    """The view's SQL: each counts rule set's file (`files`: its local path by ordinal), then the
    games of the rule sets that store a row a deal, counted."""
    names = rule_set_names(entries)
    exact = sorted(e.ordinal for e in entries if exact_every_deal(e))
    parts = []
    for e in entries:
        if e.ordinal in files:
            parts.append(f"SELECT {sql_literal(e.rules.variant)} AS variant, {sql_literal(e.rules_id)} AS rules_id, "
                         f"{sql_literal(names[e.ordinal])} AS rule_set, CAST({e.ordinal} AS BIGINT) AS ordinal, "
                         f"{', '.join(COLUMNS)}, games, first_deal, {'true' if e.ordinal in exact else 'false'} AS exact "
                         f"FROM read_parquet([{sql_literal(glob_literal(files[e.ordinal]))}], hive_partitioning = false)")
    ordinal = f"game_id // {GAME_ID_STRIDE}"
    exact_sql = f"{ordinal} IN ({', '.join(map(str, exact))})" if exact else "false"
    parts.append(f"SELECT variant, rules_id, rule_set, {ordinal} AS ordinal, "
                 f"{', '.join(COLUMNS)}, count(*) AS games, min(deal_index) AS first_deal, {exact_sql} AS exact "
                 f"FROM games WHERE deal = 'all' GROUP BY ALL")
    return "CREATE VIEW counts AS " + " UNION ALL ".join(parts)


def create_counts_view(con, entries, files: dict[int, str]) -> None:
    """The view, and `war_enumerated_piles(ordinal, deal)`: a deal of a rule set's enumeration,
    each seat's pile as card codes top first (a counts rule set's first deals go past the game
    ids' range)."""
    enumerated = {e.ordinal: e.rules for e in entries if e.all_deals}

    def piles(ordinals: pa.Array, deals: pa.Array) -> pa.Array:
        from ...engines.compiled.deals import deals_at  # numba: only when a counts dataset's deals are read

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

