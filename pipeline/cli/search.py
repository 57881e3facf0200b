"""`war search`: records by search, in a deck too big to play every deal of."""

from __future__ import annotations

import time
from pathlib import Path

import typer

import pipeline as war
from pipeline import frontend

from .app import app, choices, plural, prepare_engine, progress

GoalChoice = choices("GoalChoice", ("longest", "cycle"))


@app.command()
def search(
    variant: str | None = typer.Option(None, "--variant", "-v", metavar="VARIANT", help="Variant [default: classic]."),
    set_: list[str] = typer.Option([], "--set", metavar="OPTION=VALUE", help="A rule option, repeatable (`war variants`)."),
    rules_file: Path | None = typer.Option(None, "--rules", metavar="FILE", help="A whole rule set in TOML or JSON."),
    goal: GoalChoice = typer.Option("longest", "--goal", metavar="GOAL", help="longest: the longest game that ends; cycle: a deal that cycles."),
    rounds: int | None = typer.Option(None, "--rounds", metavar="N", help="Rounds of 256 neighbours each searcher plays [default: 200, unless --seconds]."),
    seconds: float | None = typer.Option(None, "--seconds", metavar="S", help="Search for S seconds instead of a number of rounds."),
    searchers: int = typer.Option(2, "--searchers", metavar="N", help="Searchers, each from its own random deals."),
    keep: int = typer.Option(10, "--keep", metavar="N", help="Records to keep (distinct by ranks)."),
    seed: int = typer.Option(0, "--seed", "-s", metavar="SEED", help="Seed of the searchers' random deals."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Processes to search with."),
    scheduler: str | None = typer.Option(None, "--scheduler", metavar="ADDRESS", help="Search on this Dask cluster."),
    out: str = typer.Option(..., "--out", "-o", metavar="PATH", help="The dataset of the records (explicit deals)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Look for record deals (the longest game that ends, or a cycle) by random deals and local
    search, and write them as a dataset that replays and validates."""
    rules = frontend.rule_set(variant, set_, rules_file)
    if rounds is None and seconds is None:
        rounds = 200
    frontend.check_search(rules, goal.value, rounds, seconds, searchers, keep, workers, scheduler, seed)
    frontend.check_records_out(out, overwrite)
    prepare_engine([rules])
    start = time.perf_counter()
    with progress(searchers * rounds if rounds else 0, "searching", quiet or rounds is None) as tick:
        records = war.search(rules, goal.value, rounds, seconds, searchers, seed, keep, workers, scheduler, tick)
    took = time.perf_counter() - start
    for record in records:
        typer.echo(f"{record.score:>6}  {record.outcome:<5} {record.battles:>6} battles  "
                   + " ".join(map(str, record.deck)))
    war.write_records(out, rules, records, seed, overwrite)
    typer.echo(f"{plural(len(records), 'record')} in {took:.1f} s, written to {out} (game i plays record i)")
