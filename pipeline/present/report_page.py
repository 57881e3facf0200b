"""The report as one self-contained HTML page, and its charts as files.

The page holds everything it shows: charts are inline SVG (rendered by vl-convert, no script),
the style sheet is inline, fonts are the reader's own (no web font), so it opens from a file://
URL with the network off and can be mailed. Under every chart are the rows of the named queries
it draws, each cell carrying the exact value (`data-value`, JSON) next to its rounded text: the
report's numbers are those queries' results, and a test reads them back.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import ReportError
from ..storage.files import atomic_write_bytes, make_folder
from .report import ReportData, build_report_data
from .charts import overview_palette, rule_set_palette, sections
from .charts.figure import Figure, Palette
from .charts.render import render_png, render_svg
from .numbers import pct

GAME_PAGES = "{stem}-games"      # the folder of linked replay pages, beside the report


def default_game_href(stem: str) -> Callable[[int], str]:
    return lambda game_id: f"{GAME_PAGES.format(stem=stem)}/{game_id}.html"


def all_sections(data: ReportData):
    import altair as alt  # lazy

    with alt.utils.schemapi.debug_mode(False):
        return sections(data)


# ----------------------------------------------------------------------------- numbers

PERCENT = re.compile(r"(share|^ci_|^exact$)")


def fmt(column: str, value) -> str:
    """A cell as a reader wants it: shares as percentages, counts with separators."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(fmt(column, v) for v in value) or "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if PERCENT.search(column):
            return pct(value, 2)
        if value.is_integer() and abs(value) < 1e15:
            return f"{value:,.0f}"
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}" if column not in ("seat", "winner", "rank", "game_id", "bucket") else str(value)
    return str(value)


def _json(value) -> str:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        value = None
    return json.dumps(value, separators=(",", ":"))


