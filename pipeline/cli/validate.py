"""`war validate`: check a dataset against the engine."""

from __future__ import annotations

import typer

import pipeline as war
from pipeline import frontend

from .app import app, prepare_engine, progress


@app.command()
def validate(
    dataset: str = typer.Argument(..., metavar="DATASET", help="Dataset folder or URI."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Processes to validate with, 1 .. 256."),
    deep: bool = typer.Option(False, "--deep", help="Walk every game event by event, even a shard that regenerates exactly."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    show: int = typer.Option(50, "--show", metavar="N", help="Print at most this many problems."),
) -> None:
    """Check a dataset: manifest, checksums, schema, every game's cards, rules and regeneration."""
    if show < 0:
        raise war.DatasetError(f"--show must be at least 0, got {show}")
    frontend.check_validate_workers(workers)

    if war.is_solution(dataset):  # a solution of war solve: its balance equations (--deep: every position's)
        report = war.validate_solution(dataset, deep=deep)
    else:
        rule_sets = war.open_dataset(dataset, check_paths=False).manifest.rule_sets
        total = sum(e.games for e in rule_sets)
        if total:
            prepare_engine([e.rules for e in rule_sets], validation=True)
        with progress(total, "validating", quiet) as tick:
            report = war.validate(dataset, tick, workers=workers, deep=deep)
    for p in report.problems[:show]:
        typer.echo(f"BAD {p}")
    if len(report.problems) > show:
        more = len(report.problems) - show
        typer.echo(f"... and {more} more problem{'' if more == 1 else 's'}")
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(1)

