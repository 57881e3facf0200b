"""`war combine`: slices of one enumeration's counts joined into one dataset."""

from __future__ import annotations

import typer

import pipeline as war

from .app import app


@app.command()
def combine(
    slices: list[str] = typer.Argument(..., metavar="SLICE...", help="Datasets of counts (--log counts --deal-range), each a slice of the same deals."),
    out: str = typer.Option(..., "--out", "-o", metavar="PATH", help="The joined dataset."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out."),
) -> None:
    """Join slices of one enumeration's counts, written on one machine or many, into one dataset."""
    done = war.combine(slices, out, overwrite=overwrite)
    for name, (first, stop, total) in done.deals.items():
        whole = "every deal" if (first, stop) == (0, total) else \
            f"deals {first:,} .. {stop - 1:,} of {total:,} (a slice: its answers cover these deals only)"
        typer.echo(f"{name}: {whole}")
    for entry in done.manifest.rule_sets:
        if entry.keep is not None:
            typer.echo(f"{entry.label}: keeps the games rows of {entry.games:,} deals (--keep {entry.keep})")
    typer.echo(f"joined {len(slices)} slice{'s' * (len(slices) != 1)} into {out}")
