"""`war search`: records by search, in a deck too big to play every deal of."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import typer

import pipeline as war
from pipeline import frontend

from .app import app, choices, command_line, plural, prepare_engine, progress

GoalChoice = choices("GoalChoice", ("longest", "cycle"))
MeasureChoice = choices("MeasureChoice", ("battles", "cards"))


@app.command()
def search(
    variant: str | None = typer.Option(None, "--variant", "-v", metavar="VARIANT", help="Variant [default: classic]."),
    set_: list[str] = typer.Option([], "--set", metavar="OPTION=VALUE", help="A rule option, repeatable (`war variants`)."),
    rules_file: Path | None = typer.Option(None, "--rules", metavar="FILE", help="A whole rule set in TOML or JSON."),
    goal: GoalChoice = typer.Option("longest", "--goal", metavar="GOAL", help="longest: the longest game that ends; cycle: a deal that cycles."),
    measure: MeasureChoice = typer.Option("battles", "--measure", metavar="MEASURE", help="What makes a game long: battles, or cards laid on the table."),
    rounds: int | None = typer.Option(None, "--rounds", metavar="N", help="Rounds each searcher plays in all, 16,384 deals a round in open play, 1,024 otherwise [default: 20, unless --seconds]."),
    seconds: float | None = typer.Option(None, "--seconds", metavar="S", help="Stop the whole search after S seconds of wall clock."),
    searchers: int = typer.Option(2, "--searchers", metavar="N", help="Searchers, each from its own random deals."),
    keep: int = typer.Option(10, "--keep", metavar="N", help="Records to keep (distinct by ranks)."),
    seed: int = typer.Option(0, "--seed", "-s", metavar="SEED", help="Seed of the searchers' random deals."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Processes to search with."),
    scheduler: str | None = typer.Option(None, "--scheduler", metavar="ADDRESS", help="Search on this Dask cluster."),
    out: str = typer.Option(..., "--out", "-o", metavar="PATH", help="The dataset of the records (explicit deals); the search is saved beside it."),
    records: Path | None = typer.Option(None, "--records", metavar="FILE", help="Keep the best deal in this records file (e.g. data/records.jsonl) when it beats the file's."),
    start: Path | None = typer.Option(None, "--start", metavar="FILE", help="Start from these known deals: a --deals file, or a records file (its lines of this rule set), put in every searcher's pool to be given a longer past."),
    resume: bool = typer.Option(False, "--resume", help="Continue the search saved beside --out (to --rounds in all, or for --seconds more)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out, and a search saved beside it."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Look for record deals (the longest game that ends, or a cycle): rounds of random deals on
    the compiled engine, the best given a longer past where open play allows; the records are
    written as a dataset that replays and validates."""
    rules = frontend.rule_set(variant, set_, rules_file)
    if rounds is None and seconds is None:
        rounds = 20
    frontend.check_search(rules, goal.value, rounds, seconds, searchers, keep, workers, scheduler, measure.value, seed)
    state = frontend.search_state(out, resume, overwrite)
    frontend.check_records_out(out, overwrite or (resume and state is not None and state.exists()))
    if records is not None:
        war.check_kept(rules)
        war.read_records(records)
    with frontend.search_lock(state):  # another search into --out is refused here, before any deal is played
        prepare_engine([rules])
        command = "war " + shlex.join(command_line() or ["search"])
        with progress(searchers * rounds if rounds and seconds is None else 0, "searching",
                      quiet or seconds is not None) as tick:
            found = war.search(rules, goal.value, rounds, seconds, searchers, seed, keep, workers, scheduler, tick,
                               measure=measure.value, state=state, resume=resume, overwrite=overwrite,
                               command=command, start=start)
        kind = war.record_kind(goal.value, measure.value)
        _say(frontend.render_found(rules, found, kind))
        war.write_records(out, rules, found.records, seed, overwrite=True if resume else overwrite)
        polished = f", {found.taken_back:,} positions taken back" if found.taken_back else ""
        _say(f"{plural(len(found.records), 'record')} written to {out} (game i plays record i); "
             f"{plural(found.deals, 'deal')} played{polished} in {found.wall_seconds:,.1f} s"
             + (f" over {len(found.sessions)} sessions" if len(found.sessions) > 1 else ""))
        if records is not None:
            held = war.keep_record(records, war.record_entry(rules, found.records[0], found, kind))
            if held is None:
                _say(f"kept in {records}: {_said(found.records[0], kind)}")
            else:
                _say(f"not kept in {records}: it holds {held['battles']:,} battles, "
                     f"{held['cards_laid']:,} cards laid for this rule set")


def _say(text: str) -> None:
    """Print a line of the search's; a reader that hung up (`| head -1`) has what it wanted, and
    the search goes on to write its dataset and records file, saying nothing more (as `war
    query` does)."""
    try:
        typer.echo(text)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _said(record, kind: str) -> str:
    if kind == "cycle":
        return f"a deal that cycles after {record.battles:,} battles"
    return f"{record.battles:,} battles, {record.cards_laid:,} cards laid"
