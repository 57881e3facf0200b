"""The report as one self-contained HTML page (templates/report.html), and its charts as files.

The page holds everything it shows: charts are inline SVG (rendered by vl-convert, no script),
the style sheet is inline, fonts are the reader's own (no web font), so it opens from a file://
URL with the network off and can be mailed. Under every chart are the rows of the named queries
it draws, each cell carrying the exact value (`data-value`, JSON) next to its rounded text: the
report's numbers are those queries' results, and a test reads them back.
"""

from __future__ import annotations

import shlex
import threading

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup

from ..errors import ReportError
from ..model.families import registry
from ..model.plural import plural
from ..model.variants import VARIANTS, Variant
from ..solve.folder import is_solution
from ..storage.dataset import Dataset
from ..storage.files import atomic_write_bytes, check_output, is_stream, make_folder
from .charts import Section, overview_palette, rule_set_palette, sections
from .charts.figure import Figure, Palette
from .charts.painter import Painter
from .charts.render import render_png
from .comparisons import comparisons
from .findings import Finding, all_findings
from .numbers import column_format
from .pages import render
from .report import EXACT_QUERIES, ReportData, RuleSetInfo, Steps, build_report_data

GAME_PAGES = "{stem}-games"      # the folder of linked replay pages, beside the report


def default_game_href(stem: str) -> Callable[[int], str]:
    """A notable game's link, to its page beside the report: the folder's name percent-encoded,
    so a report named `run#2.html` links `run%232-games/0.html`, not a fragment of `run`."""
    folder = quote(GAME_PAGES.format(stem=stem))
    return lambda game_id: f"{folder}/{game_id}.html"


def all_sections(data: ReportData) -> list[Section]:
    """The report's sections, built without Altair's schema validation (tests validate them)."""
    import altair as alt

    with alt.utils.schemapi.debug_mode(False):
        return sections(data)


def command(dataset: str, name: str, params: dict[str, str]) -> str:
    """The `war query` command that gives a named query's rows again, quoted for a shell."""
    return shlex.join(["war", "query", dataset, name, *(a for k, v in params.items() for a in ("--param", f"{k}={v}"))])


# ----------------------------------------------------------------------------- what the page shows


@dataclass
class Source:
    """The rows of one named query that a chart draws, and the command that gives them again."""

    query: str
    params: dict[str, str]
    rows: list[dict]
    command: str


@dataclass
class Chart:
    """A figure as the page shows it: the chart as SVG, then its queries' rows."""

    figure: Figure
    svg: Markup
    sources: list[Source]


@dataclass
class Said:
    """A finding as the page shows it: its sentence, the named query that gives its numbers,
    the command that runs it, and those numbers exactly (for a test to read back)."""

    text: str
    query: str
    command: str
    values: dict


@dataclass
class SectionView:
    """A section of the page: the overview (`overview`) or a variant's, with what it found in
    words and its charts by group."""

    id: str
    title: str
    overview: bool
    variant: Variant | None  # the variant's entry in the registry, when war knows it
    rule_sets: list[RuleSetInfo]
    palette: Palette
    groups: list[tuple[str, list[Chart]]]
    findings: list[Said]
    finding_sources: list[Source]  # the rows of the findings' queries, for the section's variant
    exact: list[Source] = field(default_factory=list)  # its rule sets that play every deal: exact results
    family: list[Source] = field(default_factory=list)  # its family's report queries that no chart draws


def chart(fig: Figure, svg: str, data: ReportData, dataset: str, variant: str | None) -> Chart:
    sources = []
    for name in fig.queries:
        rows = data.rows(name, variant)
        for key in ("rules_id", "by"):
            if key in fig.extra:
                rows = [r for r in rows if r[key] == fig.extra[key]]
        params = data.params.get(name, {})
        sources.append(Source(name, params, rows, command(dataset, name, params)))
    return Chart(fig, Markup(svg), sources)


