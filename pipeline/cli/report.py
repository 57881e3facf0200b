"""`war report`: the dataset's statistics as one self-contained HTML page, or its charts as files."""

from __future__ import annotations

from pathlib import Path

import typer

import pipeline as war

from .app import app, choices, progress, say_event_copies


ReportFormat = choices("ReportFormat", ("html", "svg", "png"))


@app.command()
def report(
    dataset: str = typer.Argument(..., metavar="DATASET", help="Dataset folder (or file:// URI)."),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="PATH",
                                       help="The HTML file (default report.html), or the folder for --format svg/png."),
    fmt: ReportFormat = typer.Option(ReportFormat.html, "--format", "-f", metavar="FORMAT",
                                     help="html: one page; svg or png: every chart as a file in --output."),
    games: int = typer.Option(3, "--games", metavar="N", help="Games worth a look: how many of each kind per rule set."),
    game_pages: bool = typer.Option(True, "--game-pages/--no-game-pages",
                                    help="Write the replay page of every linked game beside the report."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace existing output files."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Charts and tables of the dataset's statistics, every number a named query's result."""
    if not 0 <= games <= 100:
        raise war.ReportError(f"--games must be 0 to 100, got {games}")
    if fmt is ReportFormat.html:
        target = output if output is not None else Path("report.html")
        say_event_copies()
        with progress(0, "report", quiet) as tick:
            written = war.write_report(dataset, target, dataset=dataset, game_pages=game_pages,
                                       games_per_kind=games, overwrite=overwrite,
                                       progress=lambda n, total: tick(n, total=total), draw_beside=True)
        pages = len(written) - 1
        extra = f" and {pages} replay pages in {written[1].parent}" if pages else ""
        typer.echo(f"wrote {target} ({written[0].stat().st_size / 1e6:.1f} MB){extra}")
        return
    if output is None:
        raise war.ReportError(f"--format {fmt.value} needs --output FOLDER for the chart files")
    with progress(0, "charts", quiet) as tick:
        paths = war.write_charts(dataset, output, fmt.value, overwrite=overwrite,
                                 progress=lambda n, total: tick(n, total=total))
    typer.echo(f"wrote {len(paths)} charts to {output}")
