"""`war replay`: one game from its log, battle by battle."""

from __future__ import annotations

import json
from enum import Enum

import typer

from .app import app


class ReplayFormat(str, Enum):
    text = "text"
    json = "json"



@app.command()
def replay(
    dataset: str = typer.Argument(..., help="Dataset folder (or file:// URI)."),
    game: int = typer.Argument(..., help="game_id (see the games table)."),
    battle: int | None = typer.Option(None, "--battle", "-b", help="Show only battle N, with full piles."),
    fmt: ReplayFormat = typer.Option(ReplayFormat.text, "--format", "-f", help="text or json."),
) -> None:
    """Replay one game from its log, battle by battle, checked against the engine."""
    from ..jobs.replay import (  # lazy: keeps war --help fast
        as_json,
        render_text,
        replay_game,
    )

    rp = replay_game(dataset, game)
    if fmt is ReplayFormat.json:
        typer.echo(json.dumps(as_json(rp, battle), ensure_ascii=False))
    else:
        typer.echo(render_text(rp, battle))

