"""The charts of one variant's own rules: Război's war sizes, the Jokers' wars, Steal War's
steals, Arneson's War's consolation cards, and, where seats follow policies, game length by
policy and the tournament's matchups."""

from __future__ import annotations

import altair as alt

from .. import drill
from ..numbers import pct
from ...model.names import short_policies
from ..report import ReportData
from .figure import (HALF, INK, PALETTE, Chart, Figure, Palette, beside, blend, depth_name, exact_said, from_rows, ink_on,
                     mark_exact, values)

RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"]


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
        figures.append(Figure(f"{variant}-matchups-{rid}", "Tournament: who beats whom",
                              ["policy_matchup"], chart,
                              f"{label}: the row policy's share of the decided games against the column "
                              "policy, both seatings pooled, with its 95% interval; blue above the fair 50%, "
                              "red below (empty: a policy against itself).", extra={"rules_id": rid}))
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
