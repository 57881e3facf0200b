"""The charts every variant's section has: how long games last and how they end, whether a seat
wins more often, how many and how deep the wars are, and what the deal decides."""

from __future__ import annotations

import math
from fractions import Fraction

import altair as alt

from .. import drill
from ..numbers import pct
from ..report import FEW_GAMES, ReportData
from .figure import (
    CAP, FULL, HALF, INK, MUTED, OUTCOME_COLORS, Chart, Figure, Palette, beside, depth_name, exact_said, from_rows, ink_on,
    log_ticks, mark_exact, share_axis, text_width, values, with_label,
)


# ----------------------------------------------------------------------------- game length

STATS = (("mean_battles", "mean"), ("median_battles", "median"), ("p90_battles", "p90"),
         ("p99_battles", "p99"))
LABEL_ROW = 13  # pixels between the rows of labels above a histogram
BARS = 96       # pixels of a histogram's bars, under its labels


def place_labels(marks: list[dict], width: float, size: float = 10) -> int:
    """Give each mark ({px, text}: a label for a vertical line at pixel px, the line running
    down from under its label) an `align` and a `row` so that no two labels overlap and no line
    crosses a label: beside its line on the right (on the left where the plot ends), in the
    first row where it fits. A line passes through every row below its label's, so a label may
    not cover the line of a mark labelled in a row above it, nor sit above a label that covers
    its own line. The number of rows used."""
    placed: list[tuple[float, float, float, int]] = []  # x0, x1, px, row

    def fits(x0: float, x1: float, px: float, row: int) -> bool:
        return all((x1 + 4 < a or x0 > b + 4 or r != row)            # no overlap in the row
                   and not (r < row and x0 - 2 <= p <= x1 + 2)       # no line above crosses it
                   and not (r > row and a - 2 <= px <= b + 2)        # its line crosses no label below
                   for a, b, p, r in placed)

    for m in sorted(marks, key=lambda m: m["px"]):
        w = text_width(m["text"], size)
        spans = [("left", m["px"] + 3, m["px"] + 3 + w)] if m["px"] + 3 + w <= width else []
        spans.append(("right", m["px"] - 3 - w, m["px"] - 3))
        deepest = 1 + max((r for *_, r in placed), default=-1)
        choice = next(((align, x0, x1, row) for row in range(deepest + 1) for align, x0, x1 in spans
                       if fits(x0, x1, m["px"], row)), None)
        if choice is None:  # nothing fits everywhere: a row of its own, below every other
            align, x0, x1 = spans[0]
            choice = (align, x0, x1, deepest)
        m["align"], x0, x1, m["row"] = choice
        placed.append((x0, x1, m["px"], m["row"]))
    return 1 + max((m["row"] for m in marks), default=-1)


