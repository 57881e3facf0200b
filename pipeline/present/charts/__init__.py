"""The report's charts, section by section: an overview of every rule set, then one section per
variant. Each chart is a Vega-Lite specification built with Altair from the rows of the
report's named queries (figure.py says what a chart may do with them).

figure.py holds what the charts share, all_variants.py the charts every variant's section has,
variant_rules.py those of the rules of a variant whose seats follow policies, and render.py
draws a chart to SVG or PNG with vl-convert, without a browser. A family's charts of its own
rules are its own, named by its declaration (Family.charts) and found in the registry: each
family's in turn, in the registry's order, in every variant's section that has their rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..report import ReportData
from .all_variants import (deal_strength, deal_top_cards, deepest_war, first_battle_war, length_ecdf,
                           length_histograms, outcome_bars, seat_advantage, war_battles)
from .figure import Figure, Palette
from .variant_rules import length_by_policy, matchup_matrix


def rule_set_palette(data: ReportData, variant: str) -> Palette:
    """The colors of a variant's section: its rule sets, each by its name."""
    return Palette(data.rule_sets_of(variant), lambda r: r.label)


def overview_palette(data: ReportData) -> Palette:
    """The colors of the overview: every rule set, each by its name."""
    return Palette(data.rule_sets, lambda r: r.label)


@dataclass
class Section:
    """A part of the report: a heading and its figures, grouped under sub-headings."""

    id: str
    title: str
    groups: list[tuple[str, list[Figure]]]


def variant_figures(data: ReportData, variant: str) -> list[tuple[str, list[Figure]]]:
    """A variant's figures under their sub-headings; a group with no figure is left out."""
    palette = rule_set_palette(data, variant)
    groups = [
        ("Game length", [length_histograms(data, variant, palette), length_ecdf(data, variant, palette),
                         outcome_bars(data, variant, palette)]),
        ("Seat advantage", [seat_advantage(data, variant, palette)]),
        ("Wars", [war_battles(data, variant, palette), deepest_war(data, variant, palette),
                  first_battle_war(data, variant, palette)]),
        ("What the deal decides", [deal_top_cards(data, variant, palette), deal_strength(data, variant, palette)]),
    ]
    special = [*family_figures(data, variant, palette), length_by_policy(data, variant, palette),
               *matchup_matrix(data, variant, palette)]
    groups.append(("Rules of this variant", special))
    return [(title, [f for f in figs if f is not None]) for title, figs in groups
            if any(f is not None for f in figs)]


def family_figures(data: ReportData, variant: str, palette: Palette) -> list[Figure | None]:
    """Every installed family's charts (Family.charts) of `variant`'s section, family by family
    in the registry's order: a chart with no rows for the variant is None."""
    from ...model.families import registry
    from ...model.family import load

    return [figure for family in registry().families.values() if family.charts
            for figure in load(family.charts)(data, variant, palette)]


def sections(data: ReportData) -> list[Section]:
    """The report's sections: an overview of every rule set, then one per variant."""
    palette = overview_palette(data)
    overview = [f for f in (length_ecdf(data, None, palette, "Game length, every rule set"),
                            outcome_bars(data, None, palette)) if f is not None]
    out = [Section("overview", "Overview", [("", overview)])]
    for v in data.variants:
        infos = data.rule_sets_of(v)
        out.append(Section(v, infos[0].title, variant_figures(data, v)))
    return out
