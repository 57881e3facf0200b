"""Golden playthroughs: for every variant of a family, a few seeded games as readable text,
checked in under tests/golden/ for war's own families (or the folder a family's declaration
names, beside it: Family.golden) and compared by a test. After a deliberate change to an engine
or to replay's text, rewrite them and read the diff:

    python -m pipeline.golden table steal arneson --out tests/golden     # war's own (make golden)
    python -m pipeline.golden mine --out war_mine/golden                 # a plugin's, in its project

The command writes only the families it is given, only into the folder it is given; without
arguments it prints its usage and writes nothing.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from .engines.game import policy_specs
from .errors import WarError, storage_error
from .jobs.replay import build_replay, render_text
from .log.shard import play_range
from .model.families import beside, family_named, no_family, registry
from .model.rules import build_rules
from .model.schema import RULES_ID_VERSION, RuleSetEntry
from .storage.files import atomic_write_bytes

SEED = 2024
CANDIDATES = 200
GAMES = 3
OWN = Path("tests") / "golden"  # war's own families' golden files, in this checkout


def regenerate_command(variant: str) -> str:
    """The command that rewrites a variant's golden file: its family, into its folder (for a
    plugin, said from its project's folder, where its top-level package is)."""
    family = registry().family(variant)
    folder = OWN.as_posix()
    if family.golden:
        top = importlib.import_module(family.module.partition(".")[0])
        root = Path(top.__file__).resolve().parent.parent if getattr(top, "__file__", None) else None
        path = beside(family, family.golden)
        folder = path.relative_to(root).as_posix() if root is not None and path.is_relative_to(root) else family.golden
    return f"python -m pipeline.golden {family.name} --out {folder}"


def golden_text(variant: str) -> str:
    """The three shortest decided games among the first 200 of seed 2024, under the variant's
    default rules, rendered as `war replay` shows them."""
    rules = build_rules(variant)
    policies = policy_specs(rules)
    entry = RuleSetEntry(ordinal=0, rules_id=rules.rules_id, rules_id_version=RULES_ID_VERSION, rules=rules, seed=SEED,
                         policies=list(policies),
                         games=CANDIDATES, shard_size=CANDIDATES)
    ids, logs, records = play_range(rules, 0, SEED, 0, CANDIDATES, policies=policies)
    order = sorted(range(CANDIDATES), key=lambda i: (records[i]["outcome"] != "win", records[i]["battles"], i))
    parts = [f"# Golden playthroughs of {variant}: the {GAMES} shortest decided games among the first "
             f"{CANDIDATES} of seed {SEED}.\n# Regenerate with: {regenerate_command(variant)}\n"]
    for i in sorted(order[:GAMES]):
        parts.append(render_text(build_replay(entry, records[i], logs[i])) + "\n")
    return "\n".join(parts)


def golden_dir(variant: str | None = None) -> Path:
    """The folder of a variant's golden playthroughs: the one its family names beside its
    declaration, else (and for no variant) tests/golden of this checkout."""
    family = registry().family(variant) if variant is not None else None
    if family is not None and family.golden:
        return beside(family, family.golden)
    return Path(__file__).resolve().parent.parent / OWN


def write(families: list[str], folder: Path) -> list[Path]:
    """Every variant's golden file of each of `families` (by name), into `folder`."""
    written = []
    for family in families:
        for variant in (v.name for v in family_named(family).variants):
            path = Path(folder) / f"{variant}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, golden_text(variant).encode("utf-8"))  # whole or as it was
            written.append(path)
    return written


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage and message
        self.exit(2, f"error: {message}; see python -m pipeline.golden --help\n")


def _parser() -> argparse.ArgumentParser:
    reg = registry()
    own = " ".join(name for name in reg.families if name in reg.built_in)  # war's own families, in its order
    p = _Parser(prog="python -m pipeline.golden",
                description="Write the golden playthroughs of the families given (every variant of each: "
                            f"VARIANT.txt) into FOLDER. war's own: python -m pipeline.golden {own} "
                            f"--out {OWN.as_posix()} (make golden).")
    p.add_argument("families", nargs="+", metavar="FAMILY", help="a family's name (war variants --json: `family`)")
    p.add_argument("--out", required=True, action="append", metavar="FOLDER",
                   help="the folder the files are written into")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not argv:
        parser.print_usage(sys.stderr)
        sys.stderr.write("error: give the families and --out FOLDER; nothing was written\n")
        return 2
    for i, arg in enumerate(argv):  # `--out --help` is a folder named like a flag, refused as such
        folder = arg.partition("=")[2] if arg.startswith("--out=") else (
            argv[i + 1] if arg == "--out" and i + 1 < len(argv) else None)
        if folder is not None and folder.startswith("-"):
            sys.stderr.write(f"error: --out {folder!r} looks like a flag, not a folder; "
                             f"for a folder of that name give ./{folder}\n")
            return 2
    args = parser.parse_args(argv)
    known = registry().families
    for i, name in enumerate(args.families):
        if name not in known:
            parser.error(no_family(name))
        if name in args.families[:i]:
            parser.error(f"family {name!r} is given twice")
    if len(args.out) > 1:  # the last would win, silently: the files of one family in the folder of another
        parser.error(f"--out is given {len(args.out)} times ({', '.join(map(repr, args.out))}); give one folder")
    args.out = args.out[0]
    if not args.out:  # Path("") is the current folder: a folder is given by its path, `.` included
        parser.error("--out '' names no folder; for the current folder give --out .")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {args.out!r} is a file, not a folder")
    try:
        for path in write(args.families, out):
            print(f"wrote {path}")
    except OSError as err:  # the folder's fault (exit 2), or the storage's: a full disk (exit 1)
        failed = storage_error(err, args.out, "write into")
        sys.stderr.write(f"error: {failed}\n")
        return failed.exit_code
    except WarError as err:  # a family's engine or policy that fails as its games are played: one line
        sys.stderr.write(f"error: {err}\n")
        return err.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