def length_histograms(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    """Per rule set: a histogram of battles on a log axis, its mean/median/p90/p99 and the cap,
    each line labelled above the bars, the labels in rows so that none overlaps another."""
    dist = with_label(data.rows("length_distribution", variant), palette)
    stats = {r["rule_set"]: r for r in data.rows("game_length", variant)}
    if not dist:
        return None
    lo = min(r["bucket_low"] for r in dist if r["games"]) * 0.9
    hi = max(max(r["bucket_high"] for r in dist if r["games"]), max(r["max_battles"] for r in dist)) * 1.25
    x_scale = alt.Scale(type="log", domain=[lo, hi], nice=False)

    def px(value: float) -> float:
        return HALF * (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))

    panels = []
    present = {r["rule_set"] for r in dist}
    rids = [rid for rid in palette.labels if rid in present]
    per_decade = int(data.params.get("length_distribution", {}).get("bins_per_decade", 20))
    for i, rid in enumerate(rids):
        rows = [{**r, drill.FIELD: drill.length_bucket(r, per_decade)} for r in dist if r["rule_set"] == rid]
        top = max(r["share"] for r in rows)
        last = i == len(rids) - 1
        s = stats.get(rid, {})
        cap = rows[0]["max_battles"]
        marks = [{"value": s[col], "text": f"{name} {s[col]:,.0f}", "color": INK}
                 for col, name in STATS if s.get(col) is not None]
        marks.append({"value": cap, "text": f"cap {cap:,}", "color": CAP})
        for m in marks:
            m["px"] = px(m["value"])
        band = place_labels(marks, HALF) * LABEL_ROW + 2
        for m in marks:
            m["y"] = m["row"] * LABEL_ROW
            m["line_top"] = m["y"] + LABEL_ROW
        height = BARS + band
        x_axis = alt.Axis(title="battles per game (log scale)" if last else None, labels=last,
                          ticks=last, format="~s", values=log_ticks(lo, hi))
        bars = Chart(values(rows)).mark_rect(color=palette.color(rid), opacity=0.85,
                                                  stroke="white", strokeWidth=0.3).encode(
            x=alt.X("bucket_low:Q", scale=x_scale, axis=x_axis),
            x2="bucket_high:Q",
            y=alt.Y("share:Q", title="share of games", axis=share_axis(0, top * height / BARS * 1.04, 3),
                    scale=alt.Scale(domain=[0, top * height / BARS * 1.04], nice=False)),
            y2=alt.datum(0),
            tooltip=[alt.Tooltip("bucket_low:Q", format=".0f", title="from"),
                     alt.Tooltip("bucket_high:Q", format=".0f", title="to"),
                     alt.Tooltip("games:Q"), alt.Tooltip("share:Q", format=".2%")])
        layers = [bars]
        for these, dash, color in ((marks[:-1], [3, 2], INK), (marks[-1:], [1, 0], CAP)):
            if these:  # the statistics dashed, the cap solid red; each line ends under its label
                layers.append(Chart(values(these)).mark_rule(strokeWidth=1, strokeDash=dash, color=color).encode(
                    x=alt.X("value:Q", scale=x_scale), y=alt.Y("line_top:Q", scale=None),
                    y2=alt.Y2Value("height")))
        for align in ("left", "right"):
            these = [m for m in marks if m["align"] == align]
            if not these:
                continue
            layers.append(Chart(values(these)).mark_text(
                align=align, dx=3 if align == "left" else -3, baseline="top", fontSize=10).encode(
                x=alt.X("value:Q", scale=x_scale), y=alt.Y("y:Q", scale=None), text="text:N",
                color=alt.Color("color:N", scale=None)))
        panel = alt.layer(*layers).properties(
            width=HALF, height=height, title=alt.TitleParams(palette.label(rid), fontSize=11, color=INK))
        panels.append(panel)
    chart = alt.vconcat(*panels, spacing=8)
    return Figure(f"{variant}-length-histogram", "How long games last",
                  ["length_distribution", "game_length"], chart,
                  "Share of games in each length bucket (buckets equally wide on the log axis); "
                  "dashed lines mark the mean, median, 90th and 99th percentile, red the battle cap.")


