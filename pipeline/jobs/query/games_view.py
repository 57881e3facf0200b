"""The `games` view: the games files' rows, and what the files do not store but a game's rule set
says: its rule set's name, which deal of its deck it played and that deal's piles, and, for a
game taken from another dataset (`war generate --from`), the game it copies there.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa

from ...log.tables import GAME_SCHEMA, game_schema
from ...model.all_deals import seats_alike
from ...model.names import rule_set_names, rules_names
from ...model.schema import GAME_ID_STRIDE, SCHEMA_VERSION
from .log_views import by_ordinal, sql_literal

_SQL_TYPES = {"int32": "INTEGER", "int64": "BIGINT"}  # of the columns later schema versions added


def games_view(con, entries, version: int = SCHEMA_VERSION, lineage: Callable | None = None) -> None:
    """The `games` view: the games files' rows (null in the columns a dataset of an older schema
    `version` does not have), then `deal_index` (which deal of its deck a game played: for a rule
    set that plays every deal, `--all-deals`, its game_index; for a game taken from a dataset
    where it had one, that one; else null), `piles` (that deal: each seat's pile, card codes top
    first, computed from its number), `swapped_index` (two seats, `--all-deals`: the number of
    the same deal with the seats' piles swapped; null where the seats hold different numbers of
    cards, `deal = first_short` of an odd deck, whose swap is no deal), `first_of_class` (two seats: whether
    deal_index <= swapped_index, found without computing swapped_index, which would cost a query
    over every deal of a 12-card deck most of its time), `source_game_id` (a game taken from
    another dataset: its game_id there) and `rule_set` (its rule set's name, model.names).
    `lineage(entry)` gives each game of a rule set with a seeds file its (source game, deal
    index) (Dataset.lineage), read when a query first asks. The macros of the rule sets' names
    come with it (rule_set_macros)."""
    enumerated = {e.ordinal: e.rules for e in entries if e.all_deals and not e.deals}  # not a counts one's kept
    taken = {e.ordinal: e for e in entries if e.seeds is not None}
    read: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def taken_of(ordinal: int) -> tuple[np.ndarray, np.ndarray]:
        """A taken rule set's source games and deal indexes by game_index, -1 for none."""
        if ordinal not in read:
            pairs = lineage(taken[ordinal]) if lineage is not None else []
            read[ordinal] = (np.array([-1 if s is None else s for s, _ in pairs], np.int64),
                             np.array([-1 if d is None else d for _, d in pairs], np.int64))
        return read[ordinal]

    def deal_numbers(ordinal: int, indexes: np.ndarray) -> np.ndarray:
        """The deal_index of these games of a rule set, -1 where it has none."""
        if ordinal in enumerated:
            return indexes
        if ordinal in taken:
            return taken_of(ordinal)[1][indexes]
        return np.full(len(indexes), -1, np.int64)

    def rules_of(ordinal: int):
        return enumerated.get(ordinal) or (taken[ordinal].rules if ordinal in taken else None)

    def piles(game_ids: pa.Array) -> pa.Array:
        ids = game_ids.to_numpy(zero_copy_only=False)
        out = [None] * len(ids)
        ordinals = ids // GAME_ID_STRIDE
        for ordinal in np.unique(ordinals):
            rules = rules_of(int(ordinal))
            if rules is None:
                continue
            where = np.flatnonzero(ordinals == ordinal)
            numbers = deal_numbers(int(ordinal), ids[where] - ordinal * GAME_ID_STRIDE)
            where, numbers = where[numbers >= 0], numbers[numbers >= 0]
            if not len(where):
                continue
            dealt = _deals().deals_at(rules, numbers)
            for row, cards, sizes in zip(where, dealt.cards, dealt.sizes):
                bounds = np.concatenate([[0], np.cumsum(sizes[:-1])])
                out[row] = [cards[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
        return pa.array(out, pa.list_(pa.list_(pa.int16())))

    def of_two_seats(game_ids: pa.Array, answer, dtype, arrow_type, alike: bool = False) -> pa.Array:
        """`answer(rules, deal numbers)` for the games of two-seat rule sets that play every
        deal (with `alike`, only those whose seats hold as many cards), null for the others."""
        ids = game_ids.to_numpy(zero_copy_only=False)
        out = np.zeros(len(ids), dtype)
        known = np.zeros(len(ids), np.bool_)
        ordinals = ids // GAME_ID_STRIDE
        for ordinal in np.unique(ordinals):
            rules = enumerated.get(int(ordinal))
            if rules is not None and rules.players == 2 and (not alike or seats_alike(rules)):
                where = np.flatnonzero(ordinals == ordinal)
                out[where] = answer(rules, ids[where] - ordinal * GAME_ID_STRIDE)
                known[where] = True
        return pa.array(out, arrow_type, mask=~known)

    def of_taken(column: int) -> Callable[[pa.Array], pa.Array]:
        def answer(game_ids: pa.Array) -> pa.Array:
            ids = game_ids.to_numpy(zero_copy_only=False)
            out = np.full(len(ids), -1, np.int64)
            ordinals = ids // GAME_ID_STRIDE
            for ordinal in np.unique(ordinals):
                if int(ordinal) in taken:
                    where = np.flatnonzero(ordinals == ordinal)
                    out[where] = taken_of(int(ordinal))[column][ids[where] - ordinal * GAME_ID_STRIDE]
            return pa.array(out, pa.int64(), mask=out < 0)
        return answer

    def swapped(game_ids: pa.Array) -> pa.Array:
        return of_two_seats(game_ids, _deals().swapped_indexes, np.int64, pa.int64(), alike=True)

    def first(game_ids: pa.Array) -> pa.Array:
        return of_two_seats(game_ids, _deals().first_of_class, np.bool_, pa.bool_())

    for name, function, returns in (("war_deal_piles", piles, "SMALLINT[][]"), ("war_swapped_deal", swapped, "BIGINT"),
                                    ("war_first_of_class", first, "BOOLEAN"),
                                    ("war_source_game", of_taken(0), "BIGINT"), ("war_source_deal", of_taken(1), "BIGINT")):
        con.create_function(name, function, ["BIGINT"], returns, type="arrow", null_handling="special",
                            side_effects=False)
    older = "".join(f"CAST(NULL AS {_SQL_TYPES[str(f.type)]}) AS {f.name}, " for f in GAME_SCHEMA
                    if f.name not in game_schema(version).names)
    copied = f"game_id // {GAME_ID_STRIDE} IN ({', '.join(map(str, taken))})" if taken else "false"
    names = rule_set_names(entries)
    con.execute(f"CREATE VIEW games AS SELECT *, {older}"
                f"CASE WHEN deal = 'all' THEN game_index WHEN {copied} THEN war_source_deal(game_id) END AS deal_index, "
                f"CASE WHEN deal = 'all' OR {copied} THEN war_deal_piles(game_id) END AS piles, "
                "CASE WHEN deal = 'all' AND players = 2 THEN war_swapped_deal(game_id) END AS swapped_index, "
                "CASE WHEN deal = 'all' AND players = 2 THEN war_first_of_class(game_id) END AS first_of_class, "
                f"CASE WHEN {copied} THEN war_source_game(game_id) END AS source_game_id, "
                f"{by_ordinal(entries, lambda e: names[e.ordinal])} AS rule_set FROM game_rows")
    rule_set_macros(con, entries)


def rule_set_macros(con, entries) -> None:
    """Two macros of a rule set's name (`rule_set`, or the rules' name `rules_name`):
    `rule_set_order(name)`, its place in the dataset (the first ordinal of that name), by which
    the named queries give their rule sets in the dataset's order, not the alphabet's; and
    `rule_set_policies(name)`, its seats' policies in full, seat 0 first (games.policies; empty
    for a variant without decisions), the `policies` beside a seating's short name. Null for a
    name the dataset does not have."""
    names, bases = rule_set_names(entries), rules_names(entries)
    order: dict[str, int] = {}
    seats: dict[str, list[str]] = {}
    for e in sorted(entries, key=lambda e: e.ordinal):
        for name in (names[e.ordinal], bases[(e.rules_id,)]):
            order.setdefault(name, e.ordinal)
        seats.setdefault(names[e.ordinal], list(e.policies))

    def case(values: dict, said, none: str) -> str:
        cases = " ".join(f"WHEN {sql_literal(k)} THEN {said(v)}" for k, v in values.items())
        return f"CASE name {cases} END" if cases else none

    def listed(policies: list[str]) -> str:
        return f"CAST([{', '.join(map(sql_literal, policies))}] AS VARCHAR[])"

    con.execute(f"CREATE MACRO rule_set_order(name) AS {case(order, str, 'CAST(NULL AS BIGINT)')}")
    con.execute(f"CREATE MACRO rule_set_policies(name) AS {case(seats, listed, 'CAST(NULL AS VARCHAR[])')}")


def _deals():
    """The compiled deals (numba): imported when a view's deal columns are read, not when a
    session opens, so a query that reads none of them starts without numba."""
    from ...engines.compiled import deals

    return deals
