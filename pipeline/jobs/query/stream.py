"""A query's result, streamed: Arrow record batches of a bounded size, never the whole result
at once, as they are, with the columns a CSV or JSON Lines writer needs, or as a person reads
them (`shown_batches`); DuckDB's errors while the rows flow arrive as QueryErrors. Every step
inside DuckDB runs under the result's guard (guard.py): Ctrl-C, a time limit or a reader that
went away stops it.

Every type DuckDB returns has a form in every output: a writer gets the types it can write as
they are and any other as DuckDB's own text of it (JSON for nested values), so a type added to
DuckDB later is written as text rather than failing; Parquet refuses by name what it cannot
hold (parquet_refusal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import duckdb
import pyarrow as pa

from ...errors import QueryError
from .guard import Guard
from .safety import sql_error
from .session import Session, lock

BATCH_ROWS = 1 << 17  # rows per Arrow batch: a few MB, whatever the result's size
NESTED = {"list", "struct", "map", "array", "union", "tuple", "variant"}  # CSV: as JSON text
NUMBERS = {"boolean", "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint", "uinteger",
           "ubigint", "uhugeint", "float", "double", "decimal"}
CSV_AS_IS = NUMBERS | {"varchar", "date", "time", "time_ns", "timestamp", "timestamp_s", "timestamp_ms",
                       "timestamp_ns", "timestamp with time zone", "timestamptz_ns"}  # pyarrow's CSV writer writes these
ORDERED = NUMBERS | {"varchar", "date", "time", "timestamp", "timestamp_s", "timestamp_ms", "timestamp_ns",
                     "timestamp with time zone", "uuid", "enum"}  # each a column's one value can be told of
INTEGERS = {"tinyint", "smallint", "integer", "bigint", "utinyint", "usmallint", "uinteger", "ubigint"}
CSV_NATIVE = INTEGERS | {"boolean", "varchar", "enum"}  # csv_text writes these, and lists of INTEGERS
SHOWN_NESTED = {"list", "struct", "array"}  # a person reads these as Python gives them, when their parts are plain


@dataclass
class Result:
    """A query ready to run in a locked session: its columns are known (binding only); its rows
    are produced, batch by batch, by `batches`, `csv_batches` or `json_lines`."""
    session: Session
    relation: duckdb.DuckDBPyRelation
    explain: bool = False
    note: str | None = None  # what a reader of the result should know: a log the dataset lacks
    guard: Guard | None = None  # stops its DuckDB work (None: one without limits, which Ctrl-C stops)
    on_close: list[Callable[[], None]] = field(default_factory=list)  # called once it is closed
    readers: list[pa.RecordBatchReader] = field(default_factory=list)  # its streams, ended before the session
    closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.guard is None:
            self.guard = Guard(self.session)

    @classmethod
    def of_table(cls, table: pa.Table) -> "Result":
        """A Result over a table already in memory (a library caller's `run` result)."""
        con = duckdb.connect()
        relation = con.from_arrow(table)
        lock(con, [], [])
        return cls(Session(con), relation)

    def __enter__(self) -> "Result":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        try:
            self._end_streams()
            self.session.close()
        finally:
            while self.on_close:
                self.on_close.pop()()

    def _end_streams(self) -> None:
        """End the streams a reader left before their end (a full disk, a client gone): their
        query interrupted, then each stream closed while the connection and the Python functions
        its views call still exist. Closing the connection under a stream whose DuckDB threads
        were still calling one of those functions crashed the process."""
        if not self.readers:
            return
        try:
            self.session.con.interrupt()
        except Exception:  # closed already
            pass
        while self.readers:
            try:
                self.readers.pop().close()
            except Exception:  # the interrupt's own error, or closed already
                pass

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(name, DuckDB type) of every result column, without running the query."""
        return [(name, str(type_)) for name, type_ in zip(self.relation.columns, self.relation.types)]

    def _stream(self, relation) -> "_Guarded":
        """The rows of the relation `relation()` builds on this one, its errors as QueryErrors."""
        self._open()
        try:
            with self.guard.step():
                reader = relation().to_arrow_reader(BATCH_ROWS)
        except (duckdb.Error, pa.ArrowException, OSError) as err:
            raise sql_error(err) from None
        self.readers.append(reader)
        return _Guarded(reader, self.guard)

    def _open(self) -> None:
        if self.closed:  # else DuckDB's "Connection has already been closed", said as an SQL error
            raise QueryError("this result is closed (its `with` block ended, or close() was called): "
                             "open the query again to read its rows")

    def _rows(self, limit: int | None):
        return self.relation if limit is None else self.relation.limit(limit)

    def batches(self, limit: int | None = None) -> "_Guarded":
        """The rows (the first `limit` of them) as Arrow record batches, in the query's order."""
        return self._stream(lambda: self._rows(limit))

    def count(self) -> int:
        """How many rows the result has, without carrying them out of DuckDB."""
        self._open()
        try:
            with self.guard.step():
                return self.relation.aggregate("count(*)").fetchall()[0][0]
        except duckdb.Error as err:
            raise sql_error(err) from None

    def choose(self, names) -> "Result":
        """Only the columns `names`, in that order (`war query --columns a,b,c`); an unknown
        or twice-given name is a QueryError naming it and the columns there are."""
        names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
        have = list(self.relation.columns)
        if not names or not all(names):
            raise QueryError("`columns` wants column names separated by commas (a,b,c)", params=("columns",))
        picked = []
        for name in names:
            where = [i for i, c in enumerate(have, 1) if c == name] or \
                    [i for i, c in enumerate(have, 1) if c.lower() == name.lower()]
            if not where:
                raise QueryError(f"`columns`: no column {name!r} in the result (its columns: {', '.join(have)})",
                                 params=("columns",))
            if where[0] in picked:
                raise QueryError(f"`columns` gives {name!r} twice", params=("columns",))
            picked.append(where[0])
        self.relation = self.relation.project(", ".join(f"#{i} AS {_ident(have[i - 1])}" for i in picked))
        return self

    def constant(self, positions: list[int]) -> tuple[int, set[int]]:
        """How many rows the result has, and which of the columns at `positions` (0-based) hold
        one value in every row (a null in every row included), in one pass over the result in
        DuckDB, carrying no row out of it. A column of a type that DuckDB does not order is
        never said to be one value."""
        ordered = [i for i in positions if _plain(self.relation.types[i], ORDERED)]
        checks = [f"count(#{i + 1}) = 0 OR (count(#{i + 1}) = count(*) AND min(#{i + 1}) = max(#{i + 1}))"
                  for i in ordered]
        try:
            with self.guard.step():
                row = self.relation.aggregate(", ".join(["count(*)"] + [f"coalesce({c}, false)" for c in checks])
                                              ).fetchall()[0]
        except duckdb.Error as err:
            raise sql_error(err) from None
        return row[0], {i for i, same in zip(ordered, row[1:]) if same}

    def _projected(self, limit: int | None, form: Callable[[int, str, object], str]) -> "_Guarded":
        """The rows with each column as `form(position, quoted name, type)` says, as SQL."""
        exprs = [form(i, _ident(name), type_)
                 for i, (name, type_) in enumerate(zip(self.relation.columns, self.relation.types), start=1)]
        changed = any(e != f"#{i} AS {_ident(name)}" for i, (e, name) in enumerate(zip(exprs, self.relation.columns), 1))
        return self._stream(lambda: self._rows(limit).project(", ".join(exprs)) if changed else self._rows(limit))

    def shown_batches(self, limit: int | None = None, chars: int = 1000) -> "_Guarded":
        """The rows as a person reads them (a table, a page): numbers, text and lists and
        structs of them as they are, text cut to `chars` characters in DuckDB (a page never
        carries a 100 MB value to show 40 characters of it), and every other type as DuckDB's
        text of it (a blob's escapes, a date Python cannot hold such as `infinity`)."""
        def form(i: int, name: str, type_) -> str:
            if type_.id == "varchar":
                return f"left(#{i}, {chars}) AS {name}"
            if _plain(type_, NUMBERS | {"varchar"}):
                return f"#{i} AS {name}"
            return f"left(CAST(#{i} AS VARCHAR), {chars}) AS {name}"
        return self._projected(limit, form)

    def csv_native(self) -> bool:
        """Whether every column is of a type the compiled CSV writer formats from Arrow itself
        (present/csv_text.py): integers, booleans, text, enums and lists of integers."""
        return all(_csv_native(t) for t in self.relation.types)

    def csv_batches(self, limit: int | None = None, native: bool = False) -> "_Guarded":
        """The rows with lists, structs, maps, unions and variants as JSON text, and any type
        pyarrow's CSV writer does not write as DuckDB's text of it: what CSV needs. `native`
        (when `csv_native`): lists of integers and enums as they are, for csv_text to write
        (DuckDB's to_json of every list was most of the time of events to CSV)."""
        def form(i: int, name: str, type_) -> str:
            if native and _csv_native(type_):
                return f"#{i} AS {name}"
            if type_.id in NESTED:
                return f"CAST(to_json(#{i}) AS VARCHAR) AS {name}"
            if type_.id not in CSV_AS_IS:
                return f"CAST(#{i} AS VARCHAR) AS {name}"
            return f"#{i} AS {name}"
        return self._projected(limit, form)

    def json_lines(self, limit: int | None = None) -> "_Guarded":
        """One column `json`: each row as a JSON object text (NaN and infinities as null, which
        JSON has no other way to say; in columns and lists of numbers, not deeper)."""
        exprs = []
        for i, (name, type_) in enumerate(zip(self.relation.columns, self.relation.types), start=1):
            if type_.id in ("double", "float"):
                exprs.append(f"CASE WHEN isfinite(#{i}) THEN #{i} END AS {_ident(name)}")
            elif str(type_) in ("DOUBLE[]", "FLOAT[]"):
                exprs.append(f"list_transform(#{i}, lambda x: CASE WHEN isfinite(x) THEN x END) AS {_ident(name)}")
            else:
                exprs.append(f"#{i} AS {_ident(name)}")
        return self._stream(lambda: self._rows(limit).project(", ".join(exprs)).set_alias("_row")
                            .project("CAST(to_json(_row) AS VARCHAR) AS json"))


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _csv_native(type_) -> bool:
    if type_.id == "list":
        return type_.children[0][1].id in INTEGERS
    return type_.id in CSV_NATIVE


def _plain(type_, allowed: set[str]) -> bool:
    """Whether a DuckDB type is one of `allowed`, or a list, struct or array of such types."""
    if type_.id in SHOWN_NESTED:
        return all(_plain(t, allowed) for _, t in type_.children if hasattr(t, "id"))
    return type_.id in allowed


def parquet_refusal(schema: pa.Schema, columns: list[tuple[str, str]]) -> QueryError | None:
    """Why a result of this Arrow `schema` (whose DuckDB types are `columns`) cannot be written
    as Parquet: the first column of a type Parquet cannot hold (a union, an interval, a struct
    without fields), by name; None when it can."""
    import pyarrow.parquet as pq

    for (name, duck_type), f in zip(columns, schema):
        try:
            pq.ParquetWriter(pa.BufferOutputStream(), pa.schema([f])).close()
        except (pa.ArrowException, ValueError, TypeError):
            return QueryError(f"Parquet cannot hold column {name!r} of type {duck_type}; cast it in the SQL "
                              f"(CAST({_ident(name)} AS VARCHAR)), or choose another format")
    return None


class _Guarded:
    """A RecordBatchReader whose DuckDB work runs under the result's guard and whose errors
    become QueryErrors (Arrow's stream of batches hands DuckDB's errors over as OSErrors)."""

    def __init__(self, reader: pa.RecordBatchReader, guard: Guard) -> None:
        self.reader, self.guard = reader, guard
        self.schema = reader.schema

    def __iter__(self) -> "_Guarded":
        return self

    def __next__(self) -> pa.RecordBatch:
        """The next batch (an iterator, as Arrow's reader is: `next(result.batches())` works)."""
        try:
            with self.guard.step():
                return self.reader.read_next_batch()
        except StopIteration:
            raise
        except (duckdb.Error, pa.ArrowException, OSError) as err:
            raise sql_error(err) from None