def section_view(s: Section, data: ReportData, dataset: str, svgs: dict[str, str],
                 found: list[Finding] = ()) -> SectionView:
    """The section `s` of the page, its charts drawn already (`svgs`, by figure id)."""
    overview = s.id == "overview"
    variant = None if overview else s.id
    palette = overview_palette(data) if overview else rule_set_palette(data, variant)
    infos = data.rule_sets if overview else data.rule_sets_of(variant)
    groups = [(title, [chart(f, svgs[f.id], data, dataset, variant) for f in figs]) for title, figs in s.groups]
    said = [] if overview else [Said(f.text, f.query, command(dataset, f.query, data.params.get(f.query, {})),
                                     f.values) for f in found]
    sources = [Source(q, data.params.get(q, {}), data.rows(q, variant), command(dataset, q, data.params.get(q, {})))
               for q in dict.fromkeys(f.query for f in said)]
    exact = [] if overview else exact_sources(data, dataset, variant)
    drawn = {q for _, charts in groups for c in charts for q in c.figure.queries}
    own = [] if overview else family_sources(data, dataset, variant, drawn)
    return SectionView(s.id, s.title, overview, None if overview else VARIANTS.get(variant), infos, palette,
                       groups, said, sources, exact, own)


def family_sources(data: ReportData, dataset: str, variant: str, drawn: set[str]) -> list[Source]:
    """The rows of the queries the variant's family asks the report to run (Family.report) that
    no chart of its section draws: a family war has no chart for shows its numbers as tables."""
    spec = VARIANTS.get(variant)
    family = registry().families.get(spec.family) if spec else None
    out = []
    for name in (r.query for r in family.reports) if family else ():
        rows = data.rows(name, variant)
        if name not in drawn and rows:
            params = data.params.get(name, {})
            out.append(Source(name, params, rows, command(dataset, name, params)))
    return out


def exact_sources(data: ReportData, dataset: str, variant: str) -> list[Source]:
    """The exact results of a variant's rule sets that play every deal, a source each query
    with rows (their shares are fractions of all deals, not estimates)."""
    every = {r.name for r in data.rule_sets_of(variant) if r.all_deals}
    out = []
    for name, _ in EXACT_QUERIES:
        rows = [r for r in data.rows(name, variant) if r.get("rule_set") in every]
        if rows:
            params = data.params.get(name, {})
            out.append(Source(name, params, rows, command(dataset, name, params)))
    return out


SUMMARY_COLUMNS = (("outcomes", "games", "games"), ("outcomes", "win_share", "win"),
                   ("outcomes", "draw_share", "draw"), ("outcomes", "capped_share", "capped"),
                   ("outcomes", "cycle_share", "cycle"), ("game_length", "mean_battles", "mean length"),
                   ("game_length", "median_battles", "median"), ("game_length", "p90_battles", "p90"),
                   ("game_length", "p99_battles", "p99"), ("game_length", "max_battles", "longest that ends"),
                   ("wars_per_game", "mean_war_battles", "war battles"),
                   ("first_battle_war_exact", "share", "1st battle war"))


def summary(data: ReportData) -> list[tuple[RuleSetInfo, list[tuple[str, str, object, str]]]]:
    """One line per rule set: how its games end and how long they last, each cell (query,
    column, value, text) from a query's row, each column in one format. A rule set stored as
    counts alone (`--log counts`) has no games rows: its line says what its exact queries give
    (counted_cells)."""
    by = {name: {r["rule_set"]: r for r in data.rows(name)} for name in {q for q, _, _ in SUMMARY_COLUMNS}}
    found = {info.name: counted_cells(data, info) if info.counted else
             {(name, col): (name, col, by[name].get(info.name, {}).get(col)) for name, col, _ in SUMMARY_COLUMNS}
             for info in data.rule_sets}
    values = {(name, col): [found[info.name].get((name, col), (name, col, None))[2] for info in data.rule_sets]
              for name, col, _ in SUMMARY_COLUMNS}
    formats = {key: column_format(column, key[1], share_digits=1) for key, column in values.items()}
    quantiles = [("game_length", c) for c in ("median_battles", "p90_battles", "p99_battles")]
    alike = column_format([v for key in quantiles for v in values[key]], "battles")  # one format: no 1,071.0 beside 355
    formats.update({key: alike for key in quantiles})
    lines = []
    for info in data.rule_sets:
        cells = []
        for name, col, _ in SUMMARY_COLUMNS:
            query, column, value = found[info.name].get((name, col), (name, col, None))
            cells.append((query, column, value, formats[(name, col)](value)))
        lines.append((info, cells))
    return lines


