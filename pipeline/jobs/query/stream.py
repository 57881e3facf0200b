"""A query's result, streamed: Arrow record batches of a bounded size, never the whole result
at once, as they are or with the columns a CSV or JSON Lines writer needs; DuckDB's errors
while the rows flow arrive as QueryErrors.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pyarrow as pa

from .safety import sql_error
from .session import Session, lock

BATCH_ROWS = 1 << 17  # rows per Arrow batch: a few MB, whatever the result's size
NESTED = {"list", "struct", "map", "array", "union"}
AS_TEXT = {"enum", "interval", "uuid", "bit", "blob", "time_tz", "varint", "bignum"}


@dataclass
class Result:
    """A query ready to run in a locked session: its columns are known (binding only); its rows
    are produced, batch by batch, by `batches`, `csv_batches` or `json_lines`."""
    session: Session
    relation: duckdb.DuckDBPyRelation
    explain: bool = False
    note: str | None = None  # what a reader of the result should know: a log the dataset lacks

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
        self.session.close()

    @property
    def columns(self) -> list[tuple[str, str]]:
        """(name, DuckDB type) of every result column, without running the query."""
        return [(name, str(type_)) for name, type_ in zip(self.relation.columns, self.relation.types)]

    def _stream(self, relation) -> "_Guarded":
        """The rows of the relation `relation()` builds on this one, its errors as QueryErrors."""
        try:
            reader = relation().to_arrow_reader(BATCH_ROWS)
        except duckdb.Error as err:
            raise sql_error(err) from None
        return _Guarded(reader)

    def _rows(self, limit: int | None):
        return self.relation if limit is None else self.relation.limit(limit)

    def batches(self, limit: int | None = None) -> "_Guarded":
        """The rows (the first `limit` of them) as Arrow record batches, in the query's order."""
        return self._stream(lambda: self._rows(limit))

    def count(self) -> int:
        """How many rows the result has, without carrying them out of DuckDB."""
        try:
            return self.relation.aggregate("count(*)").fetchall()[0][0]
        except duckdb.Error as err:
            raise sql_error(err) from None

    def csv_batches(self, limit: int | None = None) -> "_Guarded":
        """The rows with lists, structs and maps as JSON text, and other types a CSV file cannot
        hold as text: what CSV needs."""
        exprs, changed = [], False
        for i, (name, type_) in enumerate(zip(self.relation.columns, self.relation.types), start=1):
            if type_.id in NESTED:
                exprs.append(f"CAST(to_json(#{i}) AS VARCHAR) AS {_ident(name)}")
                changed = True
            elif type_.id in AS_TEXT:
                exprs.append(f"CAST(#{i} AS VARCHAR) AS {_ident(name)}")
                changed = True
            else:
                exprs.append(f"#{i} AS {_ident(name)}")
        return self._stream(lambda: self._rows(limit).project(", ".join(exprs)) if changed else self._rows(limit))

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


class _Guarded:
    """A RecordBatchReader whose DuckDB errors become QueryErrors."""

    def __init__(self, reader: pa.RecordBatchReader) -> None:
        self.reader = reader
        self.schema = reader.schema

    def __iter__(self):
        while True:
            try:
                batch = self.reader.read_next_batch()
            except StopIteration:
                return
            except (duckdb.Error, pa.ArrowException) as err:
                raise sql_error(err) from None
            yield batch
