"""`war query`: named queries and ad-hoc SQL."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path

import typer

import pipeline as war

from .app import app, refuse_output, rows_counter, say_error, say_event_copies


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    jsonl = "jsonl"
    parquet = "parquet"


@app.command()
def query(
    dataset: str | None = typer.Argument(None, metavar="DATASET", help="Dataset folder (or URI)."),
    name: str | None = typer.Argument(None, metavar="NAME", help="A named query (see --list)."),
    sql: str | None = typer.Option(None, "--sql", metavar="SQL", help="Ad-hoc SQL over the views games, events, event_rows, rules, battles, cards."),
    list_: bool = typer.Option(False, "--list", help="List the named queries, one a line."),
    show: str | None = typer.Option(None, "--show", metavar="NAME", help="A named query in full: what it answers, its parameters, its SQL, its columns."),
    describe: bool = typer.Option(False, "--describe", help="The result's columns and types, without running the query."),
    param: list[str] = typer.Option([], "--param", "-p", metavar="NAME=VALUE", help="NAME=VALUE for a named query's parameter."),
    fmt: OutputFormat = typer.Option(OutputFormat.table, "--format", "-f", metavar="FORMAT", help="table, csv, json, jsonl (one object a line) or parquet."),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to FILE instead of stdout."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --output file."),
    columns: str | None = typer.Option(None, "--columns", "-c", metavar="A,B,C", help="Only these columns, in this order (any format); a table otherwise shows the answer first and leaves out columns of one value."),
    limit: int | None = typer.Option(None, "--limit", "-n", metavar="N", help="At most N rows (a table shows 40 unless told)."),
    all_rows: bool = typer.Option(False, "--all", help="A table shows every row."),
    allow_read: list[Path] = typer.Option([], "--allow-read", metavar="PATH", help="Let the SQL read files under PATH, outside the dataset (repeatable)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress while writing --output FILE."),
) -> None:
    """Answer a question with DuckDB SQL: a named query or --sql. Queries only read: the dataset,
    and the files under --allow-read paths."""
    if list_:  # what DATASET can be asked: a solution's queries (queries/solution/) when it is one
        _list(_askable(dataset))
        return
    if show is not None:
        _show(show, dataset)
        return
    if dataset is None:
        raise war.QueryError("give a DATASET folder (or --list, or --show NAME)")
    if (name is None) == (sql is None):
        raise war.QueryError("give either a query NAME or --sql, not both" if name else "give a query NAME or --sql (--list shows the names)")
    if limit is not None and limit < 0:
        raise war.UsageError(f"--limit must be 0 or more, got {limit}")
    if limit is not None and all_rows:
        raise war.QueryError("give --limit N or --all, not both")
    if fmt is OutputFormat.parquet and output is None:
        raise war.QueryError("--format parquet needs --output FILE")
    refuse_output(output, overwrite, war.QueryError)
    params = {}
    for pair in param:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise war.QueryError(f"--param wants NAME=VALUE, got {pair!r}")
        params[key.strip()] = value.strip()
    if describe:
        described = war.describe_query(dataset, sql=sql, name=name, params=params, allow_read=allow_read,
                                       columns=columns)
        _write(described, fmt.value, output, None, True)
        return
    if output is None or fmt is OutputFormat.table:
        _write(_open(dataset, sql, name, params, allow_read), fmt.value, output, limit, all_rows, columns=columns)
        return
    with rows_counter(f"writing {output}:", quiet) as tick:  # from the start: setting up the views takes time too
        _write(_open(dataset, sql, name, params, allow_read), fmt.value, output, limit, all_rows, tick, columns)


def _open(dataset, sql, name, params, allow_read):
    """The query, opened, with what its reader should know said first (a log the dataset lacks)."""
    say_event_copies()
    result = war.open_query(dataset, sql=sql, name=name, params=params, allow_read=allow_read)
    if result.note:
        say_error(f"warning: {result.note}")
    return result


def _write(result, fmt: str, output, limit, all_rows, progress=None, columns=None) -> None:
    try:
        war.write_result(result, fmt, output, limit=limit, all_rows=all_rows, progress=progress, columns=columns)
    except BrokenPipeError:  # `| head`: the reader has seen enough, as with any shell tool
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _askable(dataset: str | None) -> dict:
    """The named queries --list shows: those of a solution when DATASET is one (not vs_exact,
    which asks games beside one), else those of games, vs_exact among them. A DATASET that is
    not there is refused, as any other command refuses it."""
    solution = war.solution_queries()
    if dataset is not None:
        if "://" not in str(dataset) and not Path(dataset).exists():
            raise war.DatasetError(f"no dataset at {str(dataset)!r}: the folder does not exist")
        if war.is_solution(dataset):
            return {name: q for name, q in solution.items() if q.dataset == "solution"}
    return {**war.named_queries(), **{name: q for name, q in solution.items() if q.dataset != "solution"}}


def _list(queries) -> None:
    width = max(len(n) for n in queries)
    for q in queries.values():
        params = "".join(f"  [--param {p.name}={p.default if p.default is not None else '...'}]" for p in q.params)
        typer.echo(f"{q.name.ljust(width)}  {q.summary}{params}")


def _show(name: str, dataset: str | None) -> None:
    import textwrap

    q = war.named_query(name)
    columns = war.describe_query(dataset, name=name)
    wrap = textwrap.TextWrapper(width=100, initial_indent="  ", subsequent_indent="  ")
    lines = [q.name, "", *wrap.wrap(q.answers), ""]
    if q.params:
        lines.append("Parameters (--param NAME=VALUE):")
        for p in q.params:
            default = f" = {p.default}" if p.default is not None else " (required)"
            bounds = f" {p.bounds}" if p.bounds else ""
            lines.append(f"  {p.name} {p.type}{default}{bounds}" + (f"  -- {p.help}" if p.help else ""))
    else:
        lines.append("Parameters: none")
    lines += ["", "Columns:"]
    col_width = max(len(c) for c in columns.column("column").to_pylist())
    for col, type_ in zip(columns.column("column").to_pylist(), columns.column("type").to_pylist()):
        lines.append(f"  {col.ljust(col_width)}  {type_}")
    lines += ["", f"SQL ({q.source}):", "", q.body.rstrip()]
    typer.echo("\n".join(lines))
