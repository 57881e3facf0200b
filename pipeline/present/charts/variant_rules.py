"""The charts of the rules of a variant whose seats follow policies, whatever its family: game
length by policy and the tournament's matchups. A family's charts of its own rules are its own,
beside its queries, named by its declaration (Family.charts: Război's war sizes and the Jokers'
wars in pipeline/engines/table/charts.py, Steal War's steals and Arneson's consolation cards in
their folders)."""

from __future__ import annotations

import altair as alt

from .. import drill
from ..numbers import pct
from ...model.names import short_policies
from ..report import ReportData
from .figure import PALETTE, Chart, Figure, Palette, beside, blend, ink_on, values

LOSES, EVEN, WINS = "#b2182b", "#f7f7f7", "#2166ac"  # the matrix's colors: below, at and above the fair share


def share_color(share: float, lo: float, fair: float, hi: float) -> str:
    """A cell's fill: white-grey at the fair share, the full red at the lowest share shown and
    the full blue at the highest, each side scaled to its own end (the scale spans the data)."""
    if share >= fair:
        return blend(EVEN, WINS, 0 if hi <= fair else (share - fair) / (hi - fair))
    return blend(EVEN, LOSES, 0 if lo >= fair else (fair - share) / (fair - lo))


def legend_format(shares: list[float]) -> str:
    """The percent format with the fewest decimals (up to 3) that writes each of `shares` apart."""
    for digits in range(4):
        if len({f"{100 * v:.{digits}f}" for v in shares}) == len(shares):
            return f".{digits}%"
    return ".3%"


def seatings_said(rows: list[dict]) -> tuple[str, str]:
    """A matrix's title and the words that say how its pairs were seated (policy_matchup's rows of
    one rules): a tournament's, every pair played in both seatings equally often, pools them and
    its shares are the policies'; otherwise a share mixes the policy with the seat it sat in."""
    if all(r["games_a_seat0"] == r["games_b_seat0"] > 0 for r in rows):
        return "Tournament: who beats whom", "both seatings pooled, played equally often"
    one = [r for r in rows if not (r["games_a_seat0"] and r["games_b_seat0"])]
    said = ("each pair played in one seating only" if len(one) == len(rows) else
            "each pair played in both seatings, unequally often" if not one else
            "not every pair played in both seatings equally often")
    return ("Matchups, not a tournament: seat and policy together",
            f"{said} (not a tournament), so a share is of the policy and its seat together, which "
            "cannot be told apart: no policy is shown to beat another")


def matchup_matrix(data: ReportData, variant: str, palette: Palette) -> list[Figure]:
    """Per rule set of a tournament: the row policy's share of decided games against the
    column's, colored on a scale from the lowest share to the highest that diverges at the fair
    share (50%), its text black or white, whichever the cell's color lets read (WCAG AA)."""
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
                              "text": pct(share, 1),
                              "interval": "exact" if data.rules_exact(rid) else f"{pct(lo, 1)} – {pct(hi, 1)}",
                              drill.FIELD: drill.matchup(variant, row, col)})
        fair = 0.5
        low, high = min(c["share"] for c in cells), max(c["share"] for c in cells)
        for c in cells:
            c["fill"] = share_color(c["share"], low, fair, high)
            c["ink"] = ink_on(c["fill"])
        order = [short[n] for n in names]
        side = max(70, min(140, 520 // max(1, len(names))))
        base = Chart(values(cells)).encode(
            x=alt.X("col:N", sort=order, title="against", axis=alt.Axis(orient="top", labelAngle=0, labelLimit=side)),
            y=alt.Y("row:N", sort=order, title="policy", axis=alt.Axis(labelLimit=200)))
        heat = base.mark_rect(stroke="white", strokeWidth=2).encode(
            fill=alt.Fill("fill:N", scale=None),
            tooltip=["row:N", "col:N", alt.Tooltip("share:Q", format=".2%"), "interval:N", "wins:Q",
                     "decided_games:Q"])
        # the legend: the same scale, drawn by marks no one sees
        domain = [low, fair, high] if low < fair < high else [low, high]
        colors = [share_color(v, low, fair, high) for v in domain]
        key = Chart(values([{"share": v} for v in domain])).mark_point(opacity=0).encode(
            color=alt.Color("share:Q", title="win rate",
                            scale=alt.Scale(domain=domain, range=colors, interpolate="rgb"),
                            legend=alt.Legend(format=legend_format(sorted({low, fair, high})), orient="right",
                                              direction="vertical", values=sorted({low, fair, high}))))
        text = base.mark_text(fontSize=12, fontWeight=600, dy=-7).encode(
            text="text:N", color=alt.Color("ink:N", scale=None))
        interval = base.mark_text(fontSize=10, dy=8).encode(text="interval:N", color=alt.Color("ink:N", scale=None))
        # the text's colors are its own (scale None), not the legend's scale
        chart = alt.layer(heat, key, text, interval).resolve_scale(color="independent").properties(
            width=side * len(names), height=side * len(names))
        label = mine[0]["rules_name"]
        title, pooled = seatings_said(mine)
        figures.append(Figure(f"{variant}-matchups-{rid}", title,
                              ["policy_matchup"], chart,
                              f"{label}: the row policy's share of the decided games against the column "
                              f"policy, {pooled}, with its 95% interval; blue above the fair 50%, "
                              "red below (empty: a policy against itself).", extra={"rules_id": rid}))
    return figures


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
    y = alt.Y("policies:N", title=None, axis=alt.Axis(labelLimit=260))
    chart = Chart(values(long)).mark_point(filled=True, size=70).encode(
        x=alt.X("battles:Q", title="battles per game"), y=y,
        shape=alt.Shape("stat:N", title=None, sort=["median", "mean", "p90"],
                        legend=alt.Legend(orient="top", direction="horizontal")),
        color=alt.Color("stat:N", sort=["median", "mean", "p90"], scale=alt.Scale(range=PALETTE[:3]), legend=None),
        tooltip=["policies:N", "stat:N", alt.Tooltip("battles:Q", format=".1f"), "games:Q"]
    ).properties(width=beside(r["policies"] for r in long), height=max(60, 26 * len(rows)))
    return Figure(f"{variant}-length-by-policy", "Game length by the seats' policies",
                  ["length_by_policy"], chart, "Median, mean and 90th percentile of battles per game "
                  "for each seating, seat 0's policy first.")

