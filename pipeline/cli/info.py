"""`war variants` and `war policies`: what can be played."""

from __future__ import annotations

import json

import typer

import pipeline as war

from .app import app


@app.command()
def variants(as_json: bool = typer.Option(False, "--json", help="Print as JSON.")) -> None:
    """Every variant, its options and their defaults."""
    out = war.describe_variants()
    if as_json:
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for v in out:
        typer.echo(f"{v['variant']:<12} {v['title']} ({v['rules']}): {v['summary']}")
        typer.echo("             " + ", ".join(f"{k}={val}" for k, val in v["defaults"].items()))



@app.command()
def policies() -> None:
    """The policies players can follow where they decide (Steal War, Arneson's War...), and the profiles."""
    for line in war.describe_policies():
        typer.echo(line)