def counted_cells(data: ReportData, info: RuleSetInfo) -> dict[tuple[str, str], tuple[str, str, object]]:
    """The summary's cells of a rule set stored as counts, from its exact queries: its deals,
    how they end (exact_outcomes: a result no deal has is none of them), the exact mean length of
    the games that end (exact_length) and the longest (records); (query, column, value) each,
    under the summary column (query, column) it fills."""
    outcomes = [r for r in data.rows("exact_outcomes") if r["rule_set"] == info.name]
    if not outcomes:
        return {}
    deals = outcomes[0]["denominator"]
    share = {r["result"]: r["numerator"] / deals for r in outcomes}
    wins = sum(v for k, v in share.items() if k.startswith("seat "))
    length = next((r for r in data.rows("exact_length") if r["rule_set"] == info.name), None)
    record = next((r for r in data.rows("records") if r["rule_set"] == info.name
                   and r.get("measure", "battles") == "battles" and r["rank"] == 1), None)
    cells = {("outcomes", "games"): ("exact_outcomes", "denominator", deals),
             ("outcomes", "win_share"): ("exact_outcomes", "share", wins),
             **{("outcomes", f"{kind}_share"): ("exact_outcomes", "share", share.get(kind, 0.0))
                for kind in ("draw", "capped", "cycle")}}
    if length is not None:
        cells[("game_length", "mean_battles")] = ("exact_length", "mean_battles", length["mean_battles"])
    if record is not None:
        cells[("game_length", "max_battles")] = ("records", "battles", record["battles"])
    return cells


def meta(data: ReportData) -> str:
    """The report's line of what it covers: games played and deals counted, rule sets, variants."""
    played = sum(r.games for r in data.rule_sets if not r.counted)
    counted = sum(r.games for r in data.rule_sets if r.counted)
    parts = ([plural(played, "game")] if played or not counted else []) + \
        ([f"{plural(counted, 'deal')} counted"] if counted else [])
    return " · ".join(parts + [plural(len(data.rule_sets), "rule set"), plural(len(data.variants), "variant")])


KIND_TITLES = {"longest": "longest that ends", "cycle": "cycle", "capped": "capped", "deepest_war": "deepest war"}
GAME_COLUMNS = ["kind", "rank", "game_id", "battles", "outcome", "winner", "wars", "max_war_depth",
                "cycle_length", "policies"]


def notable_games(data: ReportData) -> list[tuple[str, list[tuple[RuleSetInfo, list[dict]]]]]:
    """The games worth a look by variant (its title) and rule set; those with none left out."""
    rows = data.rows("notable_games")
    out = []
    for v in data.variants:
        mine = [(info, [r for r in rows if r["rule_set"] == info.name]) for info in data.rule_sets_of(v)]
        mine = [(info, these) for info, these in mine if these]
        if mine:
            out.append((data.rule_sets_of(v)[0].title, mine))
    return out


def render_report(data: ReportData, dataset: str, game_href: Callable[[int], str] | None,
                  links: Iterable[tuple[str, str]] = (), pages: str | None = None,
                  steps: Steps | None = None, drill: bool = False, painter: Painter | None = None) -> str:
    """The whole report page. `game_href(game_id)` is where a game's replay page is (None: the
    games are listed without links, so a page that travels alone has no dead ones); `pages`
    names the folder of replay pages written beside the report, which the page says must go
    with it; `links` are extra (href, label) entries for the bar of links (the server's games
    list); `drill` makes the marks that stand for games links to them (the server's,
    present/drill.py). Each chart drawn is a step of `steps`; `painter` draws them (None: one
    after another, here)."""
    steps = steps or Steps()
    parts = all_sections(data)
    figures = [f for s in parts for _, figs in s.groups for f in figs]
    steps.add(len(figures))
    svgs = dict(zip((f.id for f in figures), (painter or Painter(helper=False)).svgs(figures, drill, steps.advance)))
    found, judge = all_findings(data)
    views = [section_view(s, data, dataset, svgs, found.get(s.id, [])) for s in parts]
    games = notable_games(data)
    counted = [r for r in data.rule_sets if r.counted]
    nav = [(f"#{s.id}", s.title) for s in views] + ([("#games", "Games worth a look")] if games else []) + list(links)
    return render("report.html", title=f"War report: {dataset}", heading="War report", links=nav,
                  dataset=dataset, data=data, sections=views, summary=summary(data), meta=meta(data),
                  counted=counted,
                  summary_columns=SUMMARY_COLUMNS, games=games, game_columns=GAME_COLUMNS,
                  kind_titles=KIND_TITLES, game_href=game_href, pages=pages, judge=judge,
                  comparisons=comparisons(data), names=True)