def length_ecdf(data: ReportData, variant: str | None, palette: Palette,
                title: str = "Game length, rule sets compared") -> Figure | None:
    """The cumulative distribution of battles per game, every rule set on one log axis; left
    out for fewer than two rule sets, which it would compare with nothing."""
    dist = with_label(data.rows("length_distribution", variant), palette)
    if len({r["rule_set"] for r in dist}) < 2:
        return None
    points = [r for r in dist if r["games"] or r["cumulative_share"] < 1]
    caps = [{"value": c, "text": f"cap {c:,}"} for c in sorted({r["max_battles"] for r in dist})]
    lo = min(r["bucket_low"] for r in dist if r["games"]) * 0.9
    hi = max(max(r["bucket_high"] for r in dist if r["games"]), max(c["value"] for c in caps)) * 1.25
    x_scale = alt.Scale(type="log", domain=[lo, hi], nice=False)
    wide = variant is None
    width = FULL - 360 if wide else HALF
    lines = Chart(values(points)).mark_line(interpolate="monotone", strokeWidth=2).encode(
        x=alt.X("bucket_high:Q", scale=x_scale, title="battles per game (log scale)",
                axis=alt.Axis(format="~s", values=log_ticks(lo, hi))),
        y=alt.Y("cumulative_share:Q", title="share of games shorter", axis=alt.Axis(format="~%"),
                scale=alt.Scale(domain=[0, 1])),
        color=palette.encode(orient="right" if wide else "top"), strokeDash=palette.dash(),
        detail="rule_set:N",
        tooltip=["rule_set:N", alt.Tooltip("bucket_high:Q", format=".0f", title="battles below"),
                 alt.Tooltip("cumulative_share:Q", format=".2%", title="share")])
    guides = [{"y": q, "text": t} for q, t in ((0.5, "median"), (0.9, "p90"), (0.99, "p99"))]
    guide_rules = Chart(values(guides)).mark_rule(color="#9aa5b1", strokeDash=[2, 3]).encode(y="y:Q")
    guide_text = Chart(values(guides)).mark_text(align="left", x=4, dy=-5, fontSize=10,
                                                      color=MUTED).encode(y="y:Q", text="text:N")
    # a cap's label hangs below the top of the plot, on the left of its line, in a row of its
    # own when two caps are close
    for c in caps:
        c["px"] = width * (math.log(c["value"]) - math.log(lo)) / (math.log(hi) - math.log(lo))
    place_labels(caps, width)
    for c in caps:
        c["y"] = 4 + c["row"] * LABEL_ROW
    layers = [guide_rules, guide_text, lines]
    for align in ("left", "right"):
        these = [c for c in caps if c["align"] == align]
        if these:
            layers.append(Chart(values(these)).mark_rule(color=CAP, strokeWidth=1.5).encode(
                x=alt.X("value:Q", scale=x_scale)))
            layers.append(Chart(values(these)).mark_text(
                align=align, dx=3 if align == "left" else -3, fontSize=10, color=CAP, baseline="top").encode(
                x=alt.X("value:Q", scale=x_scale), y=alt.Y("y:Q", scale=None), text="text:N"))
    chart = alt.layer(*layers).properties(width=width, height=260 if wide else 240)
    return Figure(f"{variant or 'all'}-length-ecdf", title, ["length_distribution"], chart, wide=wide, note=
                  ("Share of a rule set's games that end (a win or a draw) within a number of battles, "
                  "among its games that end (the empirical distribution function at each bucket's upper "
                  "edge); where a line crosses a dotted guide is that percentile of the games that end. "
                  "A rule set's games stopped at its cap, or that never end, are left out: its line "
                  "reaches 100% at its longest game that ends (the summary says how many it leaves out)."))


OUTCOME_SHARES = (("win", "win_share"), ("draw", "draw_share"), ("capped", "capped_share"),
                  ("cycle", "cycle_share"))


