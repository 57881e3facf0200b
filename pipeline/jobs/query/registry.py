"""The named queries: the `.sql` files of `queries/`, and of each family's queries folder
(model.family.Family.queries), each with a header that says what it answers and which
parameters it takes:

    -- summary: How long do games last?                  (optional; else the first sentence)
    -- answers: How long do games last, per variant and rule set? ...
    -- param: limit INTEGER = 20 -- how many games to list
    -- param: z DOUBLE = 1.96 > 0 < 40 -- ...              (bounds: [>= LOW | > LOW] [<= HIGH | < HIGH])
    -- param: seat INTEGER = 0 >= 0 < players -- ...       (`players`: the dataset's most players)
    -- exact: every deal                                   (optional: it answers for rule sets
                                                           that play every deal of their deck)
    -- dataset: solution                                   (optional: it asks a solution of
                                                           `war solve --out`, not games;
                                                           such queries are in queries/solution/)

A parameter of type SOLUTION names a solution folder: its files become the views solved_deals,
solved_deck, solved_distribution beside the dataset's (jobs/query/solution_views.py).

A parameter's value arrives as text and is converted to its type (model.families.Param); DuckDB binds it
(`$limit`), never pasted into the SQL text.
"""

from __future__ import annotations

import difflib
import importlib
import re
from pathlib import Path

from ...errors import QueryError
from ...model.families import beside, registry
# a query file's header and parameters are read in the model layer (model.families), where a
# family's query files are parsed as the family is read; named here as they always were
from ...model.families import FIRST_SENTENCE as FIRST_SENTENCE, PARAM_LINE as PARAM_LINE, TYPES as TYPES
from ...model.families import NamedQuery as NamedQuery, Param as Param, parse_query as parse_query

SQL_TEXT = re.compile(r"\s*(select|with|from|describe|show|summarize|pivot|values|explain)\b|.*\s", re.I | re.S)


def queries_dir() -> Path:
    """The folder of the named queries: `queries/` in a checkout, `pipeline/_queries/` installed."""
    package = Path(__file__).resolve().parents[2]
    for candidate in (package.parent / "queries", package / "_queries"):
        if candidate.is_dir():
            return candidate
    raise QueryError("the named queries folder is missing from this installation")


def query_files() -> list[tuple[Path, str]]:
    """The files of the named queries, each with where a person finds it: `queries/`, then each
    family's folder, named from its package (`pipeline/engines/steal/queries/steals.sql`). A
    family's query may not take a name already taken."""
    files = [(p, f"queries/{p.name}") for p in sorted(queries_dir().glob("*.sql"))]
    for family in registry().families.values():
        if family.queries:
            folder = beside(family, family.queries)
            top = Path(importlib.import_module(family.module.split(".")[0]).__file__).resolve().parent.parent
            files += [(p, p.relative_to(top).as_posix()) for p in sorted(folder.glob("*.sql"))]
    seen: dict[str, str] = {}
    for path, source in files:
        if path.stem in seen:
            raise QueryError(f"two named queries are called {path.stem!r}: {seen[path.stem]} and {source}")
        seen[path.stem] = source
    return files


def named_queries() -> dict[str, NamedQuery]:
    """Every named query by name: what it answers (`answers`, and `summary` in one sentence),
    its SQL and its parameters."""
    return {path.stem: parse_query(path, source) for path, source in query_files()}


def solution_queries() -> dict[str, NamedQuery]:
    """The named queries of solutions of `war solve` (queries/solution/: those that ask a
    solution, and vs_exact, which asks games beside one), by name; apart from named_queries,
    whose every query asks games and runs with its defaults."""
    folder = queries_dir() / "solution"
    return {p.stem: parse_query(p, f"queries/solution/{p.name}") for p in sorted(folder.glob("*.sql"))}


def named_query(name: str) -> NamedQuery:
    """The named query `name` (of named_queries or solution_queries); an unknown one is refused
    with what the user likely meant: the closest names, or --sql for what reads as SQL."""
    queries = named_queries()
    if name in queries:
        return queries[name]
    solved = solution_queries()
    if name in solved:
        return solved[name]
    if SQL_TEXT.match(name):
        raise QueryError(f"unknown query {name!r}: SQL goes after --sql (war query DATASET --sql \"...\")")
    close = difflib.get_close_matches(name, list(queries), n=3, cutoff=0.6)
    if close:
        raise QueryError(f"unknown query {name!r} (did you mean {' or '.join(close)}? "
                         f"--list shows all {len(queries)})")
    raise QueryError(f"unknown query {name!r} (named queries: {', '.join(queries)})")