def numbers_table(name: str, rows: list[dict], params: dict[str, str], columns: list[str] | None = None) -> str:
    """The rows of named query `name` as a table; each cell keeps its exact value in data-value."""
    if not rows:
        return ""
    columns = columns or list(rows[0])
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for r in rows:
        cells = "".join(f"<td data-col=\"{html.escape(c)}\" data-value=\"{html.escape(_json(r[c]))}\">"
                        f"{html.escape(fmt(c, r[c]))}</td>" for c in columns)
        body.append(f"<tr>{cells}</tr>")
    p = html.escape(json.dumps(params, sort_keys=True))
    return (f'<div class="scroll"><table class="numbers" data-query="{html.escape(name)}" data-params="{p}">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def command(dataset: str, name: str, params: dict[str, str]) -> str:
    ps = "".join(f" --param {k}={v}" for k, v in params.items())
    return f"war query {dataset} {name}{ps}"


# ----------------------------------------------------------------------------- the page

CSS = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f7f8fa; --accent: #2f6fb0; }
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 "Helvetica Neue", Helvetica, Arial, "Liberation Sans", "DejaVu Sans", sans-serif; }
header.top { background: #1f2933; color: #f5f7fa; padding: 28px 40px 22px; }
header.top h1 { margin: 0 0 4px; font-size: 26px; font-weight: 650; letter-spacing: -0.01em; }
header.top .meta { margin: 0; color: #cbd2d9; font-size: 14px; }
header.top code { color: #fff; background: rgba(255,255,255,0.08); }
nav.toc { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid var(--line);
  padding: 8px 40px; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 14px; }
nav.toc a { color: var(--accent); text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
main { max-width: 1240px; margin: 0 auto; padding: 8px 40px 60px; }
section.part { margin-top: 34px; scroll-margin-top: 48px; }
section.part > h2 { font-size: 22px; margin: 0 0 4px; padding-bottom: 6px; border-bottom: 2px solid var(--ink); }
section.part > h2 .sub { font-size: 14px; font-weight: 400; color: var(--muted); margin-left: 8px; }
h3 { font-size: 17px; margin: 26px 0 10px; color: var(--ink); }
p.lead { color: var(--muted); margin: 8px 0 0; max-width: 900px; }
.chips { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0 0; padding: 0; list-style: none; }
.chips li { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; font-size: 13px; }
.chips .id { color: var(--muted); font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; margin-left: 6px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 18px; align-items: start; }
figure.fig { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px 10px;
  min-width: 0; }
figure.fig.wide { grid-column: 1 / -1; }
figure.fig h4 { margin: 0; font-size: 15px; }
figure.fig .note { margin: 2px 0 8px; color: var(--muted); font-size: 13px; }
figure.fig .chart { overflow-x: auto; }
figure.fig .chart svg { display: block; max-width: 100%; height: auto; }
.source { font-size: 12px; color: var(--muted); margin: 6px 0 0; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.88em; background: #f0f2f5;
  padding: 1px 4px; border-radius: 3px; }
details { margin-top: 6px; font-size: 13px; }
details summary { cursor: pointer; color: var(--accent); }
.scroll { overflow-x: auto; max-height: 420px; overflow-y: auto; margin-top: 6px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { background: #f0f2f5; font-weight: 600; position: sticky; top: 0; }
td:first-child, th:first-child { text-align: left; }
table.summary { background: #fff; border: 1px solid var(--line); margin: 12px 0 18px; }
.wide-scroll { overflow-x: auto; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; vertical-align: -1px; }
table.summary td.label, table.summary th.label { text-align: left; }
table.games a { color: var(--accent); font-weight: 600; }
.kind { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; background: #eef2f7; }
footer { max-width: 1240px; margin: 0 auto; padding: 20px 40px 40px; color: var(--muted); font-size: 13px; }
@media (max-width: 700px) { main, footer { padding-left: 14px; padding-right: 14px; }
  .grid { grid-template-columns: 1fr; } }
"""


def _figure(fig: Figure, data: ReportData, dataset: str, variant: str | None) -> str:
    tables, sources = [], []
    for name in fig.queries:
        rows = data.rows(name, variant)
        for key in ("rules_id", "by"):
            if key in fig.extra:
                rows = [r for r in rows if r[key] == fig.extra[key]]
        params = data.params.get(name, {})
        sources.append(f"<code>{html.escape(command(dataset, name, params))}</code>")
        tables.append(f"<p class=\"source\">{html.escape(name)}:</p>" + numbers_table(name, rows, params))
    wide = " wide" if fig.wide else ""
    return (f'<figure class="fig{wide}" id="fig-{html.escape(fig.id)}" data-queries="{html.escape(" ".join(fig.queries))}">'
            f"<h4>{html.escape(fig.title)}</h4>"
            f'<p class="note">{html.escape(fig.note)}</p>'
            f'<div class="chart">{render_svg(fig)}</div>'
            f'<p class="source">From {" and ".join(sources)}</p>'
            f"<details><summary>Numbers</summary>{''.join(tables)}</details></figure>")


def _chips(infos, palette: Palette) -> str:
    items = []
    for r in infos:
        seats = f" · {len(r.seatings)} seatings" if len(r.seatings) > 1 else (
            f" · {' vs '.join(r.seatings[0])}" if r.seatings else "")
        items.append(f'<li><span class="dot" style="background:{palette.color(r.rules_id)}"></span>'
                     f"{html.escape(palette.label(r.rules_id))}<span class=\"id\">{html.escape(r.rules_id)}</span>"
                     f" · {r.games:,} games{html.escape(seats)}</li>")
    return f'<ul class="chips">{"".join(items)}</ul>'


SUMMARY_COLUMNS = (("outcomes", "games", "games"), ("outcomes", "win_share", "win"),
                   ("outcomes", "draw_share", "draw"), ("outcomes", "capped_share", "capped"),
                   ("outcomes", "cycle_share", "cycle"), ("game_length", "mean_battles", "mean"),
                   ("game_length", "median_battles", "median"), ("game_length", "p90_battles", "p90"),
                   ("game_length", "p99_battles", "p99"), ("game_length", "max_battles", "longest"),
                   ("wars_per_game", "mean_war_battles", "war battles"),
                   ("first_battle_war_exact", "share", "1st battle war"))


def summary_table(data: ReportData, palette: Palette) -> str:
    """One line per rule set: how its games end and how long they last (cells from the queries)."""
    by = {name: {r["rules_id"]: r for r in data.rows(name)} for name in {q for q, _, _ in SUMMARY_COLUMNS}}
    head = "".join(f"<th>{html.escape(t)}</th>" for _, _, t in SUMMARY_COLUMNS)
    body = []
    for info in data.rule_sets:
        cells = []
        for name, col, _ in SUMMARY_COLUMNS:
            row = by[name].get(info.rules_id)
            value = None if row is None else row[col]
            text = pct(value, 1) if "share" in col and value is not None else fmt(col, value)
            cells.append(f'<td data-query="{name}" data-col="{col}" data-value="{html.escape(_json(value))}">'
                         f"{html.escape(text)}</td>")
        body.append(f'<tr><td class="label"><span class="dot" style="background:'
                    f'{palette.color(info.rules_id)}"></span>{html.escape(info.title)}</td>'
                    f'<td class="label">{html.escape(info.label)}</td>{"".join(cells)}</tr>')
    return (f'<div class="wide-scroll"><table class="summary"><thead><tr><th class="label">variant</th>'
            f'<th class="label">rule set</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


KIND_TITLES = {"longest": "longest", "cycle": "cycle", "capped": "capped", "deepest_war": "deepest war"}


def games_section(data: ReportData, game_href: Callable[[int], str]) -> str:
    rows = data.rows("notable_games")
    if not rows:
        return ""
    columns = ["kind", "rank", "game_id", "battles", "outcome", "winner", "wars", "max_war_depth",
               "cycle_length", "policies"]
    parts = []
    for v in data.variants:
        mine = [r for r in rows if r["variant"] == v]
        if not mine:
            continue
        parts.append(f"<h3>{html.escape(data.rule_sets_of(v)[0].title)}</h3>")
        for info in data.rule_sets_of(v):
            these = [r for r in mine if r["rules_id"] == info.rules_id]
            if not these:
                continue
            head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
            body = []
            for r in these:
                cells = []
                for c in columns:
                    value = r[c]
                    text = html.escape(fmt(c, value))
                    if c == "game_id":
                        text = f'<a href="{html.escape(game_href(value))}">{text}</a>'
                    elif c == "kind":
                        text = f'<span class="kind">{html.escape(KIND_TITLES.get(value, value))}</span>'
                    cells.append(f'<td data-col="{c}" data-value="{html.escape(_json(value))}">{text}</td>')
                body.append(f"<tr>{''.join(cells)}</tr>")
            p = html.escape(json.dumps(data.params.get("notable_games", {}), sort_keys=True))
            parts.append(f'<p class="lead">{html.escape(info.label)} <code>{html.escape(info.rules_id)}</code></p>'
                         f'<div class="scroll"><table class="numbers games" data-query="notable_games" '
                         f'data-params="{p}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}'
                         f"</tbody></table></div>")
    return "".join(parts)


def render_report(data: ReportData, dataset: str, game_href: Callable[[int], str],
                  links: Iterable[tuple[str, str]] = ()) -> str:
    """The whole report page. `game_href(game_id)` is where a game's replay page is; `links`
    are extra (label, href) entries for the top bar (the server's games list)."""
    parts = all_sections(data)
    nav = [(f"#{s.id}", s.title) for s in parts] + [("#games", "Games worth a look")] + list(links)
    body = []
    for s in parts:
        variant = None if s.id == "overview" else s.id
        if variant is None:
            palette = overview_palette(data)
            intro = (f'<p class="lead">Every rule set of the dataset, one line each: how its games end '
                     f'and how long they last. The sections below take one variant at a time.</p>'
                     f"{summary_table(data, palette)}")
            sub = ""
        else:
            palette = rule_set_palette(data, variant)
            infos = data.rule_sets_of(variant)
            from ..model.variants import VARIANTS  # noqa: PLC0415

            v = VARIANTS.get(variant)
            sub = f'<span class="sub">docs/rules.md section {v.section}: {html.escape(v.summary)}</span>' if v else ""
            intro = _chips(infos, palette)
        groups = []
        for title, figs in s.groups:
            heading = f"<h3>{html.escape(title)}</h3>" if title else ""
            groups.append(heading + '<div class="grid">'
                          + "".join(_figure(f, data, dataset, variant) for f in figs) + "</div>")
        body.append(f'<section class="part" id="{html.escape(s.id)}"><h2>{html.escape(s.title)}{sub}</h2>'
                    f"{intro}{''.join(groups)}</section>")
    body.append('<section class="part" id="games"><h2>Games worth a look</h2>'
                '<p class="lead">The longest games of each rule set, those that cycled, those stopped at '
                'the battle cap, and those with the deepest wars. Each game id opens its replay.</p>'
                f"{games_section(data, game_href)}</section>")
    meta = (f"dataset <code>{html.escape(dataset)}</code> · {data.games:,} games · "
            f"{len(data.rule_sets)} rule sets · {len(data.variants)} variants · master seed "
            f"{data.master_seed} · engine {html.escape(data.engine_version)}")
    nav_html = "".join(f'<a href="{html.escape(h)}">{html.escape(t)}</a>' for h, t in nav)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>War report: {html.escape(dataset)}</title><style>{CSS}</style></head><body>"
            f'<header class="top"><h1>War report</h1><p class="meta">{meta}</p></header>'
            f'<nav class="toc">{nav_html}</nav><main>{"".join(body)}</main>'
            "<footer>Every number here is a named query's result: the command under each chart gives "
            "it again, and <code>war query --list</code> describes them. Charts: Vega-Lite, rendered "
            "to SVG by vl-convert.</footer></body></html>\n")


# ----------------------------------------------------------------------------- files

def _check_output(path: Path, overwrite: bool) -> None:
    if path.exists() and not overwrite:
        raise ReportError(f"{path} exists (use `overwrite` to replace it)", params=("overwrite",))
    if not path.parent.is_dir():
        raise ReportError(f"folder {str(path.parent)!r} does not exist", params=("output",))


def write_report(root, output: Path, dataset: str | None = None, game_pages: bool = True,
                 games_per_kind: int = 3, overwrite: bool = False) -> list[Path]:
    """Write the report to `output` and, with `game_pages`, the replay page of every game it
    links to in a folder beside it (`report-games/` for `report.html`). The paths written."""
    output = Path(output)
    _check_output(output, overwrite)
    data = build_report_data(root, games_per_kind)
    dataset = dataset or str(root)
    stem = output.stem
    written = []
    href = default_game_href(stem)
    if game_pages:
        from .replay_page import replay_page  # lazy: the page builder of `war replay --format html`

        folder = output.parent / GAME_PAGES.format(stem=stem)
        make_folder(folder, parents=False)
        for game_id in sorted({r["game_id"] for r in data.rows("notable_games")}):
            path = folder / f"{game_id}.html"
            atomic_write_bytes(path, replay_page(root, game_id).encode("utf-8"))
            written.append(path)
    page = render_report(data, dataset, href)
    atomic_write_bytes(output, page.encode("utf-8"))
    return [output, *written]


def write_charts(root, folder: Path, fmt: str = "svg", overwrite: bool = False) -> list[Path]:
    """Every chart of the report as its own file (`classic-length-ecdf.svg`...) in `folder`."""
    if fmt not in ("svg", "png"):
        raise ReportError(f"`format` must be html, svg or png for charts, got {fmt!r}", params=("format",))
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ReportError(f"{folder} is a file; charts go in a folder", params=("output",))
    data = build_report_data(root)
    figures = [f for s in all_sections(data) for _, figs in s.groups for f in figs]
    paths = [folder / f"{f.id}.{fmt}" for f in figures]
    clash = [p for p in paths if p.exists()]
    if clash and not overwrite:
        raise ReportError(f"{clash[0]} exists (use `overwrite` to replace it)", params=("overwrite",))
    make_folder(folder)
    for f, path in zip(figures, paths):
        blob = render_svg(f).encode("utf-8") if fmt == "svg" else render_png(f)
        atomic_write_bytes(path, blob)
    return paths
