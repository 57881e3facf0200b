"""A chart's axis never repeats a label (issue 46, item 8): a share axis gets ticks a 1-2-5 step
apart and as many decimals as that step needs (52.5%, not 52% twice at half-percent ticks),
checked on the ticks and on the SVG that vl-convert draws of the charts whose intervals are
narrowest (a seat's share of many games, the first battle's war, a tournament's matrix)."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.model.rules import build_rules
from pipeline.present.charts import rule_set_palette
from pipeline.present.charts.all_variants import first_battle_war, seat_advantage
from pipeline.present.charts.figure import share_ticks
from pipeline.present.charts.render import render_svg
from pipeline.present.charts.variant_rules import legend_format
from pipeline.present.report import ReportData, RuleSetInfo

AXIS_LABELS = re.compile(r'<g class="mark-text role-(?:axis|legend)-label"[^>]*>(.*?)</g>', re.S)


@given(st.floats(0, 0.99), st.floats(0.0005, 1), st.integers(2, 8))
@example(0.53125, 0.4375, 2)  # by halves, the only multiple (100%) lay beyond the span: no tick at all
def test_share_ticks_never_read_the_same(lo, span, count):
    hi = min(1.0, lo + span)
    ticks, fmt = share_ticks(lo, hi, count)
    assert len(ticks) >= 2 and all(lo - 1e-9 <= t <= hi + 1e-9 for t in ticks)
    digits = int(fmt[1:-1])
    labels = [f"{100 * t:.{digits}f}%" for t in ticks]
    assert len(set(labels)) == len(labels), (lo, hi, ticks, fmt)


def test_a_legend_writes_its_shares_apart():
    assert legend_format([0.4951, 0.5, 0.5049]) == ".1%"
    assert legend_format([0.3, 0.5, 0.7]) == ".0%"


CLASSIC = build_rules("classic")


def _data(rows: dict) -> ReportData:
    info = RuleSetInfo(CLASSIC.label, CLASSIC.rules_id, "classic", CLASSIC.options(), (), 400_000)
    return ReportData("t", 0, "2", [info], {k: pa.Table.from_pylist(v) for k, v in rows.items()}, {})


def _labels(svg: str) -> list[list[str]]:
    return [re.findall(r">([^<]+)</text>", group) for group in AXIS_LABELS.findall(svg)]


@pytest.mark.parametrize("spread", [0.004, 0.011, 0.023, 0.07])
def test_no_axis_of_the_narrowest_charts_repeats_a_label(spread):
    """The seat advantage chart of 400,000 decided games, each seat within `spread` of 50%
    (the issue's 52%, 52%, 51%, 51%), and the first battle's war beside its exact probability."""
    shares = (0.5 + spread / 2, 0.5 - spread / 2)
    seats = [{"rule_set": CLASSIC.label, "variant": "classic", "rules_id": CLASSIC.rules_id, "players": 2, "seat": s, "wins": int(p * 4e5),
              "decided_games": 400_000, "share": p, "ci_low": p - 0.0015, "ci_high": p + 0.0015, "fair_share": 0.5}
             for s, p in enumerate(shares)]
    first = [{"rule_set": CLASSIC.label, "variant": "classic", "rules_id": CLASSIC.rules_id, "games": 400_000, "first_battle_wars": 23_600,
              "share": 0.059, "ci_low": 0.059 - spread / 10, "ci_high": 0.059 + spread / 10, "exact": 3 / 51,
              "exact_fraction": "3/51"}]
    data = _data({"seat_win_interval": seats, "first_battle_war_exact": first})
    palette = rule_set_palette(data, "classic")
    for figure in (seat_advantage(data, "classic", palette), first_battle_war(data, "classic", palette)):
        groups = _labels(render_svg(figure))
        assert groups, figure.id
        for labels in groups:
            assert len(labels) == len(set(labels)), (figure.id, labels)