def outcome_bars(data: ReportData, variant: str | None, palette: Palette) -> Figure | None:
    """How each rule set's games end, one stacked bar a rule set; left out when there is one
    rule set or every game of every rule set ends one way (a single full bar), which the
    summary and the findings say in words."""
    rows = with_label(data.rows("outcomes", variant), palette)
    if len(rows) < 2 or all(any(r[col] == 1 for _, col in OUTCOME_SHARES) for r in rows) and \
            len({next(k for k, col in OUTCOME_SHARES if r[col] == 1) for r in rows}) == 1:
        return None
    width = beside(palette.domain)
    long = []
    for r in rows:
        for key, col in OUTCOME_SHARES:
            text = pct(r[col], 1)
            fits = r[col] * width >= text_width(text) + 6
            long.append({"rule_set": r["rule_set"], "outcome": key, "share": r[col],
                         "order": list(OUTCOME_COLORS).index(key), "text": text if fits else "",
                         "ink": ink_on(OUTCOME_COLORS[key])})
    y = alt.Y("rule_set:N", title=None, sort=palette.domain, axis=alt.Axis(labelLimit=260))
    bars = Chart(values(long)).mark_bar(height={"band": 0.7}).encode(
        x=alt.X("share:Q", stack="zero", title="share of games", axis=alt.Axis(format="~%"),
                scale=alt.Scale(domain=[0, 1])),
        y=y,
        color=alt.Color("outcome:N", scale=alt.Scale(domain=list(OUTCOME_COLORS),
                                                     range=list(OUTCOME_COLORS.values())),
                        legend=alt.Legend(orient="top", direction="horizontal", title=None)),
        order="order:Q",
        tooltip=["rule_set:N", "outcome:N", alt.Tooltip("share:Q", format=".2%")])
    text = Chart(values(long)).transform_stack(
        stack="share", groupby=["rule_set"], sort=[alt.SortField("order")], as_=["x0", "x1"]
    ).transform_calculate(mid="(datum.x0 + datum.x1) / 2").mark_text(fontSize=10, fontWeight=600).encode(
        x="mid:Q", y=y, text="text:N", color=alt.Color("ink:N", scale=None))
    chart = alt.layer(bars, text).properties(width=width, height=max(40, 26 * len(rows)))
    return Figure(f"{variant or 'all'}-outcomes", "How games end", ["outcomes"], chart,
                  "win: one seat holds every card; draw: nobody can go on; capped: stopped at the "
                  "battle cap; cycle: a position repeated under a fixed pickup order.")


# ----------------------------------------------------------------------------- seats

def seat_advantage(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = mark_exact([r for r in with_label(data.rows("seat_win_interval", variant), palette)
                       if r["share"] is not None], data)
    if not rows:
        return None
    for r in rows:
        r["seat_label"] = f"seat {r['seat']}"
        r[drill.FIELD] = drill.seat_wins(r)
    seats = sorted({r["seat"] for r in rows})
    x = alt.X("seat_label:N", title=None, sort=[f"seat {s}" for s in seats],
              axis=alt.Axis(labelAngle=0, labelFontSize=12))
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    lo = min(min(r["ci_low"] for r in rows), min(r["fair_share"] for r in rows))
    hi = max(max(r["ci_high"] for r in rows), max(r["fair_share"] for r in rows))
    pad = max(0.01, (hi - lo) * 0.15)
    y_scale = alt.Scale(domain=[max(0, lo - pad), min(1, hi + pad)], zero=False, nice=False)
    base = Chart(values(rows))
    bars = base.transform_filter("!datum.every_deal").mark_rule(strokeWidth=2).encode(
        x=x, xOffset=offset, y=alt.Y("ci_low:Q", scale=y_scale, title="share of decided games won",
                                     axis=share_axis(max(0, lo - pad), min(1, hi + pad))),
        y2="ci_high:Q", color=palette.encode())
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=x, xOffset=offset, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(),
        shape=alt.Shape("every_deal:N", scale=alt.Scale(domain=[False, True], range=["circle", "diamond"]), legend=None),
        tooltip=["rule_set:N", "seat_label:N", "wins:Q", "decided_games:Q",
                 alt.Tooltip("share:Q", format=".2%"), alt.Tooltip("ci_low:Q", format=".2%"),
                 alt.Tooltip("ci_high:Q", format=".2%")])
    fairs = sorted({r["fair_share"] for r in rows})
    fair_rule = Chart(values([{"y": f} for f in fairs])).mark_rule(color=MUTED, strokeDash=[4, 3]).encode(
        y=alt.Y("y:Q", scale=y_scale))
    chart = alt.layer(fair_rule, bars, points).properties(width=HALF, height=220)
    fair = " and ".join(pct(f, 1) for f in fairs)
    policies = any(len(set(s)) > 1 for r in data.rule_sets_of(variant) for s in r.seatings)
    if policies:  # a seat of a seating of different policies wins by its policy as much as by its place
        title = "Does a seat's policy win more often?"
        said = ("An interval clear of the line is, where the seats play different policies, the effect of the "
                "seat's policy and its place together, not a seat advantage (policy_matchup pools both "
                "seatings to tell the policy's)")
    else:
        title, said = "Does a seat win more often?", "An interval clear of the line is a seat advantage on its own"
    return Figure(f"{variant}-seat-advantage", title, ["seat_win_interval"], chart,
                  f"Each seat's share of the decided games with its 95% interval; the dashed line is the "
                  f"fair share, {fair}. {said} "
                  f"(the findings judge the report's claims together).{exact_said(rows)}")


