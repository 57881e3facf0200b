"""`war.connect`'s connection: DuckDB's own, every statement first checked as `war query` checks
its SQL, and each answer from the dataset as it was when the connection opened.

DuckDB's lock (session.lock) says where a connection may touch files, not whether it writes:
inside the dataset's folder, `COPY ... TO 'manifest.json'` overwrote the manifest. And a
connection outlives the files it read: after `--overwrite` its `games` view read the new files
while `events` kept the old columnar copies, one answer from two datasets. So the connection is
DuckDB's behind a door that asks both questions before each statement, and so is every
relation it hands out (Relation): DuckDB's `rel.to_parquet('manifest.json')` wrote as COPY did.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ...errors import DatasetError, QueryError
from ...storage.files import sha256_file
from ...storage.layout import MANIFEST, files_identity, listed_files
from .safety import check_sql

# what a DuckDB connection offers that only reads, or reads back what was run: passed through
READS = frozenset({
    "fetchall", "fetchone", "fetchmany", "fetchdf", "fetch_df", "fetch_df_chunk", "fetchnumpy", "df", "pl",
    "arrow", "fetch_arrow_table", "fetch_record_batch", "fetch_arrow_reader", "torch", "tf", "description",
    "rowcount", "interrupt", "query_progress", "list_filesystems", "get_table_names", "from_arrow", "from_df",
    "extract_statements",
})


# a relation's methods that write: a file, or a table or view of the connection
WRITES = frozenset({"to_parquet", "write_parquet", "to_csv", "write_csv", "to_table", "create", "create_view",
                    "to_view", "insert_into", "insert", "update"})


class Connection:
    """A DuckDB connection with every view and macro of `war query`, for a notebook or a program
    (`open_connection` makes it; `war.connect`). `sql`, `query` and `execute` take one statement
    that only reads (SELECT, WITH, DESCRIBE, SUMMARIZE, SHOW, EXPLAIN, PIVOT), as `war query`
    does; `table`, `view` and DuckDB's fetching methods work as on DuckDB's own connection. A
    statement after the dataset was rewritten, a data file changed, or removed is refused: connect again."""

    __slots__ = ("_con", "_manifest", "_listed", "_seen", "__weakref__")

    def __init__(self, con: duckdb.DuckDBPyConnection, root) -> None:
        self._con = con
        self._manifest = os.path.join(os.fspath(root), MANIFEST)
        try:  # the files the manifest lists, read once: a new manifest is refused by its own stat
            self._listed = listed_files(root)
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            self._listed = {}
        self._seen = _identity(self._manifest, self._listed)

    def _fresh(self) -> None:
        now = _identity(self._manifest, self._listed)
        if now == self._seen:
            return
        if now is not None and self._seen is not None and now[:4] == self._seen[:4] and \
                _same_bytes(self._manifest, self._listed, self._seen[4], now[4]):
            self._seen = now  # a file's change time moved (chmod, a hard link) and its bytes are the manifest's
            return
        folder = os.path.dirname(self._manifest)
        raise DatasetError(f"the dataset {folder!r} was rewritten, changed or removed since this connection opened; "
                           f"its answers would mix the two: war.connect({folder!r}) again")

    def _checked(self, query) -> None:
        if not isinstance(query, str):
            raise TypeError(f"a query is a text of SQL, not {type(query).__name__}")
        self._fresh()
        try:
            check_sql(query)
        except QueryError as err:  # the command line's hint (`output` FILE) said as a program does it
            said = str(err).replace("to save a result, use `output` FILE",
                                    "a result is yours to save (.df().to_csv(FILE), or war.write_result)")
            raise QueryError(said) from None

    def sql(self, query: str, *, alias: str = "", params=None) -> "Relation | None":
        self._checked(query)
        return _door(self._con.sql(query, alias=alias, params=params), self)

    def query(self, query: str, *, alias: str = "", params=None) -> "Relation | None":
        return self.sql(query, alias=alias, params=params)

    def execute(self, query: str, parameters=None) -> "Connection":
        self._checked(query)
        self._con.execute(query, parameters)
        return self

    def table(self, name: str) -> "Relation":
        self._fresh()
        return _door(self._con.table(name), self)

    def view(self, name: str) -> "Relation":
        self._fresh()
        return _door(self._con.view(name), self)

    def cursor(self) -> "Connection":
        """Another cursor of the same views, behind the same door (DuckDB's for a thread)."""
        other = Connection.__new__(Connection)
        other._con, other._manifest, other._listed, other._seen = \
            self._con.cursor(), self._manifest, self._listed, self._seen
        return other

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getattr__(self, name: str):
        if name in READS:
            return _doors(getattr(self._con, name), self)
        raise AttributeError(f"war.connect's connection only reads the dataset: it offers sql, query, execute, "
                             f"table, view, cursor, close and DuckDB's fetching methods, not {name!r}")


class Relation:
    """A relation of war.connect's connection: DuckDB's (`.df()`, `.pl()`, `.arrow()`, `.fetchall()`,
    `.filter(...)`, `.limit(n)`, `.show()`, ...), a relation it derives handed out as this too,
    but its methods that write a file, a table or a view are refused, and its `query` takes one
    statement that only reads, as the connection's `sql`. What a result should become is the
    caller's to write (`.df().to_parquet(FILE)`, `.pl().write_csv(FILE)`)."""

    __slots__ = ("_rel", "_by")

    def __init__(self, rel: duckdb.DuckDBPyRelation, by: Connection) -> None:
        self._rel, self._by = rel, by

    def query(self, virtual_table_name: str, sql_query: str) -> "Relation | None":
        self._by._checked(sql_query)
        return _door(self._rel.query(virtual_table_name, sql_query), self._by)

    def __getattr__(self, name: str):
        if name in WRITES:
            raise QueryError(f"war.connect's relations only read: .{name}() would write, inside the dataset "
                             f"as anywhere; a result is yours to save (.df().to_parquet(FILE), .pl().write_csv(FILE), "
                             f"or war.write_result)")
        self._by._fresh()
        return _doors(getattr(self._rel, name), self._by)

    def __len__(self) -> int:
        self._by._fresh()
        return len(self._rel)

    def __contains__(self, name) -> bool:
        self._by._fresh()
        return name in self._rel

    def __getitem__(self, key):
        self._by._fresh()
        return _door(self._rel[key], self._by)

    def __arrow_c_stream__(self, requested_schema=None):
        self._by._fresh()
        return self._rel.__arrow_c_stream__(requested_schema)

    def __str__(self) -> str:  # a notebook's display runs the query: asked as any reader is
        self._by._fresh()
        return str(self._rel)

    def __repr__(self) -> str:
        self._by._fresh()
        return repr(self._rel)


def _door(value, by: Connection):
    """`value` handed out through the door: a DuckDB relation as a Relation, anything else as it is."""
    return Relation(value, by) if isinstance(value, duckdb.DuckDBPyRelation) else value


def _doors(value, by: Connection):
    """An attribute handed out through the door: a method's relations given and returned as
    DuckDB's and as Relation (a join of two of them), anything else as it is."""
    if not callable(value) or isinstance(value, duckdb.DuckDBPyRelation):
        return _door(value, by)

    def method(*args, **kwargs):
        args = [a._rel if isinstance(a, Relation) else a for a in args]
        kwargs = {k: v._rel if isinstance(v, Relation) else v for k, v in kwargs.items()}
        return _door(value(*args, **kwargs), by)

    method.__name__ = getattr(value, "__name__", "method")
    method.__doc__ = getattr(value, "__doc__", None)
    return method


def _same_bytes(manifest: str, listed: dict[str, str], before: tuple, after: tuple) -> bool:
    """Whether the data files whose stat differs between `before` and `after` (files_identity's)
    still hold the bytes the manifest lists (`listed`, their SHA-256s): a file's metadata changed,
    not it (a size that changed is another file)."""
    if [f[0] for f in before] != [f[0] for f in after] or any(a[1] != b[1] for b, a in zip(before, after)):
        return False
    try:
        return all(sha256_file(Path(manifest).parent / a[0]) == listed.get(a[0])
                   for b, a in zip(before, after) if a != b)
    except OSError:
        return False


def _identity(path: str, listed: dict[str, str]) -> tuple | None:
    """The manifest's file as it stands (device, inode, size, times), None when gone: a rewrite
    replaces it whole (atomic_write_bytes), which changes its inode; and every data file it
    lists (files_identity), which a `cp` over one changes while the manifest stays."""
    try:
        st = os.stat(path)
        return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, files_identity(os.path.dirname(path), listed)
    except OSError:
        return None
