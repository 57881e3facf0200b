"""The report of a solution of `war solve` (`war report SOLUTION`, the home page of `war serve
SOLUTION`): one self-contained page (templates/solution.html) with the exact block: the deck's
chances and expected length as fractions where solved exactly (no interval: they are not
estimates), beside their decimals and error bounds; the quantiles and distribution of the number
of battles; the odds by the number of top-rank cards seat 0 is dealt. Every number is a named
query's (queries/solution/), whose command the page gives, and every cell carries its value
(`data-value`) for a reader or a test.
"""

from __future__ import annotations

import shlex
from fractions import Fraction
from pathlib import Path

from markupsafe import Markup

from ..errors import ReportError
from ..jobs.query import run
from ..solve.folder import read_manifest
from ..storage.files import atomic_write_bytes, check_output, is_stream
from .pages import render

FIGURES = (("P(seat 0 wins)", "p_win0", "bound"), ("P(seat 1 wins)", "p_win1", "bound"),
           ("P(draw)", "p_draw", "bound"), ("E[battles]", "mean_battles", "battles_bound"),
           ("E[cards laid]", "mean_laid", "laid_bound"))


def _command(dataset: str, name: str, params: dict | None = None) -> str:
    return shlex.join(["war", "query", dataset, name, *(a for k, v in (params or {}).items()
                                                        for a in ("--param", f"{k}={v}"))])


def _fraction(text: str | None) -> dict | None:
    """A fraction as the page shows it: its text, its digits and its decimal."""
    if text is None:
        return None
    value = Fraction(text)
    return {"text": text if value.denominator != 1 else str(value.numerator), "digits": len(str(value.denominator)),
            "decimal": float(value)}


def figures(deck: dict) -> list[dict]:
    """The deck's figures, a row each: the float, its bound and its exact fraction where there is one."""
    return [{"label": label, "column": column, "value": deck[column], "bound": deck.get(bound),
             "exact": _fraction(deck.get(f"exact_{column}"))} for label, column, bound in FIGURES]


def by_top_cards_exact(root, rows: list[dict]) -> None:
    """P(seat 0 wins) of each group of by_top_cards as an exact fraction, summed from its deals'
    (`exact_p_win0`), into each row (where solved exactly)."""
    deals = run(root, sql="SELECT top_cards, exact_p_win0 FROM deals WHERE exact_p_win0 IS NOT NULL").to_pydict()
    sums: dict[int, list] = {}
    for top, text in zip(deals["top_cards"], deals["exact_p_win0"]):
        entry = sums.setdefault(top, [Fraction(0), 0])
        entry[0] += Fraction(text)
        entry[1] += 1
    for row in rows:
        entry = sums.get(row["top_cards"])
        if entry is not None and entry[1] == row["deals"]:
            value = entry[0] / entry[1]
            row["exact_p_win0"] = str(value)


def distribution_svg(rows: list[dict], last: int, width: int = 760, height: int = 180) -> Markup:
    """P(N = t) for t up to `last` as an inline SVG bar chart (no script, no font fetched)."""
    shown = [r for r in rows if r["battles"] <= last]
    if not shown:
        return Markup("")
    top = max(r["p"] for r in shown) or 1.0
    left, bottom, step = 44, 24, (width - 54) / max(len(shown), 1)
    bars = []
    for i, r in enumerate(shown):
        h = (height - bottom - 10) * r["p"] / top
        x, y = left + i * step, height - bottom - h
        bars.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(step - 1, 0.5):.1f}" height="{h:.1f}" '
                    f'fill="#3557a8"><title>P(N = {r["battles"]}) = {r["p"]:.6g}</title></rect>')
    ticks = []
    for t in range(0, last + 1, max(1, last // 10)):
        x = left + (t + 0.5) * step
        ticks.append(f'<text x="{x:.1f}" y="{height - 8}" font-size="10" text-anchor="middle">{t}</text>')
    axis = (f'<text x="4" y="14" font-size="10">{top:.3g}</text>'
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#888"/>')
    return Markup(f'<svg class="distribution" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                  f'role="img" aria-label="P(N = t), the distribution of the number of battles">'
                  + axis + "".join(bars) + "".join(ticks) + "</svg>")


def render_solution_report(root, dataset: str | None = None, links=()) -> str:
    """The page of the solution at `root` (the module's docstring); `links` are extra (href,
    label) entries for its bar of links (the server's)."""
    dataset = dataset or str(root)
    body = read_manifest(root)
    deck = run(root, name="solved_deck").to_pylist()[0]
    tops = run(root, name="solved_by_top_cards").to_pylist()
    if deck["exact"]:
        by_top_cards_exact(root, tops)
    dist = run(root, name="solved_distribution").to_pylist()
    last = deck["battles_p99"] if deck["battles_p99"] is not None else (dist[-1]["battles"] if dist else 0)
    commands = {name: _command(dataset, name) for name in ("solved_deck", "solved_by_top_cards", "solved_distribution")}
    commands["solved_deal"] = _command(dataset, "solved_deal", {"deal": 0})
    stored = [f["path"] for f in body["files"]]
    deck_title = "The deck, exactly" if deck["exact"] else "The deck, solved"
    nav = [("#deck", deck_title), ("#length", "How long"), ("#top-cards", "By top cards")] + list(links)
    return render("solution.html", title=f"War solved: {dataset}", heading="War solved", links=nav,
                  dataset=dataset, deck=deck, figures=figures(deck), tops=tops, dist=dist[:last + 1],
                  svg=distribution_svg(dist, last), commands=commands, body=body, stored=stored,
                  deck_title=deck_title)


def write_solution_report(root, output: Path, dataset: str | None = None, overwrite: bool = False) -> list[Path]:
    """Write the solution's report to `output` (one page: nothing beside it); the paths written."""
    output = Path(output)
    check_output(output)
    if output.exists() and not overwrite and not is_stream(output):
        raise ReportError(f"{output} exists (use `overwrite` to replace it)", params=("overwrite",))
    page = render_solution_report(root, dataset)
    atomic_write_bytes(output, page.encode("utf-8"))
    return [output]
