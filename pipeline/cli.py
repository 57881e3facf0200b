"""The `war` command: parses arguments, calls the library, prints. One error boundary in `main`
turns every WarError into one line on stderr and a non-zero exit, saying the library's parameter
names as this command's flags (`workers` -> --workers).

Heavy modules (pyarrow, duckdb, pydantic, rich's progress bar) are imported inside the commands
that use them, each import marked `# lazy`, so `war --help` stays fast.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import nullcontext
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from .engines.policies import describe_policies, parse_seating
from .errors import QueryError, RulesError, WarError
from .model.variants import VARIANTS

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Seeded games of War and its variants: generate, replay, validate, query.")


class ReplayFormat(str, Enum):
    text = "text"
    json = "json"


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


# The flag of each library parameter that is not --NAME (a WarError's `params`).
FLAGS = {"policies": "--policy", "options": "--set", "params": "--param"}


def flag(param: str) -> str:
    """The command-line flag for a library parameter: --NAME (dashes for underscores), or FLAGS'."""
    return FLAGS.get(param, "--" + param.replace("_", "-"))


def _err(text: str) -> None:
    typer.echo(text, err=True)


def _progress(total: int, label: str, quiet: bool):
    """A rich progress bar on stderr (nothing when quiet or not a terminal)."""
    if quiet:
        return nullcontext(lambda n: None)
    from rich.console import Console  # lazy: keeps war --help fast
    from rich.progress import (  # lazy: keeps war --help fast
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    if not console.is_terminal:
        return nullcontext(lambda n: None)

    class _Bar:
        def __enter__(self):
            self.p = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                              console=console, transient=False)
            self.p.__enter__()
            self.task = self.p.add_task(label, total=total)
            return lambda n: self.p.advance(self.task, n)

        def __exit__(self, *exc):
            return self.p.__exit__(*exc)

    return _Bar()


@app.command()
def variants(as_json: bool = typer.Option(False, "--json", help="Print as JSON.")) -> None:
    """Every variant, its options and their defaults."""
    from .engines.families import FAMILIES  # lazy: keeps war --help fast
    from .model.rules import build_rules  # lazy: keeps war --help fast

    out = []
    for v in VARIANTS.values():
        rules = build_rules(v.name).model_dump(mode="json")
        out.append({"variant": v.name, "title": v.title, "rules": f"docs/rules.md {v.section}",
                    "summary": v.summary, "defaults": {k: rules[k] for k in v.options},
                    "decisions": list(FAMILIES[v.family].decisions)})
    if as_json:
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for v in out:
        typer.echo(f"{v['variant']:<12} {v['title']} ({v['rules']}): {v['summary']}")
        typer.echo("             " + ", ".join(f"{k}={val}" for k, val in v["defaults"].items()))


