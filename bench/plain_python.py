"""The plain-Python path: games a second of CPU of `war generate` and `war validate` played by
the reference engines (WAR_ENGINE=reference), the path a plugin family without a compiled engine
takes, full event log, one worker pinned to one core (issue 52, item 4).

    python bench/plain_python.py [--games N] [--runs R] [--only NAME] [--source DIR] [--yardstick G]

Each row is a variant and its options; its games scale with `--games` [2,000] (the slower
families play fewer). Each command runs `--runs` [3] times, the rows taking turns within a run; the figure is the median run's
games per CPU second (user + system of the process, start-up included, as bench/measure.py
counts it; `--best` for the best run's), printed with the load average before and after, for a
loaded machine's CPU second is a slower one. Beside it, the same less the start-up: the command's CPU for one game (imports,
the registry, the encoder's machine code loaded: about a second) taken off, so the figure is
what each further game costs, the rate a long run approaches. The example plugins (examples/: Slap War, Trump War) are installed for the run as
tests/conftest.py installs Slap War (their packages and entry points on PYTHONPATH, nothing of
war changed); a checkout without one leaves its row out. `--yardstick G` runs G games of the
idiomatic simulator (bench/idiomatic.py, SplitMix64 deals) at each run's start on the same core,
and gives each row's rate less start-up as a share of the simulator's in the same run, and at
the simulator's speed when issue 52 was filed; the last column is each row's time a game against
the first row's (Classic War), run by run. `--source DIR` times another checkout of war (its `pipeline` and its example imported
first): the figures before a change, from `git archive COMMIT | tar -x -C DIR`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import tomllib
from pathlib import Path

from measure import SIMULATOR_AT_FILING, fresh, measure, one_core, print_table, war

ROOT = Path(__file__).resolve().parent.parent

# (name, variant, options, share of --games)
ROWS = [
    ("classic", "classic", (), 1.0),
    ("classic winner_first", "classic", ("pickup=winner_first",), 1.0),
    ("slap (plugin)", "slap", (), 0.5),
    ("trump (plugin)", "trump", (), 0.5),
    ("steal", "steal", (), 0.5),
    ("arneson", "arneson", (), 0.25),
]


def example_site(into: Path, root: Path = ROOT) -> list[str]:
    """The PYTHONPATH entries that install the example families of the checkout at `root`
    (examples/*, tests/conftest.py's way): each package's folder, and one folder of their
    dist-info (its entry points)."""
    paths = []
    for example in sorted((root / "examples").glob("war-*")):
        project = tomllib.loads((example / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        info = into / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                       f"Version: {project['version']}\n", encoding="utf-8")
        (info / "entry_points.txt").write_text("".join(
            f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items()) + "\n"
            for group, points in project["entry-points"].items()), encoding="utf-8")
        paths.append(str(example))
    return [*paths, str(into)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--best", action="store_true", help="the best run's figure, not the median's")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--yardstick", type=int, default=0, metavar="G",
                        help="G games of bench/idiomatic.py's simulator at each run's start, each row's rate "
                             "given as a share of it")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="war-plain-"))
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work: Path) -> None:
    """Every row's runs, its datasets under `work`; the table printed. The rows take turns within
    each run (and with `--yardstick`, the simulator first), so that a core whose speed moves
    from minute to minute weighs on every row alike, and a row's figures beside the
    simulator's or Classic War's are taken minutes, not a quarter of an hour, apart."""
    source = args.source.resolve() if args.source else None
    paths = ([str(source)] if source else []) + example_site(work / "site", source or ROOT)
    env = dict(os.environ, WAR_ENGINE="reference",
               PYTHONPATH=os.pathsep.join(filter(None, [*paths, os.environ.get("PYTHONPATH")])))
    core = one_core()
    chosen = []
    for name, variant, options, share in ROWS:
        if args.only and not any(o in name for o in args.only):
            continue
        if "plugin" in name and not any(Path(p).name == f"war-{variant}" for p in paths):
            continue
        chosen.append((name, variant, options, max(1, int(args.games * share))))
    runs = {name: {"gen": [], "val": [], "gen_one": [], "val_one": []} for name, *_ in chosen}
    simulator = [sys.executable, str(Path(__file__).resolve().parent / "idiomatic.py"), str(args.yardstick),
                 "1", "--deck", "splitmix"]
    sims: list[float] = []
    loads = [os.getloadavg()[0]]
    for _ in range(args.runs):
        if args.yardstick:
            sims.append(args.yardstick / measure(simulator, core=core, cwd=work).cpu)
        for name, variant, options, games in chosen:
            sets = [a for o in options for a in ("--set", o)]
            for folder, count in ((work / name.replace(" ", "_"), games), (work / (name.replace(" ", "_") + "_one"), 1)):
                fresh(folder)
                cpu = measure(war("generate", "-o", folder, "--variant", variant, *sets, "--games", count,
                                  "--seed", 1, "--workers", 1, "-q"), env=env, core=core, cwd=work).cpu
                # cwd: `python -m` puts the working folder first on the path, ahead of --source's
                checked = measure(war("validate", folder, "--workers", 1, "-q"), env=env, core=core, cwd=work).cpu
                suffix = "_one" if count == 1 else ""
                runs[name]["gen" + suffix].append(cpu)
                runs[name]["val" + suffix].append(checked)
    loads.append(os.getloadavg()[0])
    pick = min if args.best else statistics.median

    def net(name: str, games: int, key: str) -> list[float]:
        """Each run's games per CPU second less start-up (the one-game command's CPU)."""
        return [(games - 1) / max(c - one, 1e-9) for c, one in zip(runs[name][key], runs[name][key + "_one"])]

    rows = []
    first = chosen[0] if chosen else None
    for name, variant, options, games in chosen:
        r = runs[name]
        gen, val, gen_one, val_one = (pick(r[key]) for key in ("gen", "val", "gen_one", "val_one"))
        net_gen, net_val = (games - 1) / max(gen - gen_one, 1e-9), (games - 1) / max(val - val_one, 1e-9)
        row = [name, f"{games:,}", f"{games / gen:,.0f}", f"{net_gen:,.0f}", f"{games / val:,.0f}",
               f"{net_val:,.0f}", f"{gen_one:.2f} / {val_one:.2f}"]
        if args.yardstick:  # each run's rate less start-up over the simulator's of the same run
            shares = [statistics.median(n / s for n, s in zip(net(name, games, key), sims)) for key in ("gen", "val")]
            row.append(" / ".join(f"{x:.3f} ({x * SIMULATOR_AT_FILING:,.0f})" for x in shares))
        if first is not None and name != first[0]:  # each run's time a game against the first row's
            times = [statistics.median(f / n for f, n in zip(net(first[0], first[3], key), net(name, games, key)))
                     for key in ("gen", "val")]
            row.append(" / ".join(f"{t:.2f}x" for t in times))
        elif first is not None:
            row.append("")
        rows.append(row)
        print(f"{name}: generate {games / gen:,.0f} ({net_gen:,.0f} less start-up), validate {games / val:,.0f} "
              f"({net_val:,.0f}) games/s of CPU, {'best' if args.best else 'median'} of {args.runs}; "
              f"each run's generate less start-up {', '.join(f'{n:,.0f}' for n in net(name, games, 'gen'))}",
              file=sys.stderr)
    if sims:
        print(f"simulator: {', '.join(f'{s:,.0f}' for s in sims)} games/s of CPU ({SIMULATOR_AT_FILING:,} when "
              f"issue 52 was filed); load average {loads[0]:.1f} - {loads[1]:.1f}", file=sys.stderr)
    header = ["variant", "games", "generate, games/s of CPU", "less start-up", "validate, games/s of CPU",
              "less start-up", "start-up s (generate / validate)"]
    if args.yardstick:
        header.append("less start-up, of the simulator (at its filing speed), generate / validate")
    header.append(f"time a game against {first[0] if first else '-'}, generate / validate")
    print_table(header, rows)


if __name__ == "__main__":
    main()
