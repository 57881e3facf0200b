"""`war query`: named queries and ad-hoc SQL."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from ..errors import QueryError
from .app import app


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


@app.command()
def query(
    dataset: str | None = typer.Argument(None, help="Dataset folder (or file:// URI)."),
    name: str | None = typer.Argument(None, help="A named query (see --list)."),
    sql: str | None = typer.Option(None, "--sql", help="Ad-hoc SQL over the views games, events, event_rows, rules, battles, cards."),
    list_: bool = typer.Option(False, "--list", help="List the named queries."),
    param: list[str] = typer.Option([], "--param", "-p", help="NAME=VALUE for a named query's parameter."),
    fmt: OutputFormat = typer.Option(OutputFormat.table, "--format", "-f", help="table, csv, json or parquet."),
    output: Path | None = typer.Option(None, "--output", help="Write to FILE instead of stdout."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --output file."),
) -> None:
    """Answer a question with DuckDB SQL: a named query or --sql."""
    from ..jobs.query import named_queries, run  # lazy: keeps war --help fast

    if list_:
        for q in named_queries().values():
            params = "".join(f" [--param {p.name}={p.default if p.default is not None else '...'}]" for p in q.params)
            typer.echo(f"{q.name}{params}\n    {q.answers}")
        return
    if dataset is None:
        raise QueryError("give a DATASET folder (or --list)")
    if (name is None) == (sql is None):
        raise QueryError("give either a query NAME or --sql, not both" if name else "give a query NAME or --sql (--list shows the names)")
    if fmt is OutputFormat.parquet and output is None:
        raise QueryError("--format parquet needs --output FILE")
    if output is not None and output.exists() and not overwrite:
        raise QueryError(f"{output} exists (use --overwrite to replace it)")
    params = {}
    for pair in param:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise QueryError(f"--param wants NAME=VALUE, got {pair!r}")
        params[key.strip()] = value.strip()
    table = run(dataset, sql=sql, name=name, params=params)
    if table is None:
        return
    from ..jobs.output import write_result  # lazy: keeps war --help fast

    write_result(table, fmt.value, output)

