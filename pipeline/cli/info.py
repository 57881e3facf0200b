"""`war variants` and `war policies`: what can be played."""

from __future__ import annotations

import json

import typer

from ..engines.policies import describe_policies
from ..model.variants import VARIANTS
from .app import app


@app.command()
def variants(as_json: bool = typer.Option(False, "--json", help="Print as JSON.")) -> None:
    """Every variant, its options and their defaults."""
    from ..engines.families import FAMILIES  # lazy: keeps war --help fast
    from ..model.rules import build_rules  # lazy: keeps war --help fast

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
def policies() -> None:
    """The policies players of Steal War and Arneson's War can follow, and the profiles."""
    from ..engines.families import FAMILIES  # lazy: keeps war --help fast

    for line in describe_policies():
        typer.echo(line)
    for v in VARIANTS.values():
        if FAMILIES[v.family].decisions:
            typer.echo(f"{v.name}: decides {', '.join(FAMILIES[v.family].decisions)}")

