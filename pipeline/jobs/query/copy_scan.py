"""A query that is the `events` view's rows as they are (`SELECT * FROM events`, or some of its
columns, renamed or not: no filter, order, limit, grouping or expression) read straight from the
view's columnar copies (event_copies.py), a row group at a time, without DuckDB: a writer that
wants every row of the log (CSV of 100,000 games is 4.9 GB) then skips DuckDB's hand-off of the
rows to Arrow, which cost twice pyarrow's reading of the same copies, and can read row groups
on several threads. The rows, their order and their values are the view's (local_scan: the
copies in the log's order, `variant` by the rule set of each row's game_id); any other query,
or a session whose events are not read from copies, has no Scan and runs in DuckDB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import QueryError
from ...model.schema import GAME_ID_STRIDE
from .reads import parse_tree

VARIANT = "variant"  # the column the view adds to the copies' (log_views.local_scan)
_EMPTY_NODE = {"modifiers", "group_expressions", "group_sets"}  # a plain SELECT's lists, all empty
_NULL_NODE = {"where_clause", "having", "sample", "qualify"}
_KNOWN_NODE = _EMPTY_NODE | _NULL_NODE | {"type", "cte_map", "select_list", "from_table", "aggregate_handling"}
_EMPTY_STAR = {"exclude_list", "replace_list", "qualified_exclude_list", "rename_list"}
_KNOWN_STAR = _EMPTY_STAR | {"class", "type", "alias", "query_location", "query_location_length", "relation_name",
                             "columns", "expr"}
_KNOWN_REF = {"class", "type", "alias", "query_location", "query_location_length", "column_names"}
_KNOWN_TABLE = {"type", "alias", "sample", "query_location", "query_location_length", "schema_name", "table_name",
                "column_name_alias", "catalog_name", "at_clause", "qualified_name"}


@dataclass(frozen=True)
class Scan:
    """The result's rows read from the copies: column `i` of the result is the view's column
    `sources[i]`, named `names[i]`; `variants` {rule set ordinal: variant}."""
    names: list[str]
    sources: list[str]
    paths: list[str]
    variants: dict[int, str]

    def parts(self) -> list[tuple[int, Callable[[], pa.RecordBatch]]]:
        """(rows, read) of every row group of the copies, in the view's order: `read()` gives
        its rows as a record batch of the result's columns (for a thread of its own)."""
        parts = []
        for path in self.paths:
            meta = _metadata(path)
            for group in range(meta.num_row_groups):
                parts.append((meta.row_group(group).num_rows, _Reader(self, path, group)))
        return parts

    def rows(self) -> int:
        return sum(_metadata(path).num_rows for path in self.paths)


def _metadata(path: str):
    try:
        return pq.read_metadata(path)
    except (pa.ArrowException, OSError) as err:
        raise QueryError(f"the events' copy {path!r} could not be read ({err}); it is remade when removed") from None


class _Reader:
    """One row group of a copy, as the result's record batch (`reader()`), or decoded from its
    pages into a writer's arrays (`decode(room)`: copy_pages)."""

    def __init__(self, scan: Scan, path: str, group: int) -> None:
        self.scan, self.path, self.group = scan, path, group

    @property
    def sources(self) -> list[str]:
        return self.scan.sources

    def decode(self, room):
        """The row group's columns decoded from its pages into `room`'s arrays (copy_pages.Group,
        with `variant` among its columns when the result has it), or None when this machine or
        this copy is not for the decoder: the caller then reads it as a record batch."""
        from . import copy_pages

        scan = self.scan
        wanted = list(dict.fromkeys(s for s in scan.sources if s != VARIANT))
        with_variant = VARIANT in scan.sources
        if with_variant and "game_id" not in wanted:
            wanted.append("game_id")
        try:
            group = copy_pages.read_group(self.path, self.group, wanted, room, spare=1 if with_variant else 0)
        except (pa.ArrowException, OSError) as err:
            raise QueryError(f"the events' copy {self.path!r} could not be read ({err}); "
                             "it is remade when removed") from None
        if group is not None and with_variant:
            _decoded_variant(group, scan.variants)
        return group

    def __call__(self) -> pa.RecordBatch:
        scan = self.scan
        wanted = list(dict.fromkeys(s for s in scan.sources if s != VARIANT))
        if VARIANT in scan.sources and "game_id" not in wanted:
            wanted.append("game_id")
        try:
            table = _row_group(self.path, self.group, wanted)
        except (pa.ArrowException, OSError) as err:
            raise QueryError(f"the events' copy {self.path!r} could not be read ({err}); "
                             "it is remade when removed") from None
        table = table.combine_chunks()
        columns = {name: table.column(name).chunk(0) if table.column(name).num_chunks else
                   pa.array([], table.schema.field(name).type) for name in table.column_names}
        if VARIANT in scan.sources:
            columns[VARIANT] = variant_column(columns["game_id"], scan.variants)
        return pa.RecordBatch.from_arrays([columns[s] for s in scan.sources], names=scan.names)


