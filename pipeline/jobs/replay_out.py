"""What `war replay` prints of a replayed game: its text, its JSON, or one card's journey."""

from __future__ import annotations

import json

from ..errors import UsageError, brief
from .journey import follow, parse_card, render_follow
from .replay import GameReplay, as_json, render_text

FORMATS = ("text", "json")  # what render_replay writes; the page (html) is present.replay_page.render_page's


def render_replay(rp: GameReplay, fmt: str = "text", battle: int | None = None,
                  battles: tuple[int, int | None] | None = None, wars: bool = False,
                  card: str | int | None = None) -> str:
    """The replay as `war replay` prints it, `fmt` text or json: the battles `select` shows, or
    with `card` (a label or a code) that card's journey through them. UsageError for any other
    `fmt` (html is war.render_page's)."""
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise UsageError(f"`fmt` must be {' or '.join(FORMATS)}, got {brief(fmt)} "
                         f"(html: war.render_page(rp) writes the page)", params=("fmt",))
    if card is not None:
        journey = follow(rp, parse_card(rp, card), battle, battles, wars)
        if fmt == "json":
            return json.dumps({"game": rp.record, "disagreements": rp.disagreements, "follow": journey},
                              ensure_ascii=False)
        return render_follow(rp, journey, battle is not None or battles is not None or wars)
    if fmt == "json":
        return json.dumps(as_json(rp, battle, battles, wars), ensure_ascii=False)
    return render_text(rp, battle, battles, wars)