# ----------------------------------------------------------------------------- files

def _check_output(path: Path, overwrite: bool, game_pages: bool) -> None:
    """Before any work: the report, and the folder of replay pages beside it, are new or may be
    replaced, and neither is inside a dataset's own files."""
    check_output(path)
    if path.is_dir():  # before "exists": --overwrite would not make a folder a file
        raise ReportError(f"{str(path)!r} is a folder; give the report a file name (report.html)",
                          params=("output",))
    if game_pages and is_stream(path):
        raise ReportError(f"{path} is a stream, with no folder beside it for the replay pages the report "
                          f"links to; write it without them (--no-game-pages)", params=("game_pages",))
    if path.exists() and not overwrite and not is_stream(path):
        raise ReportError(f"{path} exists (use `overwrite` to replace it)", params=("overwrite",))
    pages = path.parent / GAME_PAGES.format(stem=path.stem)
    if game_pages:
        check_output(pages)  # a loop of links, or a link to nothing, in its place
    if game_pages and not overwrite and (pages.exists() or pages.is_symlink()):
        raise ReportError(f"{pages} exists, the replay pages of an earlier report (use `overwrite` to "
                          f"replace them)", params=("overwrite",))


def write_report(root, output: Path, dataset: str | None = None, game_pages: bool = True,
                 games_per_kind: int = 3, overwrite: bool = False,
                 progress: Callable[[int, int], None] | None = None, draw_beside: bool = False) -> list[Path]:
    """Write the report to `output` and, with `game_pages`, the replay page of every game it
    links to in a folder beside it (`report-games/` for `report.html`). The paths written.
    `progress(advance, total)` hears of each query run, chart drawn and page written (Steps).
    `draw_beside`: half the charts drawn by a helper process forked now (present/charts/painter.py),
    for a process with no thread of its own yet (`war report`'s)."""
    if is_solution(root):  # a solution of war solve: its own page, nothing beside it (solution_page.py)
        from .solution_page import write_solution_report

        return write_solution_report(root, output, dataset, overwrite)
    output = Path(output)
    Dataset.open(root)  # the dataset's own error first: an old report.html in the way is not the news
    _check_output(output, overwrite, game_pages)
    steps = Steps(progress)
    dataset = dataset or str(root)
    stem = output.stem
    href = default_game_href(stem) if game_pages else None
    pages = _Pages(root, output.parent / GAME_PAGES.format(stem=stem), steps) if game_pages else None
    painter = Painter(helper=draw_beside)  # forked first, before DuckDB's threads and the pages' start
    try:
        data = build_report_data(root, games_per_kind, steps,
                                 on_result=pages.start if pages is not None else None)
        page = render_report(data, dataset, href, pages=GAME_PAGES.format(stem=stem) if game_pages else None,
                             steps=steps, painter=painter)
        written = pages.finish() if pages is not None else []
    except BaseException:
        if pages is not None:
            pages.stop()
        raise
    finally:
        painter.close()
    atomic_write_bytes(output, page.encode("utf-8"))
    if pages is not None:
        _drop_stale_pages(output.parent / GAME_PAGES.format(stem=stem), written)
    return [output, *written]


def _drop_stale_pages(folder: Path, written: list[Path]) -> None:
    """The replay pages an earlier report wrote into `folder` (GAME.html) that this one does not
    link, removed once this report is written: the folder is mailed with the page, and another
    dataset's games in it would be read as this one's. Only war's own page names go."""
    kept = {p.name for p in written}
    for page in folder.glob("*.html"):
        if page.stem.isdigit() and page.name not in kept and page.is_file() and not page.is_symlink():
            page.unlink(missing_ok=True)


