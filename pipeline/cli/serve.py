"""`war serve`: the report, the games list and every game's replay page, in a browser."""

from __future__ import annotations

import typer

import pipeline as war

from .app import app, progress


@app.command()
def serve(
    dataset: str = typer.Argument(..., metavar="DATASET", help="Dataset folder (or file:// URI)."),
    port: int = typer.Option(8000, "--port", "-p", metavar="PORT", help="TCP port (0: any free port)."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDRESS",
                             help="Address to listen on; anything but 127.0.0.1 lets other machines in."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress while the report is built."),
) -> None:
    """Browse the dataset: the report, the games (filter, sort, export), any game's replay and
    its tables, and read-only SQL with the named queries."""
    if not 0 <= port <= 65535:
        raise war.UsageError(f"--port must be 0 to 65535, got {port}")
    bar = progress(0, "building the report", quiet)
    tick = bar.__enter__()
    ended = False

    def end() -> None:
        nonlocal ended
        if not ended:
            ended = True
            bar.__exit__(None, None, None)

    def ready(url: str) -> None:  # at once: the report is built while the server answers
        if host not in ("127.0.0.1", "localhost", "::1"):  # said once it listens: a host it cannot take is an error alone
            typer.echo(f"warning: listening on {host}: other machines can read this dataset", err=True)
        typer.echo(f"serving {dataset} at {url} (Ctrl-C stops; the report is built meanwhile)", err=True)

    try:
        war.serve(dataset, host=host, port=port, name=dataset, ready=ready,
                  progress=lambda n, total: tick(n, total=total), built=end)
    finally:
        end()
