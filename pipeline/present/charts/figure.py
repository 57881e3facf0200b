"""What every chart of the report shares: its style (fonts, colors, widths), the Figure that
carries a chart with the named queries it draws, the Palette that gives each rule set one color,
and the helpers that turn query rows into chart data.

A chart only encodes rows that a named query returned (it may pick rows, rename or unpivot
them, never aggregate), and names those queries, so every mark on it is a number `war query`
gives. docs/decisions.md says why Altair and vl-convert.
"""

from __future__ import annotations

import functools

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import altair as alt

from ..report import RuleSetInfo

FONT = "Helvetica Neue, Helvetica, Arial, Liberation Sans, DejaVu Sans, sans-serif"
INK = "#1f2933"
MUTED = "#616e7c"
GRID = "#e4e7eb"
CAP = "#c0392b"
# The rule sets' colors, in order: the first eight as far apart as a choice among the common
# qualitative palettes allows (CIEDE2000 at least 20 between any two; tests/colourkit.py), each
# with at least 3:1 contrast against the white page. A ninth rule set and on reuses them with
# dashed lines (Palette.dash).
PALETTE = ["#0072b2", "#d55e00", "#009e73", "#882255", "#cc79a7", "#1f2933", "#999933", "#666666"]
DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3]]
WHITE = "#ffffff"
BLACK = "#000000"
OUTCOME_COLORS = {"win": "#3a9a5b", "draw": "#9aa5b1", "capped": CAP, "cycle": "#e07b28"}
FULL = 1020     # plot width of a chart that spans the page, in pixels
HALF = 450      # plot width of a chart in a half column (its axis adds about 60)
COLUMN = 520    # the whole width a half-column chart has, labels included


def beside(labels) -> int:
    """The plot width left in a half column beside a band of text labels."""
    longest = max((len(str(x)) for x in labels), default=10)
    return COLUMN - min(260, int(6.3 * longest)) - 16


def text_width(text: str, size: float = 10) -> float:
    """A generous estimate of `text`'s width in pixels at font `size`, for placing labels so
    that they never overlap (the sans-serif fonts of FONT are narrower)."""
    return len(text) * size * 0.62 + 2


# ----------------------------------------------------------------------------- contrast

def luminance(color: str) -> float:
    """WCAG relative luminance of `#rrggbb`."""
    channels = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two `#rrggbb` colors, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink_on(fill: str) -> str:
    """The text color for a cell of `fill`: white, else the page's ink, else black, the first
    that meets WCAG AA (4.5:1); black or white always does."""
    for ink in (WHITE, INK, BLACK):
        if contrast(ink, fill) >= 4.5:
            return ink
    return BLACK


def blend(a: str, b: str, t: float) -> str:
    """The color a fraction `t` of the way from `a` to `b`, channel by channel in sRGB (as Vega
    interpolates with `interpolate: rgb`)."""
    ca = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb))


CONFIG = {
    "font": FONT,
    "background": "white",
    "view": {"stroke": None},
    "axis": {"labelColor": MUTED, "titleColor": INK, "gridColor": GRID, "domainColor": "#9aa5b1",
             "tickColor": "#9aa5b1", "labelFontSize": 11, "titleFontSize": 12, "titleFontWeight": 600,
             "labelFlush": False, "labelSeparation": 6},
    # numbers on an axis never run together: Vega drops every other label until they fit
    "axisQuantitative": {"labelOverlap": True},
    "legend": {"labelColor": INK, "titleColor": INK, "labelFontSize": 11, "titleFontSize": 11,
               "labelLimit": 420, "orient": "top", "direction": "vertical", "titleFontWeight": 600},
    "title": {"color": INK, "fontSize": 13, "fontWeight": 600, "anchor": "start", "offset": 6},
    "header": {"labelColor": INK, "labelFontSize": 12, "titleFontSize": 12},
}


@dataclass
class Figure:
    """One chart: its file name stem, title, the named queries it draws, and how to read it."""

    id: str
    title: str
    queries: list[str]
    chart: alt.TopLevelMixin
    note: str = ""
    wide: bool = False
    extra: dict = field(default_factory=dict)

    def spec(self, validate: bool = True) -> dict:
        """Its Vega-Lite specification; `validate` holds it to the schema (the page's charts skip
        it: a second of CPU a dozen charts, and tests validate every one)."""
        spec = self.chart.to_dict(validate=validate)
        spec["config"] = CONFIG
        return spec


class Chart(alt.Chart):
    """Altair's Chart, whose encode() builds a channel given as text ("share:Q") as its class
    (alt.Y) itself: Altair's own way, from_dict, hashes every class of the Vega-Lite schema at
    each call, a third of the report's chart building. The same specification either way."""

    def encode(self, *args, **channels) -> "Chart":
        return super().encode(*args, **{name: _channel(name, value) for name, value in channels.items()})


def _channel(name: str, value):
    if isinstance(value, str):
        return getattr(alt, name[0].upper() + name[1:])(value)
    if isinstance(value, (list, tuple)):
        return [_channel(name, each) for each in value]
    return value


def values(rows: list[dict]) -> alt.Data:
    """Query rows as a chart's data: NaN and infinities as null, list and struct columns left out.
    A tuple, which Altair writes as the same list but does not copy row by row each time a chart
    is layered or given properties (two thirds of the report's chart building)."""
    return alt.Data(values=tuple({k: (None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v)
                                  for k, v in r.items() if not isinstance(v, (list, dict))} for r in rows))


