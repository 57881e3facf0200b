"""The report's charts: Vega-Lite specifications (built with Altair) drawn from the rows of the
report's named queries, rendered to SVG or PNG by vl-convert without a browser.

A chart only encodes rows that a named query returned (it may pick rows, rename or unpivot
them, never aggregate), and names those queries, so every mark on it is a number `war query`
gives. docs/decisions.md says why Altair and vl-convert.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import altair as alt

from .report import ReportData, RuleSetInfo

FONT = "Helvetica Neue, Helvetica, Arial, Liberation Sans, DejaVu Sans, sans-serif"
INK = "#1f2933"
MUTED = "#616e7c"
GRID = "#e4e7eb"
CAP = "#c0392b"
PALETTE = ["#2f6fb0", "#e07b28", "#3a9a5b", "#b8433f", "#7b5ea7", "#8c6d46", "#d264a6", "#6b7b8c",
           "#b5a22c", "#2aa6b8"]
OUTCOME_COLORS = {"win": "#3a9a5b", "draw": "#9aa5b1", "capped": CAP, "cycle": "#e07b28"}
FULL = 1020     # plot width of a chart that spans the page, in pixels
HALF = 450      # plot width of a chart in a half column (its axis adds about 60)
COLUMN = 520    # the whole width a half-column chart has, labels included


def beside(labels) -> int:
    """The plot width left in a half column beside a band of text labels."""
    longest = max((len(str(x)) for x in labels), default=10)
    return COLUMN - min(260, int(6.3 * longest)) - 16

CONFIG = {
    "font": FONT,
    "background": "white",
    "view": {"stroke": None},
    "axis": {"labelColor": MUTED, "titleColor": INK, "gridColor": GRID, "domainColor": "#9aa5b1",
             "tickColor": "#9aa5b1", "labelFontSize": 11, "titleFontSize": 12, "titleFontWeight": 600,
             "labelFlush": False},
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

    def spec(self) -> dict:
        spec = self.chart.to_dict()
        spec["config"] = CONFIG
        return spec


def _values(rows: list[dict]) -> alt.Data:
    clean = []
    for r in rows:
        clean.append({k: (None if isinstance(v, float) and (math.isnan(v) or math.isinf(v)) else v)
                      for k, v in r.items() if not isinstance(v, (list, dict))})
    return alt.Data(values=clean)


def log_ticks(lo: float, hi: float, steps=(1, 2, 5)) -> list[float]:
    """1-2-5 ticks between lo and hi, for a log axis that should not draw every minor line."""
    out, power = [], 10.0 ** math.floor(math.log10(max(lo, 1e-12)))
    while power <= hi:
        out += [s * power for s in steps if lo <= s * power <= hi]
        power *= 10
    return out


def pct(x: float | None, digits: int = 1) -> str:
    return "" if x is None else f"{100 * x:.{digits}f}%"


RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"]
DEPTH_NAMES = {0: "no war", 1: "war", 2: "double war", 3: "triple war", 4: "quadruple war"}


def depth_name(d: int) -> str:
    return DEPTH_NAMES.get(d, f"{d}-fold war")


class Palette:
    """A color per rule set of a section, the same on every chart of the section."""

    def __init__(self, rule_sets: list[RuleSetInfo], label: Callable[[RuleSetInfo], str]):
        self.labels = {r.rules_id: label(r) for r in rule_sets}
        self.domain = list(self.labels.values())
        self.range = [PALETTE[i % len(PALETTE)] for i in range(len(self.domain))]

    def label(self, rules_id: str) -> str:
        return self.labels[rules_id]

    def color(self, rules_id: str) -> str:
        return self.range[self.domain.index(self.labels[rules_id])]

    def encode(self, title: str | None = "rule set", legend: bool = True, orient: str = "top") -> alt.Color:
        columns = 2 if orient == "top" and len(self.domain) > 3 else 1
        return alt.Color("rule_set:N", title=title,
                         scale=alt.Scale(domain=self.domain, range=self.range),
                         legend=(alt.Legend(columns=columns, orient=orient)
                                 if legend and len(self.domain) > 1 else None))


def _with_label(rows: list[dict], palette: Palette) -> list[dict]:
    return [{**r, "rule_set": palette.label(r["rules_id"])} for r in rows if r["rules_id"] in palette.labels]


# ----------------------------------------------------------------------------- game length

STATS = (("mean_battles", "mean"), ("median_battles", "median"), ("p90_battles", "p90"),
         ("p99_battles", "p99"))


def length_histograms(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    """Per rule set: a histogram of battles on a log axis, its mean/median/p90/p99 and the cap."""
    dist = _with_label(data.rows("length_distribution", variant), palette)
    stats = {r["rules_id"]: r for r in data.rows("game_length", variant)}
    if not dist:
        return None
    lo = min(r["bucket_low"] for r in dist if r["games"]) * 0.9
    hi = max(max(r["bucket_high"] for r in dist if r["games"]), max(r["max_battles"] for r in dist)) * 1.25
    x_scale = alt.Scale(type="log", domain=[lo, hi], nice=False)
    panels = []
    present = {r["rules_id"] for r in dist}
    rids = [rid for rid in palette.labels if rid in present]
    for i, rid in enumerate(rids):
        rows = [r for r in dist if r["rules_id"] == rid]
        top = max(r["share"] for r in rows)
        last = i == len(rids) - 1
        x_axis = alt.Axis(title="battles per game (log scale)" if last else None, labels=last,
                          ticks=last, format="~s", values=log_ticks(lo, hi))
        bars = alt.Chart(_values(rows)).mark_rect(color=palette.color(rid), opacity=0.85,
                                                  stroke="white", strokeWidth=0.3).encode(
            x=alt.X("bucket_low:Q", scale=x_scale, axis=x_axis),
            x2="bucket_high:Q",
            y=alt.Y("share:Q", title="share of games", axis=alt.Axis(format=".1~%", tickCount=3),
                    scale=alt.Scale(domain=[0, top * 1.55])),
            y2=alt.datum(0),
            tooltip=[alt.Tooltip("bucket_low:Q", format=".0f", title="from"),
                     alt.Tooltip("bucket_high:Q", format=".0f", title="to"),
                     alt.Tooltip("games:Q"), alt.Tooltip("share:Q", format=".2%")])
        s = stats.get(rid, {})
        marks = [{"stat": name, "value": s[col], "text": f"{name} {s[col]:,.0f}", "row": j}
                 for j, (col, name) in enumerate(STATS) if s.get(col) is not None]
        rules = alt.Chart(_values(marks)).mark_rule(color=INK, strokeDash=[3, 2], strokeWidth=1).encode(
            x=alt.X("value:Q", scale=x_scale))
        labels = alt.Chart(_values(marks)).mark_text(align="left", dx=3, fontSize=10, color=INK).encode(
            x=alt.X("value:Q", scale=x_scale), y=alt.YValue(alt.ExprRef("6 + datum.row * 12")),
            text="text:N")
        cap = rows[0]["max_battles"]
        cap_rows = [{"value": cap, "text": f"cap {cap:,}"}]
        cap_rule = alt.Chart(_values(cap_rows)).mark_rule(color=CAP, strokeWidth=1.5).encode(
            x=alt.X("value:Q", scale=x_scale))
        cap_text = alt.Chart(_values(cap_rows)).mark_text(align="right", dx=-3, dy=6, fontSize=10,
                                                         color=CAP, baseline="top").encode(
            x=alt.X("value:Q", scale=x_scale), y=alt.value(0), text="text:N")
        panel = alt.layer(bars, rules, labels, cap_rule, cap_text).properties(
            width=HALF, height=110, title=alt.TitleParams(palette.label(rid), fontSize=11, color=palette.color(rid)))
        panels.append(panel)
    chart = alt.vconcat(*panels, spacing=8)
    return Figure(f"{variant}-length-histogram", "How long games last",
                  ["length_distribution", "game_length"], chart,
                  "Share of games in each length bucket (buckets equally wide on the log axis); "
                  "dashed lines mark the mean, median, 90th and 99th percentile, red the battle cap.")


def length_ecdf(data: ReportData, variant: str | None, palette: Palette, title: str = "Game length, rule sets compared") -> Figure | None:
    """The cumulative distribution of battles per game, every rule set on one log axis."""
    dist = _with_label(data.rows("length_distribution", variant), palette)
    if not dist:
        return None
    points = [r for r in dist if r["games"] or r["cumulative_share"] < 1]
    caps = [{"value": c, "text": f"cap {c:,}"} for c in sorted({r["max_battles"] for r in dist})]
    lo = min(r["bucket_low"] for r in dist if r["games"]) * 0.9
    hi = max(max(r["bucket_high"] for r in dist if r["games"]), max(c["value"] for c in caps)) * 1.25
    x_scale = alt.Scale(type="log", domain=[lo, hi], nice=False)
    lines = alt.Chart(_values(points)).mark_line(interpolate="monotone", strokeWidth=2).encode(
        x=alt.X("bucket_high:Q", scale=x_scale, title="battles per game (log scale)",
                axis=alt.Axis(format="~s", values=log_ticks(lo, hi))),
        y=alt.Y("cumulative_share:Q", title="share of games shorter", axis=alt.Axis(format="~%"),
                scale=alt.Scale(domain=[0, 1])),
        color=palette.encode(orient="right" if variant is None else "top"),
        detail="rules_id:N",
        tooltip=["rule_set:N", alt.Tooltip("bucket_high:Q", format=".0f", title="battles below"),
                 alt.Tooltip("cumulative_share:Q", format=".2%", title="share")])
    guides = [{"y": q, "text": t} for q, t in ((0.5, "median"), (0.9, "p90"), (0.99, "p99"))]
    guide_rules = alt.Chart(_values(guides)).mark_rule(color="#9aa5b1", strokeDash=[2, 3]).encode(y="y:Q")
    guide_text = alt.Chart(_values(guides)).mark_text(align="left", x=4, dy=-5, fontSize=10,
                                                      color=MUTED).encode(y="y:Q", text="text:N")
    cap_rule = alt.Chart(_values(caps)).mark_rule(color=CAP, strokeWidth=1.5).encode(x=alt.X("value:Q", scale=x_scale))
    cap_text = alt.Chart(_values(caps)).mark_text(align="right", dx=-3, y=4, fontSize=10, color=CAP,
                                                  baseline="top").encode(x=alt.X("value:Q", scale=x_scale),
                                                                         text="text:N")
    wide = variant is None
    chart = alt.layer(guide_rules, guide_text, lines, cap_rule, cap_text).properties(
        width=FULL - 360 if wide else HALF, height=260 if wide else 240)
    return Figure(f"{variant or 'all'}-length-ecdf", title, ["length_distribution"], chart, wide=wide, note=
                  ("Share of games that end within a number of battles (the empirical distribution "
                  "function at each bucket's upper edge); where a line crosses a dotted guide is that "
                  "percentile."))


def outcome_bars(data: ReportData, variant: str | None, palette: Palette) -> Figure | None:
    rows = _with_label(data.rows("outcomes", variant), palette)
    if not rows:
        return None
    long = []
    for r in rows:
        for key, share in (("win", "win_share"), ("draw", "draw_share"), ("capped", "capped_share"),
                           ("cycle", "cycle_share")):
            long.append({"rule_set": r["rule_set"], "outcome": key, "share": r[share],
                         "order": list(OUTCOME_COLORS).index(key),
                         "text": pct(r[share], 1) if r[share] >= 0.06 else ""})
    y = alt.Y("rule_set:N", title=None, sort=palette.domain, axis=alt.Axis(labelLimit=260))
    bars = alt.Chart(_values(long)).mark_bar(height={"band": 0.7}).encode(
        x=alt.X("share:Q", stack="zero", title="share of games", axis=alt.Axis(format="~%"),
                scale=alt.Scale(domain=[0, 1])),
        y=y,
        color=alt.Color("outcome:N", scale=alt.Scale(domain=list(OUTCOME_COLORS),
                                                     range=list(OUTCOME_COLORS.values())),
                        legend=alt.Legend(orient="top", direction="horizontal", title=None)),
        order="order:Q",
        tooltip=["rule_set:N", "outcome:N", alt.Tooltip("share:Q", format=".2%")])
    text = alt.Chart(_values(long)).transform_stack(
        stack="share", groupby=["rule_set"], sort=[alt.SortField("order")], as_=["x0", "x1"]
    ).transform_calculate(mid="(datum.x0 + datum.x1) / 2").mark_text(
        color="white", fontSize=10, fontWeight=600).encode(x="mid:Q", y=y, text="text:N")
    chart = alt.layer(bars, text).properties(width=beside(palette.domain), height=max(40, 26 * len(rows)))
    return Figure(f"{variant or 'all'}-outcomes", "How games end", ["outcomes"], chart,
                  "win: one seat holds every card; draw: nobody can go on; capped: stopped at the "
                  "battle cap; cycle: a position repeated under a fixed pickup order.")


# ----------------------------------------------------------------------------- seats

def seat_advantage(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = [r for r in _with_label(data.rows("seat_win_interval", variant), palette) if r["share"] is not None]
    if not rows:
        return None
    for r in rows:
        r["seat_label"] = f"seat {r['seat']}"
    seats = sorted({r["seat"] for r in rows})
    x = alt.X("seat_label:N", title=None, sort=[f"seat {s}" for s in seats],
              axis=alt.Axis(labelAngle=0, labelFontSize=12))
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    lo = min(min(r["ci_low"] for r in rows), min(r["fair_share"] for r in rows))
    hi = max(max(r["ci_high"] for r in rows), max(r["fair_share"] for r in rows))
    pad = max(0.01, (hi - lo) * 0.15)
    y_scale = alt.Scale(domain=[max(0, lo - pad), min(1, hi + pad)], zero=False)
    base = alt.Chart(_values(rows))
    bars = base.mark_rule(strokeWidth=2).encode(
        x=x, xOffset=offset, y=alt.Y("ci_low:Q", scale=y_scale, title="share of decided games won",
                                     axis=alt.Axis(format=".0%")),
        y2="ci_high:Q", color=palette.encode())
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=x, xOffset=offset, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(),
        tooltip=["rule_set:N", "seat_label:N", "wins:Q", "decided_games:Q",
                 alt.Tooltip("share:Q", format=".2%"), alt.Tooltip("ci_low:Q", format=".2%"),
                 alt.Tooltip("ci_high:Q", format=".2%")])
    fair = [{"y": f, "text": f"fair share {pct(f, 1)}"} for f in sorted({r["fair_share"] for r in rows})]
    fair_rule = alt.Chart(_values(fair)).mark_rule(color=MUTED, strokeDash=[4, 3]).encode(y=alt.Y("y:Q", scale=y_scale))
    fair_text = alt.Chart(_values(fair)).mark_text(align="right", x="width", dx=-2, dy=-6, fontSize=10,
                                                   color=MUTED).encode(y=alt.Y("y:Q", scale=y_scale), text="text:N")
    chart = alt.layer(fair_rule, fair_text, bars, points).properties(width=HALF, height=220)
    return Figure(f"{variant}-seat-advantage", "Does a seat win more often?", ["seat_win_interval"], chart,
                  "Each seat's share of the decided games with its 95% interval; the dashed line is the "
                  "fair share. An interval clear of the line is a real seat advantage.")


# ----------------------------------------------------------------------------- wars

def war_battles(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _with_label(data.rows("war_battles_distribution", variant), palette)
    if not rows:
        return None
    cut = max(min((r["war_battles"] for r in rows if r["rules_id"] == rid and r["cumulative_share"] >= 0.999),
                  default=0) for rid in {r["rules_id"] for r in rows})
    shown = [r for r in rows if r["war_battles"] <= cut]
    x_scale = alt.Scale(domain=[0, cut])
    lines = alt.Chart(_values(shown)).mark_line(interpolate="step-after", strokeWidth=1.6).encode(
        x=alt.X("war_battles:Q", title="battles with a war, per game", scale=x_scale),
        y=alt.Y("share:Q", title="share of games", axis=alt.Axis(format=".1~%")),
        color=palette.encode(), detail="rules_id:N",
        tooltip=["rule_set:N", "war_battles:Q", "games:Q", alt.Tooltip("share:Q", format=".2%")])
    means = [{"rule_set": palette.label(r["rules_id"]), "value": r["mean_war_battles"],
              "median": r["median_war_battles"]}
             for r in data.rows("wars_per_game", variant) if r["rules_id"] in palette.labels]
    mean_rules = alt.Chart(_values(means)).mark_rule(strokeDash=[4, 3], strokeWidth=1.2).encode(
        x=alt.X("value:Q", scale=x_scale), color=palette.encode(),
        tooltip=["rule_set:N", alt.Tooltip("value:Q", format=".2f", title="mean war battles"),
                 alt.Tooltip("median:Q", format=".1f", title="median")])
    chart = alt.layer(lines, mean_rules).properties(width=HALF, height=200)
    return Figure(f"{variant}-war-battles", "How many battles are wars",
                  ["war_battles_distribution", "wars_per_game"], chart,
                  f"Share of games with each number of war battles, dashed at each rule set's mean "
                  f"(axis cut at {cut}, where every rule set has 99.9% of its games).")


def deepest_war(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = [r for r in _with_label(data.rows("deepest_war", variant), palette) if r["depth"] >= 1]
    rows = [r for r in rows if r["at_least_share"] > 0]
    if not rows:
        return None
    for r in rows:
        r["depth_name"] = depth_name(r["depth"])
        r["text"] = pct(r["at_least_share"], 2 if r["at_least_share"] < 0.1 else 1)
    order = [depth_name(d) for d in sorted({r["depth"] for r in rows})]
    x = alt.X("depth_name:N", sort=order, title="the game has at least a", axis=alt.Axis(labelAngle=0))
    y = alt.Y("at_least_share:Q", title="share of games (log scale)", scale=alt.Scale(type="log"),
              axis=alt.Axis(format="~%", values=log_ticks(min(r["at_least_share"] for r in rows), 1.0,
                                                          steps=(1,))))
    lines = alt.Chart(_values(rows)).mark_line(strokeWidth=1.5, point=alt.OverlayMarkDef(filled=True, size=45)).encode(
        x=x, y=y, color=palette.encode(), detail="rules_id:N",
        tooltip=["rule_set:N", "depth_name:N", "games:Q", alt.Tooltip("at_least_share:Q", format=".3%")])
    layers = [lines]
    if len(palette.domain) == 1:
        layers.append(alt.Chart(_values(rows)).mark_text(dy=-9, fontSize=10, color=INK).encode(
            x=x, y=y, text="text:N"))
    chart = alt.layer(*layers).properties(width=HALF, height=200)
    return Figure(f"{variant}-deepest-war", "How deep wars go", ["deepest_war"], chart,
                  "Share of games whose deepest war is at least a single, double, triple... war "
                  "(a double war: the war's face-up cards tie again).")


def first_battle_war(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _with_label(data.rows("first_battle_war_exact", variant), palette)
    if not rows:
        return None
    for r in rows:
        r["text"] = (f"{pct(r['share'], 2)} observed"
                     + (f"; exact {r['exact_fraction']} = {pct(r['exact'], 2)}" if r["exact"] is not None else ""))
    y = alt.Y("rule_set:N", title=None, sort=palette.domain, axis=alt.Axis(labelLimit=260))
    lo = min(min(r["ci_low"] for r in rows), min((r["exact"] for r in rows if r["exact"] is not None), default=1))
    hi = max(max(r["ci_high"] for r in rows), max((r["exact"] for r in rows if r["exact"] is not None), default=0))
    x_scale = alt.Scale(domain=[max(0, lo - (hi - lo) * 0.3), hi + (hi - lo) * 0.3], zero=False)
    x = alt.X("ci_low:Q", title="share of games whose first battle is a war", scale=x_scale,
              axis=alt.Axis(format=".1%"))
    base = alt.Chart(_values(rows))
    ci = base.mark_rule(strokeWidth=2).encode(x=x, x2="ci_high:Q", y=y, color=palette.encode(legend=False))
    point = base.mark_point(filled=True, size=70).encode(
        x=alt.X("share:Q", scale=x_scale), y=y, color=palette.encode(legend=False),
        tooltip=["rule_set:N", "games:Q", "first_battle_wars:Q", alt.Tooltip("share:Q", format=".3%"),
                 alt.Tooltip("exact:Q", format=".3%"), "exact_fraction:N"])
    exact = base.transform_filter("datum.exact != null").mark_tick(
        color=INK, thickness=2, size=22).encode(x=alt.X("exact:Q", scale=x_scale), y=y)
    label = base.mark_text(align="left", dy=-13, fontSize=10, color=MUTED, x=4).encode(y=y, text="text:N")
    chart = alt.layer(ci, point, exact, label).properties(width=beside(palette.domain),
                                                           height=max(60, 44 * len(rows)))
    return Figure(f"{variant}-first-battle-war", "Is the first battle a war as often as chance says?",
                  ["first_battle_war_exact"], chart,
                  "Observed share with its 95% interval (dot and bar) against the exact probability "
                  "that the first face-up cards tie (black tick).")


# ----------------------------------------------------------------------------- the deal

def _win_rate_chart(rows: list[dict], palette: Palette, x: alt.X, y_title: str, x_field: str) -> alt.LayerChart:
    base = alt.Chart(_values(rows))
    y_scale = alt.Scale(domain=[0, 1])
    ci = base.mark_rule(strokeWidth=1.5, opacity=0.7).encode(
        x=x, y=alt.Y("ci_low:Q", scale=y_scale, title=y_title, axis=alt.Axis(format="~%")),
        y2="ci_high:Q", color=palette.encode())
    line = base.mark_line(strokeWidth=1.5, point=alt.OverlayMarkDef(filled=True, size=40)).encode(
        x=x, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(), detail="rules_id:N",
        tooltip=["rule_set:N", f"{x_field}:Q", "decided_seats:Q", "wins:Q",
                 alt.Tooltip("share:Q", format=".2%"), alt.Tooltip("ci_low:Q", format=".2%"),
                 alt.Tooltip("ci_high:Q", format=".2%")])
    fair = [{"y": f} for f in sorted({r["fair_share"] for r in rows})]
    fair_rule = alt.Chart(_values(fair)).mark_rule(color=MUTED, strokeDash=[4, 3]).encode(y=alt.Y("y:Q", scale=y_scale))
    return alt.layer(fair_rule, ci, line)


def _deal_rows(data: ReportData, variant: str, palette: Palette, by: str) -> list[dict]:
    return [r for r in _with_label(data.rows("deal_win_rate", variant), palette)
            if r["by"] == by and r["share"] is not None]


def deal_top_cards(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _deal_rows(data, variant, palette, "top_cards")
    if not rows:
        return None
    top_ranks = int(data.params.get("deal_win_rate", {}).get("top_ranks", "1"))
    jokers = any(data.rule_set(r["rules_id"]).rules.get("jokers", 0) for r in rows)
    what = ("Aces" if top_ranks == 1 else f"cards of the top {top_ranks} ranks") + (" and Jokers" if jokers else "")
    x = alt.X("low:Q", title=f"{what} dealt to the seat", axis=alt.Axis(tickMinStep=1, format="d"),
              scale=alt.Scale(domain=[0, max(r["low"] for r in rows)]))
    chart = _win_rate_chart(rows, palette, x, "share of decided games won", "low").properties(
        width=HALF, height=220)
    return Figure(f"{variant}-deal-top-cards", f"Win rate by the {what} dealt", ["deal_win_rate"], chart,
                  "Share of decided games that a seat won, by how many top cards it was dealt, "
                  "with 95% intervals; the dashed line is the fair share.", extra={"by": "top_cards"})


def deal_strength(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _deal_rows(data, variant, palette, "strength")
    if not rows:
        return None
    x = alt.X("mean_value:Q", title="hand strength: sum of dealt ranks, centred on the middle rank")
    chart = _win_rate_chart(rows, palette, x, "share of decided games won", "mean_value").properties(
        width=HALF, height=220)
    return Figure(f"{variant}-deal-strength", "Win rate by hand strength", ["deal_win_rate"], chart,
                  "Each point is a bucket of hands (plotted at its mean strength) with a 95% interval; "
                  "an 8 scores 0, an Ace +6, a 2 -6 (standard deck).", extra={"by": "strength"})


# ----------------------------------------------------------------------------- variants

def razboi_sizes(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _with_label(data.rows("razboi_war_sizes", variant), palette)
    if not rows:
        return None
    ranks = [r for r in RANK_NAMES if r in {row["tied_rank"] for row in rows}]
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    x = alt.X("tied_rank:N", sort=ranks, title="rank of the tied cards", axis=alt.Axis(labelAngle=0))
    wars = alt.Chart(_values(rows)).mark_bar().encode(
        x=x, xOffset=offset, y=alt.Y("wars:Q", title="wars"), color=palette.encode(),
        tooltip=["rule_set:N", "tied_rank:N", "wars:Q", "value:Q", "full_down:Q"]
    ).properties(width=HALF, height=150, title="Wars on each rank")
    size_rows = [r for r in rows if r["mean_down_per_player"] is not None]
    down = alt.Chart(_values(size_rows)).mark_bar(opacity=0.85).encode(
        x=x, xOffset=offset, y=alt.Y("mean_down_per_player:Q", title="cards down per player"),
        color=palette.encode(),
        tooltip=["rule_set:N", "tied_rank:N", alt.Tooltip("mean_down_per_player:Q", format=".2f"),
                 "full_down:Q", "short_entries:Q", "player_entries:Q"])
    full = alt.Chart(_values(size_rows)).mark_tick(color=INK, thickness=2).encode(
        x=x, xOffset=offset, y="full_down:Q")
    chart = alt.vconcat(wars, alt.layer(down, full).properties(
        width=HALF, height=150, title="Face-down cards per player: mean (bar) and the full size v - 1 (tick)"))
    return Figure(f"{variant}-war-sizes", "Război: war sizes", ["razboi_war_sizes"], chart,
                  "A war on rank v puts v - 1 cards down per player (court cards count 10, the Ace "
                  "its ace_value); a player short of cards puts fewer.")


def joker_wars(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _with_label(data.rows("joker_wars", variant), palette)
    if not rows:
        return None
    for r in rows:
        r["depth_name"] = depth_name(r["war_depth"])
    order = [depth_name(d) for d in sorted({r["war_depth"] for r in rows})]
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    x = alt.X("depth_name:N", sort=order, title="battle", axis=alt.Axis(labelAngle=0))
    y_scale = alt.Scale(domain=[0, min(1, max(r["ci_high"] for r in rows) * 1.1)])
    base = alt.Chart(_values(rows))
    ci = base.mark_rule(strokeWidth=2).encode(
        x=x, xOffset=offset, y=alt.Y("ci_low:Q", scale=y_scale, title="share won by a Joker",
                                     axis=alt.Axis(format="~%")),
        y2="ci_high:Q", color=palette.encode())
    point = base.mark_point(filled=True, size=60).encode(
        x=x, xOffset=offset, y=alt.Y("joker_share:Q", scale=y_scale), color=palette.encode(),
        tooltip=["rule_set:N", "depth_name:N", "battles:Q", "joker_battles:Q",
                 alt.Tooltip("joker_share:Q", format=".2%")])
    chart = alt.layer(ci, point).properties(width=HALF, height=200)
    return Figure(f"{variant}-joker-wars", "How often a Joker decides a war", ["joker_wars"], chart,
                  "Share of battles, by war depth, whose winning face-up card is a Joker, with 95% "
                  "intervals.")


def short_policies(policies: list[str]) -> dict[str, str]:
    """Each policy string without the parts every one of them shares (`,top:as_played`)."""
    parts = [p.split(",") for p in policies]
    common = set.intersection(*(set(p) for p in parts)) if parts else set()
    return {p: ",".join(x for x in ps if x not in common) or p for p, ps in zip(policies, parts)}


def matchup_matrix(data: ReportData, variant: str, palette: Palette) -> list[Figure]:
    rows = [r for r in data.rows("policy_matchup", variant) if r["share_a"] is not None]
    figures = []
    for rid in dict.fromkeys(r["rules_id"] for r in rows):
        mine = [r for r in rows if r["rules_id"] == rid]
        names = sorted({r["policy_a"] for r in mine} | {r["policy_b"] for r in mine})
        short = short_policies(names)
        cells = []
        for r in mine:
            for row, col, share, lo, hi, wins in (
                    (r["policy_a"], r["policy_b"], r["share_a"], r["ci_low"], r["ci_high"], r["wins_a"]),
                    (r["policy_b"], r["policy_a"], 1 - r["share_a"], 1 - r["ci_high"], 1 - r["ci_low"], r["wins_b"])):
                cells.append({"row": short[row], "col": short[col], "share": share, "ci_low": lo,
                              "ci_high": hi, "wins": wins, "decided_games": r["decided_games"],
                              "text": pct(share, 1), "interval": f"{pct(lo, 1)} – {pct(hi, 1)}"})
        order = [short[n] for n in names]
        side = max(70, min(140, 520 // max(1, len(names))))
        base = alt.Chart(_values(cells)).encode(
            x=alt.X("col:N", sort=order, title="against", axis=alt.Axis(orient="top", labelAngle=0, labelLimit=160)),
            y=alt.Y("row:N", sort=order, title="policy", axis=alt.Axis(labelLimit=200)))
        heat = base.mark_rect(stroke="white", strokeWidth=2).encode(
            color=alt.Color("share:Q", title="win rate", scale=alt.Scale(scheme="redblue", domain=[0.2, 0.8],
                                                                          clamp=True),
                            legend=alt.Legend(format="~%", orient="right", direction="vertical")),
            tooltip=["row:N", "col:N", alt.Tooltip("share:Q", format=".2%"), "interval:N", "wins:Q",
                     "decided_games:Q"])
        text = base.mark_text(fontSize=12, fontWeight=600, dy=-7, color=INK).encode(text="text:N")
        interval = base.mark_text(fontSize=9, dy=8, color=INK).encode(text="interval:N")
        chart = alt.layer(heat, text, interval).properties(width=side * len(names), height=side * len(names))
        label = palette.label(rid)
        figures.append(Figure(f"{variant}-matchups-{rid}", "Tournament: who beats whom",
                              ["policy_matchup"], chart,
                              f"{label}: the row policy's share of the decided games against the column "
                              "policy, both seatings pooled, with its 95% interval (empty: the pair did "
                              "not meet).", extra={"rules_id": rid}))
    return figures


def steal_effect(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = [r for r in data.rows("steals", variant) if r.get("seat") is not None and r.get("steal_policy")]
    if not rows:
        return None
    names = sorted({r["policy"] for r in rows})
    short = short_policies(names)
    out = []
    for r in rows:
        others = [p for i, p in enumerate(r["policies"]) if i != r["seat"]]
        out.append({**{k: v for k, v in r.items() if not isinstance(v, list)},
                    "steal": r["steal_policy"], "against": ", ".join(short.get(p, p) for p in others),
                    "seat_label": f"seat {r['seat']}"})
    steal_order = sorted({r["steal"] for r in out}, key=_steal_order)
    x = alt.X("steal:N", sort=steal_order, title="the seat's steal policy", axis=alt.Axis(labelAngle=0))
    offset = alt.XOffset("against:N")
    color = alt.Color("against:N", title="against", scale=alt.Scale(range=PALETTE[3:]),
                      legend=alt.Legend(orient="top", direction="horizontal"))
    # both seatings of a pairing are separate rows: each is drawn, not averaged (the bars overlap
    # exactly when equal); the numbers table lists both.
    per_game = alt.Chart(_values(out)).mark_tick(thickness=3, size=18).encode(
        x=x, xOffset=offset, y=alt.Y("steals_per_game:Q", title="steals per game"), color=color,
        tooltip=["policy:N", "against:N", "seat_label:N", alt.Tooltip("steals_per_game:Q", format=".2f"),
                 alt.Tooltip("cards_per_steal:Q", format=".2f"), alt.Tooltip("taken_share:Q", format=".1%")]
    ).properties(width=HALF, height=160, title="Steals per game, each seating")
    taken = alt.Chart(_values([r for r in out if r["taken_share"] is not None])).mark_tick(thickness=3, size=18).encode(
        x=x, xOffset=offset, y=alt.Y("taken_share:Q", title="opportunities taken", axis=alt.Axis(format="~%"),
                                     scale=alt.Scale(domain=[0, 1])), color=color,
        tooltip=["policy:N", "against:N", "seat_label:N", "opportunities:Q", "taken:Q",
                 alt.Tooltip("taken_share:Q", format=".1%")]
    ).properties(width=HALF, height=120, title="Share of steal opportunities taken")
    chart = alt.vconcat(per_game, taken)
    return Figure(f"{variant}-steals", "Steal War: steals and the threshold", ["steals"], chart,
                  "Per seat and seating (`steals --param per_seat=true`): how often a policy steals "
                  "and how many of its chances it takes; threshold:N steals only piles of N cards or "
                  "more.")


def length_by_policy(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = [r for r in data.rows("length_by_policy", variant) if r["policies"]]
    if not rows:
        return None
    names = sorted({p for r in rows for p in r["policies"]})
    short = short_policies(names)
    long = []
    for r in rows:
        label = " vs ".join(short[p] for p in r["policies"])
        for col, stat in (("mean_battles", "mean"), ("median_battles", "median"), ("p90_battles", "p90")):
            long.append({"policies": label, "stat": stat, "battles": r[col], "games": r["games"]})
    y = alt.Y("policies:N", title="seat 0 vs seat 1", axis=alt.Axis(labelLimit=260))
    chart = alt.Chart(_values(long)).mark_point(filled=True, size=70).encode(
        x=alt.X("battles:Q", title="battles per game"), y=y,
        shape=alt.Shape("stat:N", title=None, sort=["median", "mean", "p90"],
                        legend=alt.Legend(orient="top", direction="horizontal")),
        color=alt.Color("stat:N", sort=["median", "mean", "p90"], scale=alt.Scale(range=PALETTE[:3]), legend=None),
        tooltip=["policies:N", "stat:N", alt.Tooltip("battles:Q", format=".1f"), "games:Q"]
    ).properties(width=beside(r["policies"] for r in long), height=max(60, 26 * len(rows)))
    return Figure(f"{variant}-length-by-policy", "Game length by the seats' policies",
                  ["length_by_policy"], chart, "Median, mean and 90th percentile of battles per game "
                  "for each seating of policies.")


def _steal_order(name: str) -> tuple:
    if name == "never":
        return (0, 0, name)
    if name.startswith("threshold:"):
        try:
            return (1, -int(name.split(":", 1)[1]), name)
        except ValueError:
            return (1, 0, name)
    return (2 if name == "always" else 3, 0, name)


def arneson_consolation(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = data.rows("arneson_consolation", variant)
    if not rows:
        return None
    names = sorted({p for r in rows for p in r["policies"]})
    short = short_policies(names) if names else {}
    long = []
    for r in rows:
        label = " vs ".join(short.get(p, p) for p in r["policies"]) or "default"
        for key, title in (("consoled_winner_share", "winner got consolation cards"),
                           ("consolation_win_share", "a consolation card won the winner a battle")):
            if r[key] is not None:
                long.append({"policies": label, "measure": title, "share": r[key],
                             "text": pct(r[key], 1)})
    if not long:
        return None
    y = alt.Y("policies:N", title="seat 0 vs seat 1", axis=alt.Axis(labelLimit=260))
    bars = alt.Chart(_values(long)).mark_bar().encode(
        x=alt.X("share:Q", title="share of decided games", axis=alt.Axis(format="~%"), scale=alt.Scale(domain=[0, 1])),
        y=y, yOffset="measure:N",
        color=alt.Color("measure:N", title=None, scale=alt.Scale(range=[PALETTE[0], PALETTE[2]]),
                        legend=alt.Legend(orient="top", direction="vertical")),
        tooltip=["policies:N", "measure:N", alt.Tooltip("share:Q", format=".2%")])
    text = alt.Chart(_values(long)).mark_text(align="left", dx=3, fontSize=10, color=INK).encode(
        x="share:Q", y=y, yOffset="measure:N", text="text:N")
    chart = alt.layer(bars, text).properties(width=beside(r["policies"] for r in long),
                                             height=max(80, 50 * len(rows)))
    return Figure(f"{variant}-consolation", "Arneson's War: the war loser's consolation cards",
                  ["arneson_consolation"], chart,
                  "The loser of a war takes back the two cards that caused it: how often the eventual "
                  "winner received such cards, and how often one of them later won it a battle.")


# ----------------------------------------------------------------------------- assembly

def rule_set_palette(data: ReportData, variant: str) -> Palette:
    return Palette(data.rule_sets_of(variant), lambda r: r.label)


def overview_palette(data: ReportData) -> Palette:
    return Palette(data.rule_sets, lambda r: f"{r.variant}: {r.label}")


@dataclass
class Section:
    """A part of the report: a heading and its figures, grouped under sub-headings."""

    id: str
    title: str
    intro: str
    groups: list[tuple[str, list[Figure]]]


def variant_figures(data: ReportData, variant: str) -> list[tuple[str, list[Figure]]]:
    palette = rule_set_palette(data, variant)
    groups = [
        ("Game length", [length_histograms(data, variant, palette), length_ecdf(data, variant, palette),
                         outcome_bars(data, variant, palette)]),
        ("Seat advantage", [seat_advantage(data, variant, palette)]),
        ("Wars", [war_battles(data, variant, palette), deepest_war(data, variant, palette),
                  first_battle_war(data, variant, palette)]),
        ("What the deal decides", [deal_top_cards(data, variant, palette), deal_strength(data, variant, palette)]),
    ]
    special = [razboi_sizes(data, variant, palette), joker_wars(data, variant, palette),
               steal_effect(data, variant, palette), arneson_consolation(data, variant, palette),
               length_by_policy(data, variant, palette),
               *matchup_matrix(data, variant, palette)]
    groups.append(("Rules of this variant", special))
    return [(title, [f for f in figs if f is not None]) for title, figs in groups
            if any(f is not None for f in figs)]


def sections(data: ReportData) -> list[Section]:
    """The report's sections: an overview of every rule set, then one per variant."""
    palette = overview_palette(data)
    overview = [f for f in (length_ecdf(data, None, palette, "Game length, every rule set"),
                            outcome_bars(data, None, palette)) if f is not None]
    out = [Section("overview", "Overview", "", [("", overview)])]
    for v in data.variants:
        infos = data.rule_sets_of(v)
        out.append(Section(v, infos[0].title, "", variant_figures(data, v)))
    return out
