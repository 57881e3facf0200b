"""war: seeded games of War and its variants as Parquet event logs: generate, replay, validate, query.

The public API, in the order of the data's way::

    import pipeline as war

    rules = war.build_rules("classic", {"pickup": "table_order"})   # or war.load_rules(path)
    war.generate("data/classic", [war.Plan(rules, 1000)], seed=42)
    war.query("data/classic", name="outcomes")                       # a pyarrow Table
    print(war.render_text(war.replay_game("data/classic", 17)))
    assert war.validate("data/classic").ok

- VARIANTS: every variant by name (its title, docs/rules.md section, options and their defaults);
  describe_variants, describe_policies: what `war variants` and `war policies` list.
- build_rules, load_rules: a rule set (a model.schema.RuleSet) from a variant and options, or
  from a TOML or JSON file.
- Plan, make_plans, generate: what to generate (rule set, games, deals, each seat's policy;
  make_plans also expands a tournament) and the dataset it makes. generate_request: a checked
  GenerateRequest from a command line's arguments (variant names, OPTION=VALUE options, rule
  files, the rule sets' names, SEAT=POLICY texts, the executor, the default output folder), whose `run` says how to
  finish a run Ctrl-C or a full disk stopped. warm_engines: load (or compile, once) the compiled
  engines of some rule sets before the work starts. demo: the steps of `war demo`.
- rule_set: one rule set from a variant and OPTION=VALUE texts, or a rule file. search: the deals
  of a deck too big to play whole that give the longest games that end, or cycles (random deals
  on the compiled engine, the best given a longer past), saved to search_state(out) as it goes
  and resumable; write_records: those deals as a dataset; check_search, check_records_out: its
  arguments and its `out`, checked before the search. render_found: its records as text;
  record_kind, record_entry, read_records, keep_record: the records file (data/records.jsonl).
- open_dataset, replay_game, render_text, render_replay, parse_range, validate: reading a
  dataset (check_validate_workers: validate's `workers`, checked before anything is read);
  render_page: a replay as a self-contained web page.
- query, open_query (streamed, in Arrow batches), describe_query (the columns only),
  named_queries, named_query, queries_dir: SQL over a dataset; write_result: a result as a
  table, CSV, JSON, JSON Lines or Parquet.
- write_report, write_charts: the report page and its charts as files; serve: the report and
  every game's replay in a browser.
- play_game: one game in memory. write_file: bytes to a file, whole or not at all, never inside
  a dataset's own files (check_output refuses such a path before any work); is_stream: an
  output written straight into (a FIFO, /dev/stdout), never replaced.
- combine: slices of one enumeration's counts (`--log counts --deal-range`) joined into one
  dataset (what `war combine` does).
- discard: roll back an interrupted run of generate (what `war generate --discard` does).
  wind_down: what a process ending by Ctrl-C does first (stops other threads' queries).

Every error a caller can cause is a WarError (RulesError, DealError, DatasetError and its
StorageError, GameNotFound, QueryError, ReportError, UsageError, LogMismatch, Interrupted): one
line, naming the arguments it is about in backticks (`workers`). storage_error says an OSError
as such a line, and interrupted(err) whether an error is Ctrl-C.

`import pipeline` is cheap: the names are imported on first use (PEP 562), so the `war` command,
which imports this package first, starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import (
    DatasetError,
    DealError,
    GameNotFound,
    Interrupted,
    LogMismatch,
    QueryError,
    ReportError,
    RulesError,
    StorageError,
    UsageError,
    WarError,
    interrupted,
    ctrl_c_latch,
    raise_lost_ctrl_c,
    storage_error,
)

__all__ = [
    "VARIANTS", "describe_variants", "describe_policies", "build_rules", "load_rules",
    "Plan", "make_plans", "generate", "generate_request", "GenerateRequest", "warm_engines", "demo",
    "rule_set", "search", "check_search", "check_records_out", "write_records", "search_state", "check_search_state",
    "record_kind", "record_entry", "read_records", "keep_record", "render_found",
    "open_dataset", "replay_game", "render_text", "render_replay", "parse_range", "render_page", "validate",
    "check_validate_workers",
    "query", "open_query", "describe_query", "named_queries", "named_query", "queries_dir", "write_result",
    "write_report", "write_charts", "serve",
    "play_game", "write_file", "check_output", "is_stream", "combine", "discard", "wind_down",
    "WarError", "RulesError", "DealError", "DatasetError", "StorageError", "GameNotFound", "QueryError",
    "ReportError", "UsageError", "LogMismatch", "Interrupted", "storage_error", "interrupted", "ctrl_c_latch",
    "raise_lost_ctrl_c",
]

# name -> (module, attribute): imported when first asked for
_LAZY = {
    "VARIANTS": ("pipeline.model.variants", "VARIANTS"),
    "describe_variants": ("pipeline.jobs.catalog", "describe_variants"),
    "describe_policies": ("pipeline.jobs.catalog", "describe_policies"),
    "build_rules": ("pipeline.model.rules", "build_rules"),
    "load_rules": ("pipeline.model.rules", "load_rules_file"),
    "Plan": ("pipeline.jobs.generate", "Plan"),
    "make_plans": ("pipeline.jobs.generate", "make_plans"),
    "generate": ("pipeline.jobs.generate", "generate"),
    "generate_request": ("pipeline.jobs.request", "generate_request"),
    "GenerateRequest": ("pipeline.jobs.request", "GenerateRequest"),
    "demo": ("pipeline.jobs.demo", "demo"),
    "rule_set": ("pipeline.jobs.request", "rule_set"),
    "search": ("pipeline.jobs.search", "search"),
    "check_search": ("pipeline.jobs.search", "check_search"),
    "check_records_out": ("pipeline.jobs.search", "check_records_out"),
    "write_records": ("pipeline.jobs.search", "write_records"),
    "search_state": ("pipeline.jobs.search", "state_path"),
    "check_search_state": ("pipeline.jobs.search", "check_state"),
    "record_kind": ("pipeline.jobs.records", "record_kind"),
    "record_entry": ("pipeline.jobs.records", "entry"),
    "read_records": ("pipeline.jobs.records", "read_records"),
    "keep_record": ("pipeline.jobs.records", "keep_record"),
    "render_found": ("pipeline.jobs.records", "render_found"),
    "render_replay": ("pipeline.jobs.replay", "render_replay"),
    "parse_range": ("pipeline.jobs.replay", "parse_range"),
    "render_page": ("pipeline.present.replay_page", "render_page"),
    "validate": ("pipeline.jobs.validate", "validate"),
    "check_validate_workers": ("pipeline.jobs.validate", "check_workers"),
    "query": ("pipeline.jobs.query", "run"),
    "open_query": ("pipeline.jobs.query", "open_query"),
    "describe_query": ("pipeline.jobs.query", "describe"),
    "named_queries": ("pipeline.jobs.query", "named_queries"),
    "named_query": ("pipeline.jobs.query", "named_query"),
    "queries_dir": ("pipeline.jobs.query", "queries_dir"),
    "write_result": ("pipeline.present.output", "write_result"),
    "write_report": ("pipeline.present.report_page", "write_report"),
    "write_charts": ("pipeline.present.report_page", "write_charts"),
    "serve": ("pipeline.present.serve", "serve"),
    "write_file": ("pipeline.storage.files", "atomic_write_bytes"),
    "check_output": ("pipeline.storage.files", "check_output"),
    "is_stream": ("pipeline.storage.files", "is_stream"),
    "combine": ("pipeline.jobs.combine", "combine"),
    "discard": ("pipeline.jobs.place", "discard"),
}

if TYPE_CHECKING:
    from .jobs.catalog import describe_policies, describe_variants
    from .jobs.demo import demo
    from .jobs.request import rule_set
    from .jobs.records import entry as record_entry
    from .jobs.records import keep_record, read_records, record_kind, render_found
    from .jobs.search import check_records_out, check_search, search, write_records
    from .jobs.search import check_state as check_search_state
    from .jobs.search import state_path as search_state
    from .jobs.generate import Plan, generate, make_plans
    from .jobs.query import describe as describe_query
    from .jobs.query import named_queries, named_query, open_query, queries_dir
    from .jobs.query import run as query
    from .jobs.replay import parse_range, render_replay
    from .jobs.request import GenerateRequest, generate_request
    from .jobs.validate import check_workers as check_validate_workers
    from .jobs.validate import validate
    from .model.rules import build_rules
    from .model.rules import load_rules_file as load_rules
    from .model.variants import VARIANTS
    from .present.output import write_result
    from .present.replay_page import render_page
    from .present.report_page import write_charts, write_report
    from .present.serve import serve
    from .jobs.combine import combine
    from .jobs.place import discard
    from .storage.files import atomic_write_bytes as write_file
    from .storage.files import check_output, is_stream


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def open_dataset(root, check_paths: bool = True):
    """The finished dataset at `root` (a folder or a URI): a storage.dataset.Dataset, whose
    `manifest` lists its rule sets (`rule_sets`: rules, policies, seed, games) and files.
    Raises DatasetError for a missing, unfinished or unreadable dataset, and OutsideDataset (a
    DatasetError) for a manifest that lists a file outside the folder, unless `check_paths` is
    False (validation reports each such path)."""
    from .storage.dataset import Dataset  # lazy: keeps import pipeline cheap

    return Dataset.open(root, check_paths=check_paths)


def replay_game(root, game_id: int):
    """Game `game_id` of the dataset at `root` rebuilt from its log, checked against the engine
    event by event (LogMismatch if it breaks the rules): a jobs.replay.GameReplay with its
    record (`record`, a dict of the games row), its deal and every battle's events and piles, and
    `disagreements`: where the games row differs from what the log makes of the game.
    GameNotFound when the dataset holds no such game."""
    from .jobs.replay import replay_game as replay  # lazy: keeps import pipeline cheap

    return replay(root, game_id)


def render_text(replay, battle: int | None = None, battles: tuple[int, int | None] | None = None,
                wars: bool = False) -> str:
    """A replay (from `replay_game`) as `war replay` shows it: the deal, then battle by battle;
    with `battle`, only that battle, with every pile in full; `battles` = (first, last) a range
    (last None: to the end); `wars` only the battles with a war."""
    from .jobs.replay import render_text as render  # lazy: keeps import pipeline cheap

    return render(replay, battle, battles, wars)


def play_game(rules, seed: int, deal=None, policies=()):
    """Play one game in memory, writing nothing: the game of `seed` under `rules`, or of an
    explicit `deal` (a model.deal.Deal) with later shuffles from `seed`; `policies` for a variant
    with decisions as in Plan. Returns (events, summary, deal): the event log as tuples
    (battle, kind, seat, cards, seats, options, value, note), an engines.summary.Summary
    (outcome, winner, battles, wars, ...) and the deal played."""
    from .engines.game import play_game as play  # lazy: keeps import pipeline cheap

    return play(rules, seed, deal, policies=policies)


def warm_engines(rule_sets, validation: bool = False, on_compile=None, on_damaged=None) -> None:
    """Load the machine code of the compiled engines that play `rule_sets` (and with
    `validation` the checks of `validate`) now, so that the work that follows starts at once.
    The first run after installing compiles it; `on_compile(seconds)` is called before that,
    with about how long it takes. A damaged compile cache is discarded and compiled again,
    `on_damaged(folder)` called first."""
    from .log.warm import engines_for, warm  # lazy: keeps import pipeline cheap

    warm(on_compile=on_compile, validation=validation, engines=engines_for(rule_sets), on_damaged=on_damaged)


def wind_down(timeout: float = 2.0) -> None:
    """What a process ending by Ctrl-C does before it exits: when it has queried, stop the
    queries other threads run and give them up to `timeout` seconds to leave DuckDB (a thread
    left inside it while the interpreter shuts down aborts the process). Imports nothing new."""
    import sys

    session = sys.modules.get("pipeline.jobs.query.session")
    if session is not None:
        session.wind_down(timeout)