def log_ticks(lo: float, hi: float, steps=(1, 2, 5)) -> list[float]:
    """1-2-5 ticks between lo and hi, for a log axis that should not draw every minor line."""
    out, power = [], 10.0 ** math.floor(math.log10(max(lo, 1e-12)))
    while power <= hi:
        out += [s * power for s in steps if lo <= s * power <= hi]
        power *= 10
    return out


def share_ticks(lo: float, hi: float, count: int = 5) -> tuple[list[float], str]:
    """The ticks of a share axis from `lo` to `hi` (0..1): about `count` of them, a 1-2-5 step
    apart, and the percent format with as many decimals as that step needs, so that no two
    labels read the same (52.5%, not 52% twice at half-percent ticks)."""
    span = max(hi - lo, 1e-9)
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= raw * (1 - 1e-9))
    ticks = _ticks(lo, hi, step)
    while len(ticks) < 2:  # the step overshoots the span (53% to 97% by halves: only 100%, beyond it)
        step = _finer(step)
        ticks = _ticks(lo, hi, step)
    decimals = max(0, -math.floor(math.log10(step * 100) + 1e-9))
    return ticks, f".{decimals}%"


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    """The multiples of `step` from `lo` to `hi`."""
    first = math.ceil(lo / step - 1e-9)
    return [round(i * step, 12) for i in range(first, math.floor(hi / step + 1e-9) + 1)]


def _finer(step: float) -> float:
    """The 1-2-5 step below `step` (0.5 -> 0.2 -> 0.1 -> 0.05)."""
    power = 10.0 ** math.floor(math.log10(step) + 1e-9)
    return {1: 0.5, 2: 1, 5: 2, 10: 5}[round(step / power)] * power


def share_axis(lo: float, hi: float, count: int = 5, **options) -> alt.Axis:
    """An axis of shares from `lo` to `hi` whose labels never repeat (share_ticks)."""
    ticks, fmt = share_ticks(lo, hi, count)
    return alt.Axis(values=ticks, format=fmt, **options)


DEPTH_NAMES = {0: "no war", 1: "war", 2: "double war", 3: "triple war", 4: "quadruple war"}


def depth_name(d: int) -> str:
    return DEPTH_NAMES.get(d, f"{d}-fold war")


class Palette:
    """A color per rule set of a section, the same on every chart of the section; a rule set is
    its name, the `rule_set` of the queries' rows."""

    def __init__(self, rule_sets: list[RuleSetInfo], label: Callable[[RuleSetInfo], str]):
        self.labels = {r.name: label(r) for r in rule_sets}
        self.domain = list(self.labels.values())
        self.range = [PALETTE[i % len(PALETTE)] for i in range(len(self.domain))]
        self.dashes = [DASHES[(i // len(PALETTE)) % len(DASHES)] for i in range(len(self.domain))]

    def __len__(self) -> int:
        return len(self.domain)

    def dash(self) -> alt.StrokeDash:
        """Solid lines for the first len(PALETTE) rule sets, dashed for those that reuse a color."""
        return alt.StrokeDash("rule_set:N", scale=alt.Scale(domain=self.domain, range=self.dashes), legend=None)

    def label(self, rule_set: str) -> str:
        return self.labels[rule_set]

    def color(self, rule_set: str) -> str:
        return self.range[self.domain.index(self.labels[rule_set])]

    def encode(self, title: str | None = "rule set", legend: bool = True, orient: str = "top") -> alt.Color:
        columns = 2 if orient == "top" and len(self.domain) > 3 else 1
        return alt.Color("rule_set:N", title=title,
                         scale=alt.Scale(domain=self.domain, range=self.range),
                         legend=(alt.Legend(columns=columns, orient=orient)
                                 if legend and len(self.domain) > 1 else None))


def with_label(rows: list[dict], palette: Palette) -> list[dict]:
    """The rows of the palette's rule sets, each with its `rule_set` label."""
    return [{**r, "rule_set": palette.label(r["rule_set"])} for r in rows if r["rule_set"] in palette.labels]


def mark_exact(rows: list[dict], data, share: str = "share") -> list[dict]:
    """The rows with `every_deal` set for those of a rule set that plays every deal, whose share
    is exact: drawn with no interval (ci_low and ci_high at the share itself) and a mark of its
    own. The rows of the chart only: the table under it keeps the query's."""
    out = []
    for r in rows:
        exact = data.is_exact(r["rule_set"])
        out.append({**r, "every_deal": exact, **({"ci_low": r[share], "ci_high": r[share]} if exact else {})})
    return out


def exact_said(rows: list[dict], what: str = "share") -> str:
    """The words a chart's note adds when some of its rule sets play every deal."""
    if not any(r.get("every_deal") for r in rows):
        return ""
    every = all(r.get("every_deal") for r in rows)
    return (f" Every {what} here is exact, over every deal of the deck: no interval." if every else
            f" A rule set that plays every deal has an exact {what}: a diamond, with no interval.")


def from_rows(query: str):
    """A chart drawn from a named query's rows of one variant, labelled by rule set: the
    decorated function takes (rows, data, variant, palette); a variant without rows gets no
    chart (None)."""
    def chart(draw):
        @functools.wraps(draw)
        def figure(data, variant: str, palette: "Palette"):
            rows = with_label(data.rows(query, variant), palette)
            return draw(rows, data, variant, palette) if rows else None
        return figure
    return chart