# ----------------------------------------------------------------------------- wars

@from_rows("war_battles_distribution")
def war_battles(rows: list[dict], data: ReportData, variant: str, palette: Palette) -> Figure:
    cut = max(min((r["war_battles"] for r in rows if r["rule_set"] == rid and r["cumulative_share"] >= 0.999),
                  default=0) for rid in {r["rule_set"] for r in rows})
    shown = [r for r in rows if r["war_battles"] <= cut]
    x_scale = alt.Scale(domain=[0, cut])
    lines = Chart(values(shown)).mark_line(interpolate="step-after", strokeWidth=1.6).encode(
        x=alt.X("war_battles:Q", title="battles with a war, per game", scale=x_scale),
        y=alt.Y("share:Q", title="share of games", axis=share_axis(0, max(r["share"] for r in shown))),
        color=palette.encode(), strokeDash=palette.dash(), detail="rule_set:N",
        tooltip=["rule_set:N", "war_battles:Q", "games:Q", alt.Tooltip("share:Q", format=".2%")])
    means = [{"rule_set": palette.label(r["rule_set"]), "value": r["mean_war_battles"],
              "median": r["median_war_battles"]}
             for r in data.rows("wars_per_game", variant) if r["rule_set"] in palette.labels]
    mean_rules = Chart(values(means)).mark_rule(strokeDash=[4, 3], strokeWidth=1.2).encode(
        x=alt.X("value:Q", scale=x_scale), color=palette.encode(),
        tooltip=["rule_set:N", alt.Tooltip("value:Q", format=".2f", title="mean war battles"),
                 alt.Tooltip("median:Q", format=".1f", title="median")])
    chart = alt.layer(lines, mean_rules).properties(width=HALF, height=200)
    return Figure(f"{variant}-war-battles", "How many battles are wars",
                  ["war_battles_distribution", "wars_per_game"], chart,
                  f"Share of games with each number of war battles, dashed at each rule set's mean "
                  f"(axis cut at {cut}, where every rule set has 99.9% of its games).")


