"""war: seeded games of War and its variants as Parquet event logs: generate, replay, validate, query.

The public API, in the order of the data's way::

    import pipeline as war

    rules = war.build_rules("classic", {"pickup": "table_order"})   # or war.load_rules(path)
    war.generate("data/classic", [war.Plan(rules, 1000)], seed=42)
    war.query("data/classic", name="outcomes")                       # a pyarrow Table
    print(war.render_text(war.replay_game("data/classic", 17)))
    assert war.validate("data/classic").ok

- VARIANTS: every variant by name (its title, docs/rules.md section, options and their defaults).
- build_rules, load_rules: a rule set (a model.schema.RuleSet) from a variant and options, or
  from a TOML or JSON file.
- Plan, make_plans, generate: what to generate (rule set, games, deals, each seat's policy;
  make_plans also expands a tournament) and the dataset it makes.
- open_dataset, replay_game, render_text, validate, query, named_queries: reading a dataset.
- play_game: one game in memory.

Every error a caller can cause is a WarError (RulesError, DealError, DatasetError, GameNotFound,
QueryError, LogMismatch): one line, naming the arguments it is about in backticks (`workers`).

`import pipeline` is cheap: the names are imported on first use (PEP 562), so the `war` command,
which imports this package first, starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import DatasetError, DealError, GameNotFound, LogMismatch, QueryError, RulesError, WarError

__all__ = [
    "VARIANTS", "build_rules", "load_rules",
    "Plan", "make_plans", "generate",
    "open_dataset", "replay_game", "render_text", "validate", "query", "named_queries",
    "play_game",
    "WarError", "RulesError", "DealError", "DatasetError", "GameNotFound", "QueryError", "LogMismatch",
]

# name -> (module, attribute): imported when first asked for
_LAZY = {
    "VARIANTS": ("pipeline.model.variants", "VARIANTS"),
    "build_rules": ("pipeline.model.rules", "build_rules"),
    "load_rules": ("pipeline.model.rules", "load_rules_file"),
    "Plan": ("pipeline.jobs.generate", "Plan"),
    "make_plans": ("pipeline.jobs.generate", "make_plans"),
    "generate": ("pipeline.jobs.generate", "generate"),
    "validate": ("pipeline.jobs.validate", "validate"),
    "query": ("pipeline.jobs.query", "run"),
    "named_queries": ("pipeline.jobs.query", "named_queries"),
}

if TYPE_CHECKING:
    from .jobs.generate import Plan, generate, make_plans
    from .jobs.query import named_queries
    from .jobs.query import run as query
    from .jobs.validate import validate
    from .model.rules import build_rules
    from .model.rules import load_rules_file as load_rules
    from .model.variants import VARIANTS


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def open_dataset(root):
    """The finished dataset at `root` (a folder or a URI): a storage.dataset.Dataset, whose
    `manifest` lists its rule sets (`rule_sets`: rules, policies, seed, games) and files.
    Raises DatasetError for a missing, unfinished or unreadable dataset."""
    from .storage.dataset import Dataset  # lazy: keeps import pipeline cheap

    return Dataset.open(root)


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