def _row_group(path: str, group: int, columns: list[str]) -> pa.Table:
    """A row group's columns, read on this thread into memory from the C library's allocator:
    pyarrow's default pool (mimalloc) hands the pages of each row group back to the system and
    faults fresh ones in for the next, 1.2 s of the 4.9 GB CSV's 20 s of CPU. pyarrow's
    ParquetFile takes no pool, so its reader (private: pyarrow._parquet.ParquetReader) is opened
    as ParquetFile opens it; when that is not as expected, ParquetFile reads it."""
    try:
        from pyarrow._parquet import ParquetReader

        reader = ParquetReader(memory_pool=pa.system_memory_pool())
        reader.open(path, use_memory_map=True, pre_buffer=True)
        indices = [reader.column_name_idx(name) for name in columns]
    except (ImportError, TypeError, AttributeError, KeyError):
        return pq.ParquetFile(path, memory_map=True).read_row_group(group, columns=columns, use_threads=False)
    try:
        return reader.read_row_group(group, column_indices=indices, use_threads=False)
    finally:
        reader.close()


def _one_rule_set(ids: np.ndarray) -> int | None:
    """The ordinal of the one rule set every game id (none negative) is of, None when they are
    not so: a row group of a copy always is."""
    low, high = int(ids.min()), int(ids.max())
    return low // GAME_ID_STRIDE if low >= 0 and low // GAME_ID_STRIDE == high // GAME_ID_STRIDE else None


def _variant_codes(ids: np.ndarray, variants: dict[int, str]) -> tuple[list[str], np.ndarray]:
    """The variants' words, sorted, and each row's number among them by its rule set's ordinal
    (-1 for an ordinal the dataset does not hold)."""
    words = sorted(set(variants.values())) or [""]
    ordinals = _truncated(ids)
    codes = np.full(len(ids), -1, np.int32)
    for ordinal, word in variants.items():
        codes[ordinals == ordinal] = words.index(word)
    return words, codes


def variant_column(game_id: pa.Array, variants: dict[int, str]) -> pa.Array:
    """The view's `variant` of each row: its rule set's, by the ordinal in its game_id
    (`CASE game_id // GAME_ID_STRIDE WHEN ordinal THEN variant END`), as dictionary text."""
    n = len(game_id)
    ids = (game_id.fill_null(0) if game_id.null_count else game_id).to_numpy()  # a copy only when it has nulls
    ordinal = _one_rule_set(ids) if n and not game_id.null_count else None
    if ordinal is not None:  # every row group of a copy
        word = variants.get(ordinal)
        indices = pa.array(np.zeros(n, np.int8)) if word is not None else pa.nulls(n, pa.int8())
        return pa.DictionaryArray.from_arrays(indices, pa.array([word or ""], pa.string()))
    words, codes = _variant_codes(ids, variants)
    mask = codes < 0
    if game_id.null_count:
        mask |= game_id.is_null().to_numpy(zero_copy_only=False)
    return pa.DictionaryArray.from_arrays(pa.array(np.where(mask, 0, codes), mask=mask), pa.array(words, pa.string()))


