"""`war variants` and `war policies`: what can be played."""

from __future__ import annotations

import json
import re

import typer

import pipeline as war

from .app import app


@app.command()
def variants(as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
             details: bool = typer.Option(False, "--details", help="Every option's help, values, default and "
                                                                   "family, and every policy's help and parameter.")) -> None:
    """Every variant, its options and their defaults."""
    out = war.variant_details() if details else war.describe_variants()
    if as_json:
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for v in out:
        typer.echo(f"{v['variant']:<12} {v['title']} ({v['rules']}): {v['summary']}")
        if not details:
            typer.echo("             " + ", ".join(f"{k}={val}" for k, val in v["defaults"].items()))
            continue
        for line in _option_lines(v["options"]):
            typer.echo("  " + line)
        for d in v["decisions"]:
            for line in _decision_lines(d):
                typer.echo("  " + line)
        typer.echo("")


def _values(o: dict) -> str:
    """The values an option takes, as `war variants --details` says them."""
    if o["choices"]:
        said = ", ".join(map(str, o["choices"]))
    elif o["kind"] == "integer":
        low, high = o["minimum"], o["maximum"]
        said = (f"{low}..{high}" if low is not None and high is not None else f"{low} or more" if low is not None
                else f"at most {high}" if high is not None else "an integer")
    else:
        said = f"text matching {o['pattern']}" if o["pattern"] else "any text"
    return said + "".join(f" or {w}" for w in o["words"])


def _option_lines(options: list[dict]) -> list[str]:
    rows = [(o["name"], str(o["default"]), _values(o), f"[{o['family']}]", o["help"]) for o in options]
    widths = [max(len(r[i]) for r in rows) for i in range(4)] if rows else []
    head = ("option", "default", "values", "[family]", "help")
    widths = [max(w, len(h)) for w, h in zip(widths, head)]
    return [" ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + " " + r[4] for r in [head, *rows]]


def _decision_lines(d: dict) -> list[str]:
    """A decision (from war.policy_details) and its policies, a line each."""
    title = re.sub(r"\[\[[^?\]]*\?[^|\]]*\|([^\]]*)\]\]", r"\1", d["title"])  # a template's plain arm
    lines = [f"decision {d['name']} [{d['family']}]: {title} (chooses {d['chooses']}; default {d['default']})"]
    names = [p["name"] + (":N" if p["parameter"] else "") for p in d["policies"]]
    width = max(map(len, names), default=0)
    for name, p in zip(names, d["policies"]):
        said = p["help"] + (" (randomized)" if p["randomized"] else "")
        if p["parameter"]:
            said += f"; N: {p['parameter']['help']} (a whole number, 0 or more; no default: give it)"
        lines.append(f"  {name:<{width}}  {said}")
    return lines


@app.command()
def policies(details: bool = typer.Option(False, "--details", help="Every decision with each policy's help and "
                                                                   "parameter, and the profiles.")) -> None:
    """The policies players can follow where they decide (Steal War, Arneson's War...), and the profiles."""
    if not details:
        for line in war.describe_policies():
            typer.echo(line)
        return
    for d in war.policy_details():
        for line in _decision_lines(d):
            typer.echo(line)
    profiles = war.profile_details()
    typer.echo("profiles:")
    width = max(map(len, profiles), default=0)
    for name, chosen in profiles.items():
        typer.echo(f"  {name:<{width}}  " + (", ".join(f"{k}:{v}" for k, v in chosen.items()) or "the defaults"))
