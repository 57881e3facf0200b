"""`war solve`: the exact game under shuffled pickup (docs/solve.md)."""

from __future__ import annotations

from pathlib import Path

import typer

import pipeline as war
from pipeline import frontend

from .app import app


@app.command()
def solve(
    variant: str | None = typer.Option(None, "--variant", "-v", metavar="VARIANT", help="Variant [default: classic]."),
    set_: list[str] = typer.Option([], "--set", metavar="OPTION=VALUE", help="A rule option, repeatable (`war variants`)."),
    rules_file: Path | None = typer.Option(None, "--rules", metavar="FILE", help="A whole rule set in TOML or JSON."),
    exact: bool | None = typer.Option(None, "--exact/--float", help="Solve in fractions too, or in float64 only [default: fractions up to 100,000 positions, counted up to the seat swap]."),
    tol: float = typer.Option(1e-13, "--tol", metavar="EPS", help="Iterate until every position has ended with probability 1 - EPS."),
    out: str | None = typer.Option(None, "--out", "-o", metavar="PATH", help="Write the values of every deal as a dataset (a folder)."),
    positions: bool = typer.Option(False, "--positions", help="With --out: every position's values too."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a solution already in --out."),
    from_: str | None = typer.Option(None, "--from", metavar="PATH", help="Solve nothing: ask a solution written by --out (with --query)."),
    query: str = typer.Option("deck", "--query", metavar="NAME", help="With --from: deck, deal, by_top_cards or distribution."),
    deal: int | None = typer.Option(None, "--deal", metavar="I", help="With --query deal: the deal's number."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress line while solving."),
) -> None:
    """The exact game of a 2-seat rule set under shuffled pickup: each deal's chances to win and
    draw, its expected battles and cards laid and the distribution of its battles, by solving
    the chain of its positions."""
    _check_flags(from_, query, deal, out, positions, overwrite,
                 {"--variant": variant, "--set": set_, "--rules": rules_file, "--exact/--float": exact,
                  "--tol": None if tol == 1e-13 else tol, "--out": out, "--positions": positions or None,
                  "--overwrite": overwrite or None})
    if from_ is not None:
        table = war.solution_query(from_, query, deal)
        typer.echo("\t".join(table.column_names))
        for row in table.to_pylist():
            typer.echo("\t".join(_said(v) for v in row.values()))
        return
    rules = frontend.rule_set(variant, set_, rules_file)
    war.check_solvable(rules)
    if not 0 < tol < 1:
        raise war.UsageError("`tol` is a probability between 0 and 1, such as 1e-13", params=("tol",))
    if out is not None:
        war.check_solution_out(out, overwrite)
    solution = _solved(rules, exact, tol, quiet)
    # written before anything is said: a reader that closes stdout early (`| head -1`) ends the
    # command at its next line, and the solution must not be what it loses
    written = None if out is None else war.write_solution(out, solution, positions=positions, overwrite=overwrite)
    for line in war.solution_lines(solution):
        typer.echo(line)
    if written is not None:
        typer.echo(f"written to {out}: {written}")


def _solved(rules, exact: bool | None, tol: float, quiet: bool):
    """Solve, saying on stderr how far it is: a big deck spends minutes reaching its positions
    and more sweeping them, and a silent terminal reads as a hang."""
    from rich.console import Console  # lazy: keeps war --help fast

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        return war.solve_rules(rules, exact=exact, tol=tol)
    with console.status("reaching every position of the deck") as status:
        chain = war.build_chain(rules)
        # a new spinner draws the line at once (rich's Status.update); a sweep's line waits for a tick
        status.update(f"{chain.rows:,} positions: sweeping to {tol:.0e}", spinner="dots")

        def heard(sweeps: int, worst: float) -> None:
            status.update(f"{chain.rows:,} positions, sweep {sweeps:,}: a game goes on with chance {worst:.0e} "
                          f"(to {tol:.0e})")

        told = []

        def exact_step() -> None:  # solve_exact's check between its steps: the sweeps are over
            if not told:
                told.append(True)
                status.update(f"{chain.rows:,} positions: finding the exact fractions", spinner="dots")

        return war.solve_rules(rules, exact=exact, tol=tol, chain=chain, progress=heard, interrupted=exact_step)


def _check_flags(from_, query, deal, out, positions, overwrite, solving: dict) -> None:
    """Refuse a flag that would do nothing here rather than let it pass unheard: --from asks a
    solution written already (no rules, nothing solved or written), --query and --deal ask
    only with --from, --positions and --overwrite only say how --out is written."""
    if from_ is not None:
        given = [flag for flag, value in solving.items() if value not in (None, [], False)]
        if given:
            raise war.UsageError(f"--from asks a solution already written: {', '.join(given)} would change nothing "
                                 f"(solve again without --from)", params=("from",))
        if deal is not None and query != "deal":
            raise war.UsageError(f"--deal names the deal of --query deal; --query {query} would not read it",
                                 params=("deal",))
        return
    if query != "deck" or deal is not None:
        raise war.UsageError("--query and --deal ask a solution written by --out: give it with --from PATH",
                             params=("from",))
    if out is None and (positions or overwrite):
        raise war.UsageError(f"{'--positions' if positions else '--overwrite'} says how --out is written: give "
                             f"--out PATH", params=("out",))


def _said(value) -> str:
    return f"{value:.15g}" if isinstance(value, float) else str(value)
