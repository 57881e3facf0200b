"""`war replay`: one game from its log, battle by battle, or as a page to watch in a browser."""

from __future__ import annotations

from pathlib import Path

import typer

import pipeline as war
from pipeline import frontend

from .app import app, choices, refuse_output, say_error


ReplayFormat = choices("ReplayFormat", ("text", "json", "html"))


@app.command()
def replay(
    dataset: str = typer.Argument(..., metavar="DATASET", help="Dataset folder (or file:// URI)."),
    game: int = typer.Argument(..., metavar="GAME", help="game_id (see the games table)."),
    battle: int | None = typer.Option(None, "--battle", "-b", metavar="N", help="Show only battle N, with full piles."),
    battles: str | None = typer.Option(None, "--battles", metavar="A-B", help="Show battles A-B (or A- to the end)."),
    wars: bool = typer.Option(False, "--wars", help="Show only the battles with a war."),
    follow: str | None = typer.Option(None, "--follow", metavar="CARD", help="One card's journey (10♥, 10H, QS, or a code)."),
    fmt: ReplayFormat = typer.Option(ReplayFormat.text, "--format", "-f", metavar="FORMAT", help="text, json or html (a page)."),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to FILE instead of stdout."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --output file."),
) -> None:
    """Replay one game from its log, battle by battle, checked against the engine. Warns on
    stderr when the game's row in the games table disagrees with its log."""
    refuse_output(output, overwrite, war.UsageError)
    if fmt is ReplayFormat.html and (battle is not None or battles or wars or follow):
        raise war.UsageError("--format html shows the whole game (open it at a battle with #battle=N); "
                             "--battle, --battles, --wars and --follow are for text and json")
    span = frontend.parse_range(battles) if battles is not None else None
    rp = war.replay_game(dataset, game)
    warning = rp.disagreement()
    if warning:
        say_error(f"warning: {warning}")
    if fmt is ReplayFormat.html:
        text = war.render_page(rp)
    else:
        text = war.render_replay(rp, fmt.value, battle, span, wars, follow)
    if output is None:
        typer.echo(text)
    else:
        frontend.write_file(output, (text + "\n").encode())
