"""A solution of `war solve --out` in war query's sandbox: its own session, and its views beside
a dataset of games for a query that compares them.

A solution folder (solve/folder.py) is asked as a dataset is: `war query SOLUTION solved_deck`,
`--sql` over its views, the server's SQL page. Its session has the views

    deals         one row a deal: its piles, top_cards, each chance, mean and quantile, exact_*
    positions     one row a position reached (a solution written with --positions)
    distribution  the deck's P(N = t) and P(N <= t)
    deck          one row: the deck's figures, their bounds and exact fractions (solution.json)

locked as a dataset's (session.lock): files only inside the solution's folder. A named query
that asks a solution says so in its header (`-- dataset: solution`); the others ask games, and
each kind is refused over the other in one line. A query over games with a parameter of type
SOLUTION (vs_exact) gets the solution's views as solved_deals, solved_deck, solved_distribution,
the solution checked to be of the rules of one of the dataset's rule sets.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa

from ...errors import QueryError
from ...solve.folder import VIEWS, deck_row, file_paths, is_solution, read_manifest, rules_of
from .reads import parse_tree, tables_named
from .session import CARD_SQL, SPILL, Session, _folder, _allowed, _open, lock, sweep_spills
from .log_views import sql_literal

SOLUTION_VIEWS = (*VIEWS, "deck")
GAMES_VIEWS = frozenset({"games", "game_rows", "events", "event_rows", "battles", "cards", "rules", "counts", "deals_view"})

__all__ = ["is_solution", "solution_session", "schema_solution_session", "attach_solution", "solution_queries"]


def solution_queries() -> list[str]:
    """The names of the named queries that ask a solution."""
    from .registry import solution_queries as queries

    return [q.name for q in queries().values() if q.dataset == "solution"]


def _deck_table(body: dict) -> pa.Table:
    row = deck_row(body)
    return pa.Table.from_pylist([row])


def _views(con, root, body: dict, prefix: str = "") -> list[str]:
    """The solution's views in `con` (each name after `prefix`); the files they read."""
    paths = file_paths(root, body)
    for view, path in paths.items():
        con.execute(f"CREATE VIEW {prefix}{view} AS SELECT * FROM read_parquet({sql_literal(str(path.resolve()))})")
    con.register("_deck", _deck_table(body))
    con.execute(f"CREATE TABLE {prefix}deck AS SELECT * FROM _deck")
    con.unregister("_deck")
    return [str(p.resolve()) for p in paths.values()]


def solution_session(root, sql: str, name: str | None = None, dataset: str = "games", allow_read=()) -> Session:
    """A locked session over the solution at `root` with its views (the module's docstring), for
    `sql` (a named query's, `name`, which must ask a solution: `dataset`)."""
    folder = str(root)
    if name is not None and dataset != "solution":
        raise QueryError(f"query {name!r} asks games, and {folder!r} is a solution of war solve, with no games: "
                         f"ask it {', '.join(solution_queries())} or --sql over {', '.join(SOLUTION_VIEWS)}")
    body = read_manifest(root)
    tree = parse_tree(sql)
    named = (tables_named(tree) if tree is not None else None) or frozenset()
    stored = {f["path"].removesuffix(".parquet") for f in body["files"]}
    if named & GAMES_VIEWS:
        raise QueryError(f"{folder!r} is a solution of war solve: it has no {sorted(named & GAMES_VIEWS)[0]} view "
                         f"(no games, no events); its views are {', '.join(SOLUTION_VIEWS)}")
    if "positions" in named and "positions" not in stored:
        raise QueryError(f"solution {folder!r} was written without its positions: solve it again with "
                         f"--out {folder} --positions --overwrite")
    folders, files = _allowed(allow_read)
    con = duckdb.connect()
    sweep_spills()
    spill = tempfile.mkdtemp(prefix=f"{SPILL}{os.getpid()}-")
    session = Session(con, spill, events=False,
                      no_events=f"{folder!r} is a solution of war solve: no games or events")
    _open.add(session)
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET temp_directory = {sql_literal(spill)}")
        read = _views(con, root, body)
        con.execute(CARD_SQL.split("CREATE VIEW cards")[0])  # the macros (wilson_low, ...), not the cards view
        lock(con, [_folder(Path(root).resolve()), _folder(Path(spill))] + [_folder(Path(f)) for f in folders],
             read + files)
    except BaseException:
        session.close()
        raise
    return session


