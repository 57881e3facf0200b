"""`war generate` and `war demo`."""

from __future__ import annotations

import time
from pathlib import Path

import typer

import pipeline as war

from .app import app, choices, command_line, plural, prepare_engine, progress, say_error


LogChoice = choices("LogChoice", ("events", "games", "counts"))


@app.command()
def generate(
    variant: list[str] = typer.Option([], "--variant", "-v", metavar="VARIANT", help="Variant (repeat for several in one dataset)."),
    games: int | None = typer.Option(None, "--games", "-n", metavar="N",
                                     help="Games per rule set, 1 .. 1,000,000,000 [default: 1000, or one per deal]."),
    seed: int | None = typer.Option(None, "--seed", "-s", metavar="SEED",
                                    help="Master seed, 0 .. 2^64-1 [default: 0, or the dataset's with --append]."),
    out: str | None = typer.Option(None, "--out", "-o", metavar="PATH",
                                   help="Dataset folder or URI [default: data/VARIANT-sSEED]."),
    set_: list[str] = typer.Option([], "--set", metavar="OPTION=VALUE", help="A rule option, repeatable, each option once (`war variants`)."),
    rules_file: list[Path] = typer.Option([], "--rules", metavar="FILE", help="A whole rule set in TOML or JSON (repeatable)."),
    deals: Path | None = typer.Option(None, "--deals", metavar="FILE", help="JSON Lines of explicit deals; game i plays line i."),
    from_: str | None = typer.Option(None, "--from", metavar="DATASET", help="Play again the games of DATASET that --where chooses, with their whole log, into --out."),
    where: str | None = typer.Option(None, "--where", metavar="CONDITION", help="With --from: which games, a condition over its games view (battles > 500)."),
    all_deals: bool = typer.Option(False, "--all-deals", help="Play every deal of the deck once: game i plays deal i (up to 10^10 deals; --games N: the first N)."),
    log: LogChoice = typer.Option("events", "--log", metavar="WHAT", help="events: the event log and the games table; games: the games table alone (events are regenerated when asked for); counts (with --all-deals): the games counted by kind, no row a deal (up to 10^13 deals)."),
    deal_range: str | None = typer.Option(None, "--deal-range", metavar="FIRST:STOP", help="With --log counts: count deals FIRST .. STOP-1 only, a slice that `war combine` joins to the others."),
    keep: str | None = typer.Option(None, "--keep", metavar="CONDITION", help="With --log counts: keep the games rows of the deals whose games this condition over the counts chooses (outcome = 'cycle' OR battles > 140), the first 100,000."),
    policy: list[str] = typer.Option([], "--policy", "-p", metavar="SEAT=POLICY", help="SEAT=POLICY for variants with decisions (SEAT * for all seats); see `war policies`."),
    tournament: list[str] = typer.Option([], "--tournament", "-t", metavar="POLICY", help="A policy in a tournament (repeat): every pair plays the same seeds, both seatings."),
    name: list[str] = typer.Option([], "--name", metavar="NAME", help="A name for the rule set of each --variant, in order, shown instead of its options; a rule file gives its own (`name`)."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Processes to generate with, 1 .. 256."),
    shard_size: int | None = typer.Option(None, "--shard-size", metavar="N", show_default=False, help="Games per part file, 1 .. 100,000 [default: 2000, or 20000 with --log games]."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a dataset already in --out."),
    append: bool = typer.Option(False, "--append", help="Add these rule sets to the finished dataset in --out."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run of the same command."),
    discard: bool = typer.Option(False, "--discard", help="Roll back the interrupted run in --out (its files and journal) instead of generating."),
    wait: float = typer.Option(600, "--wait", metavar="SECONDS", help="How long an --append waits for another writer of the dataset, 0 .. 86,400."),
    executor: str = typer.Option("local", "--executor", metavar="NAME", help="local (process pool) or dask."),
    scheduler: str | None = typer.Option(None, "--scheduler", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Generate a dataset of seeded games into Parquet."""
    request = war.generate_request(war.GenerateArgs(
        variants=variant, options=set_, rule_files=rules_file, names=name, games=games, deals=deals,
        all_deals=all_deals, policies=policy, tournament=tournament, log=log.value, source=from_, where=where,
        seed=seed, out=out, overwrite=overwrite, append=append, resume=resume, wait=wait, discard=discard,
        workers=workers, shard_size=shard_size, executor=executor, scheduler=scheduler, deal_range=deal_range,
        keep=keep))
    for warning in request.warnings:
        say_error(f"warning: {warning}")
    if request.discard:
        done = request.run_discard()
        what = "append" if done.append else "run"
        after = "the dataset is as it was before it" if done.append else "war's files of it are gone"
        typer.echo(f"discarded the interrupted {what} in {done.root}: removed {plural(done.files, 'file')}; {after}")
        return
    total = request.games
    prepare_engine(request.compiled_rule_sets, played=[p.rules for p in request.plans])
    done_before = 0

    def resumed(games: int) -> None:
        nonlocal done_before
        done_before = games

    start = time.perf_counter()
    with progress(total, "generating", quiet) as tick:  # quiet: no ticks for the workers to send
        manifest = request.run(None if quiet else tick, command_line(), on_wait=_waiting(request.out),
                               resumed=resumed)
    took = time.perf_counter() - start
    word = "deal" if log.value == "counts" else "game"
    if log.value == "counts":
        size = sum(f.path.startswith("counts/") and _size(request.out / f.path) for f in manifest.files)
        counted = war.counted_deals(request.out, manifest, {p.rules.rules_id for p in request.plans})
        classes = "" if counted == total else (f", the deals of the classes (a deal and its seats' piles swapped) "
                                               f"whose first deal is one of the {total:,} deal numbers walked")
        typer.echo(f"counted {plural(counted, 'deal')} ({plural(len(request.plans), 'rule set')}) into {request.out}"
                   f"{classes}: counts {size / 1e6:.2f} MB; {rate(total, done_before, took, word)}")
        return
    size = request.sizes(manifest)
    typer.echo(f"wrote {plural(total, 'game')} ({plural(len(request.plans), 'rule set')}) to {request.out}: "
               f"games {size['games'] / 1e6:.1f} MB, events {size['events'] / 1e6:.1f} MB"
               f"{' (not stored)' if log.value == 'games' else ''} "
               f"({(size['games'] + size['events']) / total:.0f} bytes a game); "
               f"{rate(total, done_before, took, word)}")


def rate(total: int, done_before: int, took: float, word: str) -> str:
    """The run's time and speed over the games (or deals) it played: a resumed run's shards done
    before are said apart, not counted as played in its time."""
    played = total - done_before
    speed = f", {played / took:,.0f} {word}s/s" if took > 0 else ""
    if not done_before:
        return f"{took:.1f} s{speed}"
    return f"{plural(done_before, word)} done before; {plural(played, word)} played in {took:.1f} s{speed}"


def _size(path) -> int:
    try:
        return path.stat().st_size
    except (OSError, AttributeError):
        return 0


def _waiting(out):
    def say(holder: dict, seconds: float) -> None:
        say_error(f"waiting for the war generate writing {out} (pid {holder.get('pid')} on {holder.get('host')}) "
                  f"to finish, up to {seconds:,.0f} s (--wait)")
    return say


@app.command()
def demo(
    out: str = typer.Option("data/demo", "--out", "-o", metavar="PATH", help="Where to write the demo dataset (a demo's dataset there is replaced; any other refused)."),
    games: int = typer.Option(2000, "--games", "-n", metavar="N", help="Games to generate, 1 .. 1,000,000,000."),
) -> None:
    """The main job on a small default: generate a dataset, replay a game, answer questions."""
    for step in war.demo(out, games):
        if step.kind == "generate":
            typer.echo(f"== {step.command}")
            prepare_engine(step.rule_sets, validation=True)
            start = time.perf_counter()
            with progress(step.games, "generating", False) as tick:
                step.run(tick)
            typer.echo(f"{plural(step.games, 'game')} in {time.perf_counter() - start:.1f} s")
            continue
        typer.echo(f"\n== {step.command}")
        result = step.run()
        if step.kind == "replay":
            typer.echo(war.render_text(result))
        elif step.kind == "query":
            war.write_result(result, "table", None)
        else:
            typer.echo(result.summary())
            if not result.ok:
                raise typer.Exit(1)
    typer.echo("\n== next, try:")
    steps = war.next_commands(out)
    width = max(len(command) for command, _ in steps)
    for command, what in steps:
        typer.echo(f"{command:<{width}}   {what}")
