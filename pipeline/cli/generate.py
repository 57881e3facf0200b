"""`war generate` and `war demo`."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import typer

from ..engines.policies import parse_seating
from ..errors import Interrupted, RulesError, StorageError
from .app import app, command_line, interrupted, plural, prepare_engine, progress


@app.command()
def generate(
    variant: list[str] = typer.Option([], "--variant", "-v", metavar="VARIANT", help="Variant (repeat for several in one dataset)."),
    games: int | None = typer.Option(None, "--games", "-n", metavar="N",
                                     help="Games per rule set, 1 .. 1,000,000,000 [default: 1000, or one per deal]."),
    seed: int | None = typer.Option(None, "--seed", "-s", metavar="SEED",
                                    help="Master seed, 0 .. 2^64-1 [default: 0, or the dataset's with --append]."),
    out: str | None = typer.Option(None, "--out", "-o", metavar="PATH",
                                   help="Dataset folder or URI [default: data/VARIANT-sSEED]."),
    set_: list[str] = typer.Option([], "--set", metavar="OPTION=VALUE", help="A rule option, repeatable, each option once (`war variants`)."),
    rules_file: list[Path] = typer.Option([], "--rules", metavar="FILE", help="A whole rule set in TOML or JSON (repeatable)."),
    deals: Path | None = typer.Option(None, "--deals", metavar="FILE", help="JSON Lines of explicit deals; game i plays line i."),
    policy: list[str] = typer.Option([], "--policy", "-p", metavar="SEAT=POLICY", help="SEAT=POLICY for variants with decisions (SEAT * for all seats); see `war policies`."),
    tournament: list[str] = typer.Option([], "--tournament", "-t", metavar="POLICY", help="A policy in a tournament (repeat): every pair plays the same seeds, both seatings."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Processes to generate with, 1 .. 256."),
    shard_size: int = typer.Option(2000, "--shard-size", metavar="N", help="Games per part file, 1 .. 100,000."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out."),
    append: bool = typer.Option(False, "--append", help="Add these rule sets to the finished dataset in --out."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run of the same command."),
    executor: str = typer.Option("local", "--executor", metavar="NAME", help="local (process pool) or dask."),
    scheduler: str | None = typer.Option(None, "--scheduler", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Generate a dataset of seeded games into Parquet."""
    from ..jobs.generate import (
        check_arguments,  # lazy: keeps war --help fast
        make_plans,  # lazy: keeps war --help fast
    )
    from ..jobs.generate import generate as run_generate  # lazy: keeps war --help fast
    from ..engines.choice import compiled_plays  # lazy: keeps war --help fast
    from ..model.rules import (  # lazy: keeps war --help fast
        build_rules,
        load_rules_file,
        parse_sets,
    )
    from ..storage.location import location  # lazy: keeps war --help fast

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
    check_arguments(plans, seed, workers, shard_size)
    if out is None:
        out = Path("data") / f"{'-'.join(dict.fromkeys(r.variant for r in rule_sets))}-s{seed or 0}"
    out = location(out)
    total = sum(p.games for p in plans)
    prepare_engine([p.rules for p in plans if compiled_plays(p.rules, p.deals, p.policies)])
    start = time.perf_counter()
    try:
        with progress(total, "generating", quiet) as tick:
            manifest = run_generate(out, plans, seed, workers=workers, overwrite=overwrite,
                                    shard_size=shard_size, progress=tick, append=append, resume=resume,
                                    scheduler=scheduler)
    except BaseException as err:
        stopped = interrupted(err) and not isinstance(err, Interrupted)
        if stopped or isinstance(err, StorageError):
            raise _unfinished(err if not stopped else None, out) from None
        raise
    took = time.perf_counter() - start
    new = {e.ordinal for e in manifest.rule_sets[-len(plans):]}
    size = {t: sum((out / f.path).stat().st_size for f in manifest.files if f.table == t and f.rule_set in new)
            for t in ("games", "events")}
    typer.echo(f"wrote {plural(total, 'game')} ({plural(len(plans), 'rule set')}) to {out}: "
               f"games {size['games'] / 1e6:.1f} MB, events {size['events'] / 1e6:.1f} MB "
               f"({(size['games'] + size['events']) / total:.0f} bytes a game); "
               f"{took:.1f} s, {total / took:.0f} games/s")


def _unfinished(err: StorageError | None, out) -> Exception:
    """The one line for a run stopped by Ctrl-C (err None) or a failing disk: what happened,
    and the command that finishes the run when it left a journal to finish from."""
    from ..storage.journal import WORK_DIR  # lazy: keeps war --help fast

    what = "interrupted" if err is None else str(err)
    if (out / WORK_DIR).exists():
        args = [a for a in (command_line() or []) if a != "--overwrite"]
        if "--resume" not in args:
            args.append("--resume")
        how = f"war {shlex.join(args)}" if args[:1] == ["generate"] else "the same command with --resume"
        text = f"{what}; finish with: {how}"
    elif (out / "manifest.json").exists():
        text = f"{what}; the dataset in {str(out)!r} is as it was"
    else:
        text = f"{what}; nothing was written to {str(out)!r}"
    if err is None:
        return Interrupted(text)
    return StorageError(text, exit_code=err.exit_code)



@app.command()
def demo(
    out: str = typer.Option("data/demo", "--out", "-o", metavar="PATH", help="Where to write the demo dataset (replaced each run)."),
    games: int = typer.Option(2000, "--games", "-n", metavar="N", help="Games to generate, 1 .. 1,000,000,000."),
) -> None:
    """The main job on a small default: generate a dataset, replay a game, answer questions."""
    from ..jobs.generate import Plan, check_arguments  # lazy: keeps war --help fast
    from ..jobs.generate import generate as run_generate  # lazy: keeps war --help fast
    from ..present.output import write_result  # lazy: keeps war --help fast
    from ..jobs.query import run  # lazy: keeps war --help fast
    from ..jobs.replay import render_text, replay_game  # lazy: keeps war --help fast
    from ..jobs.validate import validate as run_validate  # lazy: keeps war --help fast
    from ..model.rules import build_rules  # lazy: keeps war --help fast

    plans = [Plan(build_rules("classic"), games)]
    check_arguments(plans, 42, 1, 2000)
    typer.echo(f"== war generate --variant classic --games {games} --seed 42 --out {out} --overwrite")
    prepare_engine([p.rules for p in plans], validation=True)
    start = time.perf_counter()
    with progress(games, "generating", False) as tick:
        run_generate(out, plans, 42, overwrite=True, progress=tick)
    typer.echo(f"{plural(games, 'game')} in {time.perf_counter() - start:.1f} s")
    shortest = run(out, sql="SELECT game_id FROM games ORDER BY outcome = 'win' AND war_battles > 0 DESC, "
                            "battles, game_id LIMIT 1").to_pylist()[0]["game_id"]
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