def _decoded_variant(group, variants: dict[int, str]) -> None:
    """The view's `variant` of each row of a decoded row group (variant_column's words), as a
    dictionary column of the group: its word numbers in the spare row of `numbers`."""
    from .copy_pages import WORDS, Column

    ids_column = group.columns["game_id"]
    ids = group.numbers[ids_column.slot]
    row, valid_row = group.spare
    codes = group.numbers[row]
    known = ids_column.nulls < 0 or bool(group.valid[ids_column.nulls].all())
    n = group.rows
    ordinal = _one_rule_set(ids) if n and known else None
    if ordinal is not None:
        word = variants.get(ordinal)
        words = [word or ""]
        codes[:] = group.words
        mask = None if word is not None else np.ones(n, bool)
    else:
        words, code = _variant_codes(ids, variants)
        mask = code < 0
        if ids_column.nulls >= 0:
            mask |= group.valid[ids_column.nulls] == 0
        np.add(np.where(mask, 0, code), group.words, out=codes)
    nulls = -1
    if mask is not None and mask.any():
        group.valid[valid_row] = ~mask
        nulls = valid_row
    encoded = [w.encode() for w in words]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    offsets[1:] = np.cumsum([len(w) for w in encoded])
    text = np.frombuffer(b"".join(encoded), np.uint8).copy()
    group.columns[VARIANT] = Column(WORDS, row, nulls, first=group.words, offsets=offsets, text=text)
    group.words += len(words)


def _truncated(ids: np.ndarray) -> np.ndarray:
    """game_id // GAME_ID_STRIDE as DuckDB divides integers (towards zero)."""
    ids = np.asarray(ids, np.int64)
    return np.sign(ids) * (np.abs(ids) // GAME_ID_STRIDE)


def scan_of(result) -> Scan | None:
    """The Scan that reads `result` (a query's Result) from the events view's copies, or None
    when its query is anything but the view's columns as they are, the view is not read from
    copies, or DuckDB is given a time limit for it."""
    copies = getattr(result.session, "copies", None)
    guard = result.guard
    if not copies or (guard is not None and (guard.limit is not None or guard.step_limit is not None)):
        return None  # a time limit is DuckDB's to keep (guard.py)
    try:
        sql = result.relation.sql_query()
    except Exception:  # a relation DuckDB cannot say as SQL
        return None
    tree = parse_tree(sql)
    if tree is None or len(tree.get("statements") or []) != 1:
        return None
    sources = _plain_columns(tree["statements"][0].get("node") or {}, _view_columns(copies[0]))
    names = list(result.relation.columns)
    if sources is None or len(sources) != len(names):
        return None
    variants = {e.ordinal: e.rules.variant for e in result.session.rule_sets}
    return Scan(names, sources, list(copies), variants)


def _view_columns(path: str) -> list[str]:
    return list(pq.read_schema(path).names) + [VARIANT]


def _plain_columns(node: dict, view: list[str]) -> list[str] | None:
    """The view's columns a SELECT node lists, in order, when it is no more than that."""
    if node.get("type") != "SELECT_NODE" or set(node) - _KNOWN_NODE:
        return None
    if any(node.get(k) for k in _EMPTY_NODE) or any(node.get(k) is not None for k in _NULL_NODE):
        return None
    if (node.get("cte_map") or {}).get("map") or node.get("aggregate_handling") != "STANDARD_HANDLING":
        return None
    table = node.get("from_table") or {}
    if table.get("type") != "BASE_TABLE" or set(table) - _KNOWN_TABLE or table.get("sample") is not None \
            or table.get("column_name_alias") or table.get("at_clause") is not None or table.get("catalog_name") \
            or str(table.get("table_name", "")).lower() != "events" \
            or str(table.get("schema_name", "")).lower() not in ("", "main"):
        return None
    names = {str(table.get("alias") or "events").lower()}
    by_lower = {c.lower(): c for c in view}
    sources: list[str] = []
    for item in node.get("select_list") or []:
        if item.get("class") == "STAR" and item.get("type") == "STAR":
            if set(item) - _KNOWN_STAR or any(item.get(k) for k in _EMPTY_STAR) or item.get("columns") \
                    or item.get("expr") is not None or item.get("alias") \
                    or (item.get("relation_name") and item["relation_name"].lower() not in names):
                return None
            sources += view
        elif item.get("class") == "COLUMN_REF" and item.get("type") == "COLUMN_REF":
            parts = [str(p) for p in item.get("column_names") or []]
            if set(item) - _KNOWN_REF or not parts or len(parts) > 2 or \
                    (len(parts) == 2 and parts[0].lower() not in names) or parts[-1].lower() not in by_lower:
                return None
            sources.append(by_lower[parts[-1].lower()])
        else:
            return None
    return sources or None
