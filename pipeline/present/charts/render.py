"""A chart drawn by vl-convert, without a browser: SVG markup for the report's page and the chart
files, PNG for `war report --format png`."""

from __future__ import annotations

import re

from markupsafe import escape

from .. import drill
from .figure import Figure


def spec(fig: Figure) -> dict:
    """The figure's Vega-Lite specification, built without Altair's schema validation."""
    import altair as alt

    with alt.utils.schemapi.debug_mode(False):
        return fig.spec(validate=False)


def render_svg(fig: Figure, links: bool = False) -> str:
    """The chart as SVG markup, its ids prefixed with the figure's so charts never share one.
    With `links`, a mark that stands for games opens them in `war serve` (present/drill.py)."""
    import vl_convert as vlc  # lazy: loads the Vega runtime

    svg = vlc.vegalite_to_svg(drill.with_links(spec(fig)) if links else spec(fig), allowed_base_urls=[])
    if links:
        svg = drill.localize(svg)
    # vl-convert numbers gradients across calls; renumber per figure so the page is the same
    # bytes however many charts were drawn before it
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", fig.id)
    names = list(dict.fromkeys(re.findall(r'\bid="([^"]+)"', svg)))
    new = {name: f"{prefix}-{i}" for i, name in enumerate(names)}
    if new:
        pattern = re.compile(r'(\bid="|url\(#|href="#)(' + "|".join(map(re.escape, names)) + r')(?=[")])')
        svg = pattern.sub(lambda m: m.group(1) + new[m.group(2)], svg)
    svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{escape(fig.title)}" ', 1)


def render_png(fig: Figure, scale: float = 2.0) -> bytes:
    import vl_convert as vlc  # lazy: loads the Vega runtime

    return vlc.vegalite_to_png(spec(fig), scale=scale, allowed_base_urls=[])
