"""war: seeded games of War and its variants as Parquet event logs: generate, replay, validate, query.

The public API, in the order of the data's way::

    import pipeline as war

    rules = war.build_rules("classic", {"pickup": "table_order"})   # or war.load_rules(path)
    war.generate("data/classic", [war.Plan(rules, 1000)], seed=42)
    war.query("data/classic", name="outcomes")                       # a pyarrow Table
    print(war.render_text(war.replay_game("data/classic", 17)))
    assert war.validate("data/classic").ok

API below names each name once, by the module it comes from; help(war.NAME) says what it
does. Every error a caller can cause is a WarError (the names after "errors"): one line, naming
the arguments it is about in backticks (`workers`). What only the `war` command needs (its
checks before the engine compiles, its Ctrl-C and error boundary) is in pipeline.frontend.

`import pipeline` is cheap: a name is imported on first use (PEP 562), so the `war` command,
which imports this package first, starts fast.
"""

from __future__ import annotations

import importlib
import inspect

# Each name of the API once, by the module it comes from (under pipeline), in the order of the
# data's way; "NAME:ATTRIBUTE" where the module calls it otherwise.
API = {
    # what can be played: variants, policies, rule sets, one game in memory
    "model.variants": ("VARIANTS",),
    "jobs.catalog": ("describe_variants", "describe_policies", "variant_details", "policy_details", "profile_details"),
    "model.rules": ("build_rules", "load_rules:load_rules_file"),
    "engines.game": ("play_game",),
    # writing a dataset
    "jobs.generate": ("Plan", "make_plans", "generate"),
    "jobs.request": ("GenerateArgs", "generate_request", "GenerateRequest"),
    "log.warm": ("warm_engines",),
    "jobs.place": ("discard",),
    "jobs.combine": ("combine",),
    "jobs.counts": ("counted_deals",),
    "jobs.search": ("search", "write_records"),
    "jobs.records": ("record_kind", "record_entry:entry", "read_records", "keep_record", "check_kept"),
    "jobs.demo": ("demo", "next_commands"),
    # the game under chance, solved (docs/solve.md)
    "solve.solver": ("solve_rules:solve", "build_chain", "check_solvable"),
    "solve.figures": ("solution_lines:lines",),
    "solve.dataset": ("write_solution", "check_solution_out", "solution_query"),
    "solve.folder": ("is_solution",),
    "solve.check": ("validate_solution",),
    # reading one: a game, the whole
    "storage.dataset": ("open_dataset:Dataset.open",),
    "jobs.replay": ("replay_game", "render_text"),
    "jobs.replay_out": ("render_replay",),
    "present.replay_page": ("render_page",),
    "jobs.validate": ("validate",),
    # questions: SQL and the named queries
    "jobs.query": ("query:run", "connect:open_connection", "open_query", "describe_query:describe", "named_queries", "named_query",
                   "queries_dir", "solution_queries"),
    "present.output": ("write_result",),
    # seeing it: the report, the server
    "present.report_page": ("write_report", "write_charts"),
    "present.serve": ("serve",),
    # errors
    "errors": ("WarError", "RulesError", "DealError", "DatasetError", "StorageError", "GameNotFound", "QueryError",
               "ReportError", "UsageError", "LogMismatch", "Interrupted"),
}

_WHERE = {entry.partition(":")[0]: (module, entry.partition(":")[2] or entry)
          for module, entries in API.items() for entry in entries}  # name -> (module, attribute)
__all__ = list(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _WHERE[name]
    value = importlib.import_module(f"{__name__}.{module}")
    for part in attribute.split("."):
        value = getattr(value, part)
    if inspect.isfunction(value):  # help(war.query) titled `query` in `pipeline`, as numpy does for its own
        value.__module__, value.__name__, value.__qualname__ = __name__, name, name
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