def schema_solution_session() -> Session:
    """A locked session with a solution's views over empty tables: what a solution's query
    returns, told without a solution (`war query --show`)."""
    con = duckdb.connect()
    session = Session(con, None, events=False)
    empty_views(con)
    con.execute(CARD_SQL.split("CREATE VIEW cards")[0])
    lock(con, [], [])
    return session


def empty_views(con, prefix: str = "") -> list[str]:
    """A solution's views over empty tables of their columns (each name after `prefix`)."""
    ints, floats, texts = pa.int64(), pa.float64(), pa.string()
    values = [("p_win0", floats), ("p_win1", floats), ("p_draw", floats), ("mean_battles", floats),
              ("mean_laid", floats), ("p_capped", floats), ("battles_bound", floats), ("battles_q50", ints),
              ("battles_q90", ints), ("battles_q99", ints), ("never_ends", pa.bool_()), ("may_not_end", pa.bool_()),
              ("exact_p_win0", texts), ("exact_p_win1", texts), ("exact_mean_battles", texts),
              ("exact_mean_laid", texts), ("exact_p_draw", texts)]
    tables = {
        "deals": pa.schema([("deal", ints), ("position", ints), ("top_cards", ints), ("pile0", texts),
                            ("pile1", texts), *values]),
        "positions": pa.schema([("position", ints), ("pile0", texts), ("pile1", texts), *values]),
        "distribution": pa.schema([("battles", ints), ("p", floats), ("cdf", floats)]),
    }
    sample = {"format": "", "rules": {"variant": "classic"}, "cards": 0, "deals": 0, "positions": 0, "exact": True,
              "bound": 0.0, "sweeps": 0, "files": [], "quantiles": {"0.5": 0, "0.9": 0, "0.99": 0, "0.999": 0},
              "deck": {k: 0.0 for k in ("p_win0", "p_win1", "p_draw", "battles", "laid", "over_cap",
                                         "battles_bound", "laid_bound")} | {"exact_p_win0": "0", "exact_p_win1": "0",
                                                                           "exact_battles": "0", "exact_laid": "0"}}
    for view, table in [*((v, schema.empty_table()) for v, schema in tables.items()),
                        ("deck", _deck_table(sample).slice(0, 0))]:
        con.register("_empty", table)
        con.execute(f"CREATE TABLE {prefix}{view} AS SELECT * FROM _empty")
        con.unregister("_empty")
    return []


def attach_solution(path):
    """What a query over games with a SOLUTION parameter does to its session before it is locked
    (session_setup.connect's `attach`, given the dataset's rule sets, which connect has read already):
    the solution at `path` as the views solved_deals, solved_positions, solved_distribution and
    solved_deck, once its rules are found among the dataset's. Returns the function, which
    returns the files it reads."""
    if not is_solution(path):
        raise QueryError(f"{str(path)!r} is not a solution of war solve (no solution.json): give the folder "
                         f"`war solve ... --out DIR` wrote", params=("params",))
    body = read_manifest(path)
    rules = rules_of(body)

    def attach(con, rule_sets) -> list[str]:
        if not any(e.rules_id == rules.rules_id for e in rule_sets):
            raise QueryError(f"the dataset has no rule set of the solution's rules ({rules.label}, rules_id "
                             f"{rules.rules_id}): sample them with war generate {rules_args(rules)} --games N --out DIR")
        return _views(con, path, body, prefix="solved_")

    return attach


def rules_args(rules) -> str:
    """The `war generate` options that give these rules: those that differ from its variant's."""
    from ...model.rules import build_rules

    base, mine = build_rules(rules.variant).options(), rules.options()
    return " ".join([f"-v {rules.variant}"] + [f"--set {k}={v}" for k, v in mine.items()
                                               if k != "variant" and base.get(k) != v])