@app.command()
def generate(
    variant: List[str] = typer.Option([], "--variant", "-v", help="Variant (repeat for several in one dataset)."),
    games: Optional[int] = typer.Option(None, "--games", "-n", help="Games per rule set [default: 1000, or one per deal]."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Master seed, 0 .. 2^64-1 [default: 0, or the dataset's with --append]."),
    out: Optional[str] = typer.Option(None, "--out", "-o", help="Dataset folder or file:// URI [default: data/<variant>-s<seed>]."),
    set_: List[str] = typer.Option([], "--set", help="OPTION=VALUE, repeatable (docs/rules.md section 8)."),
    rules_file: List[Path] = typer.Option([], "--rules", help="A whole rule set in TOML or JSON (repeatable)."),
    deals: Optional[Path] = typer.Option(None, "--deals", help="JSON Lines of explicit deals; game i plays line i."),
    policy: List[str] = typer.Option([], "--policy", "-p", help="SEAT=POLICY for variants with decisions (SEAT * for all seats); see `war policies`."),
    tournament: List[str] = typer.Option([], "--tournament", "-t", help="A policy in a tournament (repeat): every pair plays the same seeds, both seatings."),
    workers: int = typer.Option(1, "--workers", "-w", help="Processes to generate with."),
    shard_size: int = typer.Option(2000, "--shard-size", help="Games per part file."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out."),
    append: bool = typer.Option(False, "--append", help="Add these rule sets to the finished dataset in --out."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run of the same command."),
    executor: str = typer.Option("local", "--executor", help="local (process pool) or dask."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. tcp://host:8786."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Generate a dataset of seeded games into Parquet."""
    from .jobs.generate import generate as run_generate  # lazy: keeps war --help fast
    from .jobs.generate import make_plans  # lazy: keeps war --help fast
    from .model.rules import build_rules, load_rules_file, parse_sets  # lazy: keeps war --help fast
    from .storage.location import location  # lazy: keeps war --help fast

    options = parse_sets(set_)
    rule_sets = [build_rules(name, options) for name in variant]
    if rules_file and options:
        raise RulesError("--set applies to --variant; put options for a --rules file in the file")
    rule_sets += [load_rules_file(p) for p in rules_file]
    if not rule_sets:
        rule_sets = [build_rules("classic", options)]
    if executor not in ("local", "dask"):
        raise RulesError(f"--executor is local or dask, got {executor!r}")
    if (executor == "dask") != (scheduler is not None):
        raise RulesError("--executor dask needs --scheduler ADDRESS (and --scheduler needs --executor dask)")
    plans = make_plans(rule_sets, games, deals, parse_seating(policy), tournament)
    if append and out is None:
        raise RulesError("--append needs --out, the dataset to add to")
    if out is None:
        out = Path("data") / f"{'-'.join(dict.fromkeys(r.variant for r in rule_sets))}-s{seed or 0}"
    out = location(out)
    total = sum(p.games for p in plans)
    start = time.perf_counter()
    with _progress(total, "generating", quiet) as tick:
        manifest = run_generate(out, plans, seed, workers=workers, overwrite=overwrite,
                                shard_size=shard_size, progress=tick, append=append, resume=resume,
                                scheduler=scheduler)
    took = time.perf_counter() - start
    new = {e.ordinal for e in manifest.rule_sets[-len(plans):]}
    size = {t: sum((out / f.path).stat().st_size for f in manifest.files if f.table == t and f.rule_set in new)
            for t in ("games", "events")}
    typer.echo(f"wrote {total} games ({len(plans)} rule set{'s' if len(plans) > 1 else ''}) to {out}: "
               f"games {size['games'] / 1e6:.1f} MB, events {size['events'] / 1e6:.1f} MB "
               f"({(size['games'] + size['events']) / total:.0f} bytes a game); "
               f"{took:.1f} s, {total / took:.0f} games/s")


@app.command()
def policies() -> None:
    """The policies players of Steal War and Arneson's War can follow, and the profiles."""
    from .engines.families import FAMILIES  # lazy: keeps war --help fast

    for line in describe_policies():
        typer.echo(line)
    for v in VARIANTS.values():
        if FAMILIES[v.family].decisions:
            typer.echo(f"{v.name}: decides {', '.join(FAMILIES[v.family].decisions)}")


@app.command()
def replay(
    dataset: str = typer.Argument(..., help="Dataset folder (or file:// URI)."),
    game: int = typer.Argument(..., help="game_id (see the games table)."),
    battle: Optional[int] = typer.Option(None, "--battle", "-b", help="Show only battle N, with full piles."),
    fmt: ReplayFormat = typer.Option(ReplayFormat.text, "--format", "-f", help="text or json."),
) -> None:
    """Replay one game from its log, battle by battle, checked against the engine."""
    from .jobs.replay import as_json, render_text, replay_game  # lazy: keeps war --help fast

    rp = replay_game(dataset, game)
    if fmt is ReplayFormat.json:
        typer.echo(json.dumps(as_json(rp, battle), ensure_ascii=False))
    else:
        typer.echo(render_text(rp, battle))


@app.command()
def validate(
    dataset: str = typer.Argument(..., help="Dataset folder (or file:// URI)."),
    workers: int = typer.Option(1, "--workers", "-w", help="Processes to validate with."),
    deep: bool = typer.Option(False, "--deep", help="Walk every game event by event, even a shard that regenerates exactly."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    show: int = typer.Option(50, "--show", help="Print at most this many problems."),
) -> None:
    """Check a dataset: manifest, checksums, schema, every game's cards, rules and regeneration."""
    from .jobs.validate import validate as run_validate  # lazy: keeps war --help fast
    from .storage.dataset import Dataset  # lazy: keeps war --help fast

    total = sum(e.games for e in Dataset.open(dataset).manifest.rule_sets)
    with _progress(total, "validating", quiet) as tick:
        report = run_validate(dataset, tick, workers=workers, deep=deep)
    for p in report.problems[:show]:
        typer.echo(f"BAD {p}")
    if len(report.problems) > show:
        typer.echo(f"... and {len(report.problems) - show} more problems")
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def query(
    dataset: Optional[str] = typer.Argument(None, help="Dataset folder (or file:// URI)."),
    name: Optional[str] = typer.Argument(None, help="A named query (see --list)."),
    sql: Optional[str] = typer.Option(None, "--sql", help="Ad-hoc SQL over the views games, events, event_rows, rules, battles, cards."),
    list_: bool = typer.Option(False, "--list", help="List the named queries."),
    param: List[str] = typer.Option([], "--param", "-p", help="NAME=VALUE for a named query's parameter."),
    fmt: OutputFormat = typer.Option(OutputFormat.table, "--format", "-f", help="table, csv, json or parquet."),
    output: Optional[Path] = typer.Option(None, "--output", help="Write to FILE instead of stdout."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --output file."),
) -> None:
    """Answer a question with DuckDB SQL: a named query or --sql."""
    from .jobs.query import named_queries, run  # lazy: keeps war --help fast

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
    from .jobs.output import write_result  # lazy: keeps war --help fast

    write_result(table, fmt.value, output)


@app.command()
def demo(
    out: str = typer.Option("data/demo", "--out", "-o", help="Where to write the demo dataset."),
    games: int = typer.Option(2000, "--games", "-n", help="Games to generate."),
) -> None:
    """The main job on a small default: generate a dataset, replay a game, answer questions."""
    from .jobs.generate import Plan  # lazy: keeps war --help fast
    from .jobs.generate import generate as run_generate  # lazy: keeps war --help fast
    from .jobs.output import write_result  # lazy: keeps war --help fast
    from .jobs.query import run  # lazy: keeps war --help fast
    from .jobs.replay import render_text, replay_game  # lazy: keeps war --help fast
    from .jobs.validate import validate as run_validate  # lazy: keeps war --help fast
    from .model.rules import build_rules  # lazy: keeps war --help fast

    typer.echo(f"== war generate --variant classic --games {games} --seed 42 --out {out} --overwrite")
    start = time.perf_counter()
    with _progress(games, "generating", False) as tick:
        run_generate(out, [Plan(build_rules("classic"), games)], 42, overwrite=True, progress=tick)
    typer.echo(f"{games} games in {time.perf_counter() - start:.1f} s")
    shortest = run(out, sql="SELECT game_id FROM games WHERE outcome = 'win' AND war_battles > 0 "
                            "ORDER BY battles, game_id LIMIT 1").to_pylist()[0]["game_id"]
    typer.echo(f"\n== war replay {out} {shortest}")
    typer.echo(render_text(replay_game(out, shortest)))
    for name in ("outcomes", "game_length", "seat_win_rate", "war_depth"):
        typer.echo(f"\n== war query {out} {name}")
        write_result(run(out, name=name), "table", None)
    typer.echo(f"\n== war validate {out}")
    report = run_validate(out)
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(1)


def main() -> None:
    try:
        app()
    except WarError as err:
        _err(f"error: {err.spoken(flag)}")
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        _err("interrupted")
        sys.exit(130)
    except Exception as err:  # the last line of defence: no traceback for a user
        if os.environ.get("WAR_DEBUG"):
            raise
        _err(f"internal error: {type(err).__name__}: {err} (set WAR_DEBUG=1 for the traceback)")
        sys.exit(1)


if __name__ == "__main__":
    main()