def deepest_war(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = [r for r in with_label(data.rows("deepest_war", variant), palette) if r["depth"] >= 1]
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
    lines = Chart(values(rows)).mark_line(strokeWidth=1.5, point=alt.OverlayMarkDef(filled=True, size=45)).encode(
        x=x, y=y, color=palette.encode(), strokeDash=palette.dash(), detail="rule_set:N",
        tooltip=["rule_set:N", "depth_name:N", "games:Q", alt.Tooltip("at_least_share:Q", format=".3%")])
    layers = [lines]
    if len(palette.domain) == 1:
        layers.append(Chart(values(rows)).mark_text(dy=-9, fontSize=10, color=INK).encode(
            x=x, y=y, text="text:N"))
    chart = alt.layer(*layers).properties(width=HALF, height=200)
    return Figure(f"{variant}-deepest-war", "How deep wars go", ["deepest_war"], chart,
                  "Share of games whose deepest war is at least a single, double, triple... war "
                  "(a double war: the war's face-up cards tie again).")


@from_rows("first_battle_war_exact")
def first_battle_war(rows: list[dict], data: ReportData, variant: str, palette: Palette) -> Figure:
    """Each rule set's share of games whose first battle is a war: sampled, a dot and its 95%
    interval beside the exact probability (a black tick); over every deal, the share is that
    probability, a tick labelled with its fraction and no interval."""
    rows = mark_exact(rows, data)
    for r in rows:
        if r["every_deal"]:
            f = Fraction(r["first_battle_wars"], r["games"]) if r["games"] else Fraction(0)
            r["tick"], r["tick_fraction"] = r["share"], f"{f.numerator}/{f.denominator}"
            r["text"] = f"exactly {r['tick_fraction']} = {pct(r['share'], 2)}, over every deal"
        else:
            r["tick"], r["tick_fraction"] = r["exact"], r["exact_fraction"]
            r["text"] = (f"{pct(r['share'], 2)} observed"
                         + (f"; exact {r['exact_fraction']} = {pct(r['exact'], 2)}" if r["exact"] is not None else ""))
    y = alt.Y("rule_set:N", title=None, sort=palette.domain, axis=alt.Axis(labelLimit=260))
    ticks = [r["tick"] for r in rows if r["tick"] is not None]
    lo = min([r["ci_low"] for r in rows] + ticks)
    hi = max([r["ci_high"] for r in rows] + ticks)
    pad = max((hi - lo) * 0.3, 0.005)
    domain = [max(0, lo - pad), min(1, hi + pad)]
    x_scale = alt.Scale(domain=domain, zero=False, nice=False)
    x = alt.X("ci_low:Q", title="share of games whose first battle is a war", scale=x_scale,
              axis=share_axis(*domain))
    sampled = Chart(values([r for r in rows if not r["every_deal"]]))
    base = Chart(values(rows))
    layers = []
    if any(not r["every_deal"] for r in rows):
        layers.append(sampled.mark_rule(strokeWidth=2).encode(x=x, x2="ci_high:Q", y=y,
                                                              color=palette.encode(legend=False)))
        layers.append(sampled.mark_point(filled=True, size=70).encode(
            x=alt.X("share:Q", scale=x_scale), y=y, color=palette.encode(legend=False),
            tooltip=["rule_set:N", "games:Q", "first_battle_wars:Q", alt.Tooltip("share:Q", format=".3%"),
                     alt.Tooltip("exact:Q", format=".3%"), "exact_fraction:N"]))
    layers.append(base.transform_filter("datum.tick != null").mark_tick(color=INK, thickness=2, size=22).encode(
        x=alt.X("tick:Q", scale=x_scale, title="share of games whose first battle is a war", axis=share_axis(*domain)),
        y=y,
        tooltip=["rule_set:N", "games:Q", "first_battle_wars:Q", alt.Tooltip("tick:Q", format=".3%", title="exact"),
                 alt.Tooltip("tick_fraction:N", title="fraction")]))
    layers.append(base.mark_text(align="left", dy=-13, fontSize=10, color=MUTED, x=4).encode(y=y, text="text:N"))
    chart = alt.layer(*layers).properties(width=beside(palette.domain), height=max(60, 44 * len(rows)))
    every = all(r["every_deal"] for r in rows)
    known = any(r["tick"] is not None for r in rows)  # no tick where war does not know the chance (a plugin's rules)
    note = ("Over every deal of the deck, the share of games whose first battle is a war is its exact "
            "probability (black tick, with its fraction): no interval." if every else
            ("Observed share with its 95% interval (dot and bar) against the exact probability "
             "that the first face-up cards tie (black tick)." + exact_said(rows)) if known else
            "Observed share with its 95% interval (dot and bar); war knows the chance of a war in the "
            "first battle only for its own families' rules, so none is drawn here.")
    return Figure(f"{variant}-first-battle-war", "Is the first battle a war as often as chance says?" if known
                  else "How often is the first battle a war?", ["first_battle_war_exact"], chart, note)


# ----------------------------------------------------------------------------- the deal

SPARSE = FEW_GAMES  # decided seat-games below which a deal bucket is drawn hollow and not joined


def _win_rate_chart(rows: list[dict], palette: Palette, x: alt.X, y_title: str, x_field: str) -> alt.LayerChart:
    """Win rate by what was dealt: a point and its 95% interval per bucket, the points of
    buckets with SPARSE or more decided seats filled and joined, the others hollow and apart,
    since their share swings with a handful of games."""
    for r in rows:
        r["sparse"] = r["decided_seats"] < SPARSE
    y_scale = alt.Scale(domain=[0, 1])
    tooltip = ["rule_set:N", f"{x_field}:Q", "decided_seats:Q", "wins:Q", alt.Tooltip("share:Q", format=".2%"),
               alt.Tooltip("ci_low:Q", format=".2%"), alt.Tooltip("ci_high:Q", format=".2%")]
    base = Chart(values(rows))
    ci = base.transform_filter("!datum.every_deal").mark_rule(strokeWidth=1.5).encode(
        x=x, y=alt.Y("ci_low:Q", scale=y_scale, title=y_title, axis=alt.Axis(format="~%")),
        y2="ci_high:Q", color=palette.encode(),
        opacity=alt.condition("datum.sparse", alt.value(0.3), alt.value(0.7)))
    solid = [r for r in rows if not r["sparse"]]
    line = Chart(values(solid)).mark_line(strokeWidth=1.5).encode(
        x=x, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(), strokeDash=palette.dash(),
        detail="rule_set:N")
    filled = Chart(values(solid)).mark_point(filled=True, size=40, opacity=1).encode(
        x=x, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(), tooltip=tooltip)
    hollow = Chart(values([r for r in rows if r["sparse"]])).mark_point(
        filled=False, size=40, strokeWidth=1.5, opacity=1).encode(
        x=x, y=alt.Y("share:Q", scale=y_scale), color=palette.encode(), tooltip=tooltip)
    fair = [{"y": f} for f in sorted({r["fair_share"] for r in rows})]
    fair_rule = Chart(values(fair)).mark_rule(color=MUTED, strokeDash=[4, 3]).encode(y=alt.Y("y:Q", scale=y_scale))
    return alt.layer(fair_rule, ci, line, filled, hollow)


def _deal_rows(data: ReportData, variant: str, palette: Palette, by: str) -> list[dict]:
    return mark_exact([r for r in with_label(data.rows("deal_win_rate", variant), palette)
                       if r["by"] == by and r["share"] is not None], data)


def deal_top_cards(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _deal_rows(data, variant, palette, "top_cards")
    if not rows:
        return None
    top_ranks = int(data.params.get("deal_win_rate", {}).get("top_ranks", "1"))
    jokers = any(data.rule_set(r["rule_set"]).rules.get("jokers", 0) for r in rows)
    what = ("Aces" if top_ranks == 1 else f"cards of the top {top_ranks} ranks") + (" and Jokers" if jokers else "")
    x = alt.X("low:Q", title=f"{what} dealt to the seat", axis=alt.Axis(tickMinStep=1, format="d"),
              scale=alt.Scale(domain=[0, max(r["low"] for r in rows)]))
    chart = _win_rate_chart(rows, palette, x, "share of decided games won", "low").properties(
        width=HALF, height=220)
    return Figure(f"{variant}-deal-top-cards", f"Win rate by the {what} dealt", ["deal_win_rate"], chart,
                  "Share of decided games that a seat won, by how many top cards it was dealt, "
                  f"with 95% intervals; the dashed line is the fair share. Hollow, not joined: fewer than "
                  f"{SPARSE} decided games.{exact_said(rows, 'win rate')}", extra={"by": "top_cards"})


def deal_strength(data: ReportData, variant: str, palette: Palette) -> Figure | None:
    rows = _deal_rows(data, variant, palette, "strength")
    if not rows:
        return None
    x = alt.X("mean_value:Q", title="hand strength: sum of dealt ranks, centred on the middle rank")
    chart = _win_rate_chart(rows, palette, x, "share of decided games won", "mean_value").properties(
        width=HALF, height=220)
    return Figure(f"{variant}-deal-strength", "Win rate by hand strength", ["deal_win_rate"], chart,
                  "Each point is a bucket of hands (plotted at its mean strength) with a 95% interval; "
                  f"an 8 scores 0, an Ace +6, a 2 -6 (standard deck). Hollow, not joined: fewer than {SPARSE} "
                  f"decided games.{exact_said(rows, 'win rate')}", extra={"by": "strength"})
