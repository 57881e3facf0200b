"""The named queries: the `.sql` files of `queries/`, and of each family's queries folder
(model.family.Family.queries), each with a header that says what it answers and which
parameters it takes:

    -- summary: How long do games last?                  (optional; else the first sentence)
    -- answers: How long do games last, per variant and rule set? ...
    -- param: limit INTEGER = 20 -- how many games to list
    -- exact: every deal                                   (optional: it answers for rule sets
                                                           that play every deal of their deck)
    -- dataset: solution                                   (optional: it asks a solution of
                                                           `war solve --out`, not games;
                                                           such queries are in queries/solution/)

A parameter of type SOLUTION names a solution folder: its files become the views solved_deals,
solved_deck, solved_distribution beside the dataset's (jobs/query/solution_views.py).

A parameter's value arrives as text and is converted to its type here; DuckDB binds it
(`$limit`), never pasted into the SQL text.
"""

from __future__ import annotations

import difflib
import importlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import QueryError
from ...model.families import beside, registry

# `-- param: NAME TYPE [= DEFAULT] [>= LOW | > LOW] [-- help]`: a number's bound is checked before
# the query is bound, whatever columns are asked for (a check in the SQL is pruned with its column)
PARAM_LINE = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)\s*(?:=\s*(.*?))?\s*(?:(>=|>)\s*(-?[0-9.]+))?\s*"
                        r"(?:--\s*(.*))?$")
TYPES = {"INTEGER": int, "BIGINT": int, "DOUBLE": float, "VARCHAR": str, "BOOLEAN": None, "SOLUTION": str}
FIRST_SENTENCE = re.compile(r"^(.*?[.?!])(?:\s+(?=[A-Z(])|$)")
SQL_TEXT = re.compile(r"\s*(select|with|from|describe|show|summarize|pivot|values|explain)\b|.*\s", re.I | re.S)


@dataclass
class Param:
    name: str
    type: str
    default: str | None
    help: str
    bound: tuple[str, float] | None = None  # (">=" or ">", the number) a number must be

    def convert(self, text: str):
        if self.type == "BOOLEAN":
            if text.lower() in ("true", "1", "yes"):
                return True
            if text.lower() in ("false", "0", "no"):
                return False
            raise QueryError(f"parameter {self.name!r} wants true or false, got {text!r}")
        try:
            value = TYPES[self.type](text)
        except ValueError:
            raise QueryError(f"parameter {self.name!r} wants {self.type.lower()}, got {text!r}") from None
        if self.type == "DOUBLE" and not math.isfinite(value):
            raise QueryError(f"parameter {self.name!r} wants a finite number, got {text!r}", params=("params",))
        if self.bound is not None:
            op, low = self.bound
            if value < low or op == ">" and value == low:
                said = f"at least {low:g}" if op == ">=" else "positive" if low == 0 else f"above {low:g}"
                raise QueryError(f"parameter {self.name} must be {said}, got {text}", params=("params",))
        return value


@dataclass
class NamedQuery:
    name: str
    answers: str
    sql: str
    params: list[Param] = field(default_factory=list)
    summary: str = ""
    exact: str = ""  # `every deal`: rows only for rule sets that play every deal; else what is exact
    source: str = ""  # where its file is: `queries/NAME.sql`, or in its family's folder
    dataset: str = "games"  # what it asks: a dataset of games, or (`solution`) a solution of war solve

    @property
    def body(self) -> str:
        """The SQL without its header comment."""
        lines = self.sql.splitlines()
        while lines and lines[0].startswith("--"):
            lines.pop(0)
        return "\n".join(lines).strip() + "\n"

    def bind(self, params: dict[str, str], solution: str | None = None) -> dict:
        """The values of this query's parameters: those of `params` {name: value as text}
        converted to their types, the defaults for the rest; a SOLUTION parameter, taken out
        before (`solution`: its folder), is not bound."""
        known = {p.name: p for p in self.params if not (p.type == "SOLUTION" and solution is not None)}
        for key in params:
            if key not in known:
                raise QueryError(f"query {self.name!r} has no parameter {key!r}"
                                 f" (it takes: {', '.join(known) or 'none'})")
        bound = {}
        for p in known.values():
            if p.name in params:
                bound[p.name] = p.convert(params[p.name])
            elif p.default is not None:
                bound[p.name] = p.convert(p.default)
            else:
                raise QueryError(f"query {self.name!r} needs `params` {p.name}=...", params=("params",))
        return bound


def queries_dir() -> Path:
    """The folder of the named queries: `queries/` in a checkout, `pipeline/_queries/` installed."""
    package = Path(__file__).resolve().parents[2]
    for candidate in (package.parent / "queries", package / "_queries"):
        if candidate.is_dir():
            return candidate
    raise QueryError("the named queries folder is missing from this installation")


def parse_query(path: Path, source: str | None = None) -> NamedQuery:
    text = path.read_text(encoding="utf-8")
    answers, params, summary, exact, dataset = [], [], "", "", "games"
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = PARAM_LINE.match(line)
        if m:
            name, type_, default, op, low, help_ = m.groups()
            type_ = type_.upper()
            if type_ not in TYPES:
                raise QueryError(f"{path.name}: parameter {name!r} has unknown type {type_}")
            if op is not None and type_ not in ("INTEGER", "BIGINT", "DOUBLE"):
                raise QueryError(f"{path.name}: parameter {name!r} of type {type_} takes no bound ({op} {low})")
            params.append(Param(name, type_, default, help_ or "", None if op is None else (op, float(low))))
        elif line.startswith("-- summary:"):
            summary = line.removeprefix("-- summary:").strip()
        elif line.startswith("-- exact:"):
            exact = line.removeprefix("-- exact:").strip()
        elif line.startswith("-- dataset:"):
            dataset = line.removeprefix("-- dataset:").strip()
        elif line.startswith("-- answers:"):
            answers.append(line.removeprefix("-- answers:").strip())
        elif answers and line.startswith("--   "):
            answers.append(line[2:].strip())
    if not answers:
        raise QueryError(f"{path.name}: header has no `-- answers:` line")
    answer = " ".join(answers)
    if not summary:
        m = FIRST_SENTENCE.match(answer)
        summary = m.group(1) if m else answer
    return NamedQuery(path.stem, answer, text, params, summary, exact, source or f"{path.parent.name}/{path.name}",
                      dataset)


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