class _Pages:
    """The replay pages of the report's notable games, written on a thread of their own as soon
    as notable_games answers: Python's work (replaying, rendering) beside DuckDB's on the other
    queries, which leaves the interpreter free. Each page is written atomically."""

    def __init__(self, root, folder: Path, steps: Steps):
        self.root, self.folder, self.steps = root, folder, steps
        self.thread: threading.Thread | None = None
        self.written: list[Path] = []
        self.error: BaseException | None = None
        self.stopping = threading.Event()
        self.made = False  # whether this report made the folder (then a report that fails takes it away)

    def start(self, name: str, table) -> None:
        if name != "notable_games" or self.thread is not None:
            return
        games = sorted({r["game_id"] for r in table.to_pylist()})
        self.made = not (self.folder.exists() or self.folder.is_symlink())
        make_folder(self.folder)  # and the report's own folder, when it is missing
        self.steps.add(len(games))
        self.thread = threading.Thread(target=self._write, args=(games,), name="war-replay-pages", daemon=True)
        self.thread.start()

    def _write(self, games: list[int]) -> None:
        from .replay_page import replay_page  # lazy: the page builder of `war replay --format html`

        try:
            for game_id in games:
                if self.stopping.is_set():
                    return
                path = self.folder / f"{game_id}.html"
                atomic_write_bytes(path, replay_page(self.root, game_id).encode("utf-8"))
                self.written.append(path)
                self.steps.advance()
        except BaseException as err:  # raised again where the report waits for the pages
            self.error = err

    def finish(self) -> list[Path]:
        if self.thread is None:
            make_folder(self.folder)  # no notable games: the folder the page names, empty
        else:
            self.thread.join()
        if self.error is not None:
            raise self.error
        return self.written

    def stop(self) -> None:
        """The report failed or was stopped: no more pages, and a folder it made taken away with
        the pages in it, for no report links to them and a new run would be refused for them as
        "the replay pages of an earlier report"."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
        if self.made:
            for path in self.written:
                path.unlink(missing_ok=True)
            try:
                self.folder.rmdir()
            except OSError:  # something else put there meanwhile: left as it is
                pass


def _no_charts(root, data) -> str:
    """Why the report of the dataset at `root` (its ReportData) draws no chart, said before any
    file is written. Every chart draws a sample of games rows, which a dataset of counts alone
    (`--log counts`) has none of: its `--keep` rows are a choice, not a sample."""
    said = f"{str(root)!r} has no charts to write"
    if data.rule_sets and all(r.counted for r in data.rule_sets):
        rows = (f" and the {data.kept:,} games rows --keep chose, a choice, not a sample," if data.kept
                else ", no games rows,")
        return (f"{said}: it stores counts of its deals (--log counts){rows} and every chart draws a sample of "
                f"games rows; the HTML report (`format` html) shows what its counts answer")
    return f"{said}: no section of its report draws one; the HTML report (`format` html) shows its tables"


def write_charts(root, folder: Path, fmt: str = "svg", overwrite: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Every chart of the report as its own file (`classic-length-ecdf.svg`...) in `folder`;
    `progress` as write_report's."""
    if fmt not in ("svg", "png"):
        raise ReportError(f"`format` must be html, svg or png for charts, got {fmt!r}", params=("format",))
    if is_solution(root):
        raise ReportError(f"{str(root)!r} is a solution of war solve: its report is one page (--format html)",
                          params=("format",))
    folder = Path(folder)
    check_output(folder)
    if folder.exists() and not folder.is_dir():
        raise ReportError(f"{folder} is a file; charts go in a folder", params=("output",))
    steps = Steps(progress)
    data = build_report_data(root, steps=steps)
    figures = [f for s in all_sections(data) for _, figs in s.groups for f in figs]
    if not figures:  # an empty folder and "wrote 0 charts" would read as a success
        raise ReportError(_no_charts(root, data), params=("format",))
    paths = [folder / f"{f.id}.{fmt}" for f in figures]
    clash = [p for p in paths if p.exists()]
    if clash and not overwrite:
        raise ReportError(f"{clash[0]} exists (use `overwrite` to replace it)", params=("overwrite",))
    make_folder(folder)
    steps.add(len(figures))
    if fmt == "svg":
        with Painter() as painter:
            blobs = [svg.encode("utf-8") for svg in painter.svgs(figures, drawn=steps.advance)]
        for path, blob in zip(paths, blobs):
            atomic_write_bytes(path, blob)
        return paths
    for f, path in zip(figures, paths):
        atomic_write_bytes(path, render_png(f))
        steps.advance()
    return paths
