"""Where the time of `war generate` goes, stage by stage, in one process (CPU time):

    python bench/stages.py [GAMES] [OPTION=VALUE ...]    # default 40,000 games, pickup=winner_first

Shards of 2,000 games as generate plays them, a batch of games at a time
(log.batches.compiled_shard): the compiled engine (play_arrays), the compiled encoder of event
rows (ShardBuilder.add), the rest of the Arrow assembly (ShardBuilder.tables), Parquet encoding
without compression, zstd compression (the same write with zstd, less the one without), and the file written with its checksum (write_parquet, less the
in-memory write). The process start, imports, the journal and the manifest are what the whole
command takes beyond these: compare with `war generate` of the same games.

Then, to show what bounds the command: the CPU seconds of `war generate --games 1` (start-up:
imports, loading the compiled engine and encoder, one tiny shard), of the idiomatic simulator
(bench/idiomatic.py --deck splitmix) over as many games, and the ceiling: start-up plus the Parquet stages
alone, what the command would take if the engine, the encoding and Arrow took no time at all.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.engines.compiled.state import Workspace
from pipeline.engines.table.compiled import play_arrays
from pipeline.log.compiled import ShardBuilder, build_tables
from pipeline.log.batches import batch_games
from pipeline.model.rules import build_rules
from pipeline.storage.files import parquet_options, write_parquet

SHARD = 2000
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure import timed_cpu, war  # noqa: E402


def in_memory(table: pa.Table, compression: str, key) -> None:
    """write_parquet's Parquet bytes, in memory, with zstd or with no compression ("none")."""
    options = parquet_options(table.schema, key)
    if compression == "none":
        options.update(compression="none", compression_level=None)
    pq.write_table(table, pa.BufferOutputStream(), **options)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40_000
    options = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a) or {"pickup": "winner_first"}
    rules = build_rules("classic", options)
    build_tables(rules, 0, 0, 10, play_arrays(rules, 1, 0, 10))  # compile / load the cache
    spent = dict.fromkeys(["engine", "encoding", "Arrow", "Parquet", "compression", "file"], 0.0)
    clock = time.process_time
    workspace = Workspace()  # as log.batches keeps one from shard to shard
    # Games played and encoded at a time: the engine's estimate, by which log.batches.compiled_shard
    # sizes a rule set's first batch (it sizes the later ones by the games already played).
    batch = batch_games(rules)
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, games, SHARD):
            stop = min(start + SHARD, games)
            shard = ShardBuilder(rules, 0, start, stop)
            for first in range(start, stop, batch):
                t = clock()
                arrays = play_arrays(rules, 1, first, min(first + batch, stop), workspace=workspace)
                spent["engine"] += clock() - t
                t = clock()
                shard.add(arrays)
                spent["encoding"] += clock() - t
            t = clock()
            tables = shard.tables()
            spent["Arrow"] += clock() - t
            for table, key in zip(tables, (("game_id", "seq"), ("game_id",))):
                t = clock()
                in_memory(table, "none", key)
                plain = clock() - t
                spent["Parquet"] += plain
                t = clock()
                in_memory(table, "zstd", key)
                zstd = clock() - t
                spent["compression"] += zstd - plain
                t = clock()
                write_parquet(table, Path(tmp) / "part.parquet", key)
                spent["file"] += clock() - t - zstd
    total = sum(spent.values())
    print(f"classic {options}, {games:,} games in shards of {SHARD:,}: {total:.2f} s CPU, "
          f"{games / total:,.0f} games/s over these stages")
    print("| stage | CPU s | share | games/s if alone |")
    print("|---|---|---|---|")
    for stage, seconds in spent.items():
        print(f"| {stage} | {seconds:.2f} | {seconds / total:.0%} | {games / seconds:,.0f} |")
    with tempfile.TemporaryDirectory() as tmp:
        sets = [a for o, v in options.items() for a in ("--set", f"{o}={v}")]
        _, start_up, _ = timed_cpu(war("generate", "--games", 1, "--workers", 1, "-q", *sets, "--out", Path(tmp) / "one"))
    _, simulator, _ = timed_cpu([sys.executable, str(HERE / "idiomatic.py"), str(games), "--deck", "splitmix"])
    writing = spent["Parquet"] + spent["compression"] + spent["file"]
    ceiling = start_up + writing
    print(f"start-up (war generate --games 1): {start_up:.2f} s CPU; the idiomatic simulator: {simulator:.2f} s "
          f"CPU for {games:,} games ({games / simulator:,.0f} games/s)")
    print(f"ceiling, start-up + Parquet stages only: {ceiling:.2f} s CPU, {games / ceiling:,.0f} games/s, "
          f"{simulator / ceiling:.2f}x the simulator; these stages with start-up: {start_up + total:.2f} s CPU, "
          f"{simulator / (start_up + total):.2f}x")


if __name__ == "__main__":
    main()
