"""Steal War's chart, beside its query (queries/steals.sql): how often each steal policy steals
and how many of its chances it takes (Family.charts)."""

from __future__ import annotations

import altair as alt

from ...model.names import short_policies
from ...present.charts.figure import HALF, PALETTE, Chart, Figure, Palette, values
from ...present.report import ReportData


def charts(data: ReportData, variant: str, palette: Palette) -> list[Figure | None]:
    """The family's charts of `variant`'s section (None: no rows)."""
    return [steal_effect(data, variant, palette)]


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
    per_game = Chart(values(out)).mark_tick(thickness=3, size=18).encode(
        x=x, xOffset=offset, y=alt.Y("steals_per_game:Q", title="steals per game"), color=color,
        tooltip=["policy:N", "against:N", "seat_label:N", alt.Tooltip("steals_per_game:Q", format=".2f"),
                 alt.Tooltip("cards_per_steal:Q", format=".2f"), alt.Tooltip("taken_share:Q", format=".1%")]
    ).properties(width=HALF, height=160, title="Steals per game, each seating")
    taken = Chart(values([r for r in out if r["taken_share"] is not None])).mark_tick(thickness=3, size=18).encode(
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



def _steal_order(name: str) -> tuple:
    if name == "never":
        return (0, 0, name)
    if name.startswith("threshold:"):
        try:
            return (1, -int(name.split(":", 1)[1]), name)
        except ValueError:
            return (1, 0, name)
    return (2 if name == "always" else 3, 0, name)

