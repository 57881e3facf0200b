"""Arneson's War's chart, beside its query (queries/arneson_consolation.sql): the war loser's
consolation cards (Family.charts)."""

from __future__ import annotations

import altair as alt

from ...model.names import short_policies
from ...present.charts.figure import INK, PALETTE, Chart, Figure, Palette, beside, values
from ...present.numbers import pct
from ...present.report import ReportData


def charts(data: ReportData, variant: str, palette: Palette) -> list[Figure | None]:
    """The family's charts of `variant`'s section (None: no rows)."""
    return [arneson_consolation(data, variant, palette)]


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
    y = alt.Y("policies:N", title=None, axis=alt.Axis(labelLimit=260))
    bars = Chart(values(long)).mark_bar().encode(
        x=alt.X("share:Q", title="share of decided games", axis=alt.Axis(format="~%"), scale=alt.Scale(domain=[0, 1])),
        y=y, yOffset="measure:N",
        color=alt.Color("measure:N", title=None, scale=alt.Scale(range=[PALETTE[0], PALETTE[2]]),
                        legend=alt.Legend(orient="top", direction="vertical")),
        tooltip=["policies:N", "measure:N", alt.Tooltip("share:Q", format=".2%")])
    text = Chart(values(long)).mark_text(align="left", dx=3, fontSize=10, color=INK).encode(
        x="share:Q", y=y, yOffset="measure:N", text="text:N")
    chart = alt.layer(bars, text).properties(width=beside(r["policies"] for r in long),
                                             height=max(80, 50 * len(rows)))
    return Figure(f"{variant}-consolation", "Arneson's War: the war loser's consolation cards",
                  ["arneson_consolation"], chart,
                  "The loser of a war takes back the two cards that caused it: how often the eventual "
                  "winner received such cards, and how often one of them later won it a battle (each row "
                  "a seating, seat 0's policy first).")
