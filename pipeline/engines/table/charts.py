"""The table family's charts, drawn in the report's section of every variant whose rows they
have (Family.charts): Război's war sizes (wherever wars are sized by rank) and how often a Joker
decides a war (wherever Jokers are in the deck). Their queries are war's own (queries/); the
family's declaration has the report run them for the rule sets they are about (Report.when)."""

from __future__ import annotations

import altair as alt

from ...present.charts.figure import (HALF, INK, Chart, Figure, Palette, depth_name, exact_said, from_rows, mark_exact,
                                      values)
from ...present.report import ReportData

RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"]


def charts(data: ReportData, variant: str, palette: Palette) -> list[Figure | None]:
    """The family's charts of `variant`'s section, in the order it shows them (None: no rows)."""
    return [razboi_sizes(data, variant, palette), joker_wars(data, variant, palette)]


@from_rows("razboi_war_sizes")
def razboi_sizes(rows: list[dict], data: ReportData, variant: str, palette: Palette) -> Figure:
    ranks = [r for r in RANK_NAMES if r in {row["tied_rank"] for row in rows}]
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    x = alt.X("tied_rank:N", sort=ranks, title="rank of the tied cards", axis=alt.Axis(labelAngle=0))
    wars = Chart(values(rows)).mark_bar().encode(
        x=x, xOffset=offset, y=alt.Y("wars:Q", title="wars"), color=palette.encode(),
        tooltip=["rule_set:N", "tied_rank:N", "wars:Q", "value:Q", "full_down:Q"]
    ).properties(width=HALF, height=150, title="Wars on each rank")
    size_rows = [r for r in rows if r["mean_down_per_player"] is not None]
    down = Chart(values(size_rows)).mark_bar(opacity=0.85).encode(
        x=x, xOffset=offset, y=alt.Y("mean_down_per_player:Q", title="cards down per player"),
        color=palette.encode(),
        tooltip=["rule_set:N", "tied_rank:N", alt.Tooltip("mean_down_per_player:Q", format=".2f"),
                 "full_down:Q", "short_entries:Q", "player_entries:Q"])
    full = Chart(values(size_rows)).mark_tick(color=INK, thickness=2).encode(
        x=x, xOffset=offset, y="full_down:Q")
    chart = alt.vconcat(wars, alt.layer(down, full).properties(
        width=HALF, height=150, title="Face-down cards per player: mean (bar) and the full size v - 1 (tick)"))
    return Figure(f"{variant}-war-sizes", "Război: war sizes", ["razboi_war_sizes"], chart,
                  "A war on rank v puts v - 1 cards down per player (court cards count 10, the Ace "
                  "its ace_value); a player short of cards puts fewer.")



@from_rows("joker_wars")
def joker_wars(rows: list[dict], data: ReportData, variant: str, palette: Palette) -> Figure:
    rows = [{**r, "depth_name": depth_name(r["war_depth"])} for r in mark_exact(rows, data, "joker_share")]
    order = [depth_name(d) for d in sorted({r["war_depth"] for r in rows})]
    offset = alt.XOffset("rule_set:N", sort=palette.domain) if len(palette.domain) > 1 else alt.XOffset()
    x = alt.X("depth_name:N", sort=order, title="battle", axis=alt.Axis(labelAngle=0))
    y_scale = alt.Scale(domain=[0, min(1, max(r["ci_high"] for r in rows) * 1.1)])
    base = Chart(values(rows))
    ci = base.transform_filter("!datum.every_deal").mark_rule(strokeWidth=2).encode(
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
                  f"intervals.{exact_said(rows)}")

