"""A corpus of bad inputs and faults across every command (issue 12): each ends in one line
`error: ...` naming what is at fault (or, for `war validate` finding a problem, a report that
names it), with exit 2 for bad input and 1 for a problem found; never a traceback, never
"internal error"; and nothing that existed before the command is changed.

The cases run in-process through `pipeline.cli.main` against datasets made once for the module.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pathlib
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from clikit import error_lines, run_main
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules
from pipeline.storage import files

GAMES, SHARD = 30, 10


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def damaged(root: Path, name: str, table: str, how: str) -> Path:
    """A copy of the dataset `root` with its second `table` file emptied or cut in half."""
    copy = root.parent / name
    shutil.copytree(root, copy)
    path = next(iter(sorted((copy / table).rglob("part-00001.parquet"))))
    data = path.read_bytes()
    path.write_bytes(b"" if how == "zero" else data[: len(data) // 2])
    return copy


@pytest.fixture(scope="module")
def w(tmp_path_factory) -> Path:
    """The workspace: a dataset, damaged copies, a user's folder, bad rule and deal files."""
    w = tmp_path_factory.mktemp("corpus")
    ds = w / "ds"
    generate(ds, [Plan(build_rules("classic"), GAMES)], seed=42, shard_size=SHARD)
    demo = w / "demo"
    shutil.copytree(ds, demo)
    for table in ("games", "events"):
        for how in ("zero", "cut"):
            damaged(ds, f"{how}_{table}", table, how)
    (w / "bad_manifest").mkdir()
    shutil.copytree(ds / "games", w / "bad_manifest" / "games")
    (w / "bad_manifest" / "manifest.json").write_text("{ not json", encoding="utf-8")
    shutil.copytree(ds, w / "no_manifest")
    (w / "no_manifest" / "manifest.json").unlink()
    shutil.copytree(ds, w / "unfinished")
    (w / "unfinished" / "manifest.json").unlink()
    (w / "unfinished" / ".war").mkdir()
    (w / "unfinished" / ".war" / "plan.json").write_text("{}", encoding="utf-8")
    shutil.copytree(ds, w / "empty")
    manifest = json.loads((ds / "manifest.json").read_text(encoding="utf-8"))
    (w / "empty" / "manifest.json").write_text(json.dumps({**manifest, "rule_sets": [], "files": []}),
                                               encoding="utf-8")
    shutil.rmtree(w / "empty" / "games")
    shutil.rmtree(w / "empty" / "events")
    shutil.copytree(ds, w / "older")  # a dataset an earlier war wrote, with `events/` rows of its own
    (w / "older" / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 2}), encoding="utf-8")
    shutil.copytree(ds, w / "mine")
    (w / "mine" / "NOTES.md").write_text("my notes\n", encoding="utf-8")
    (w / "mine" / "analysis").mkdir()
    (w / "mine" / "analysis" / "plot.py").write_text("print('plot')\n", encoding="utf-8")
    (w / "afile").write_text("not a folder\n", encoding="utf-8")
    (w / "true.json").write_text('{"variant": "classic", "war_down": true}', encoding="utf-8")
    (w / "float.json").write_text('{"variant": "classic", "players": 2.5}', encoding="utf-8")
    (w / "broken.toml").write_text('variant = "classic"\npickup = \n', encoding="utf-8")
    (w / "novariant.toml").write_text('pickup = "table_order"\n', encoding="utf-8")
    (w / "short.jsonl").write_text(json.dumps({"piles": [["AS", "KD"], ["QH"]], "set_aside": []}) + "\n",
                                   encoding="utf-8")
    (w / "notjson.jsonl").write_text("{piles\n", encoding="utf-8")
    # a key twice: json.loads kept the last, and the deal played was not the one a reader sees first
    (w / "twice.jsonl").write_text('{"piles": [[0, 1, 2], [3, 4, 5]], "piles": [[3, 4, 5], [0, 1, 2]]}\n',
                                   encoding="utf-8")
    return w


@dataclass
class Case:
    args: str
    code: int
    culprit: str           # what the message must name (case-insensitive)
    report: bool = False   # war validate: the problem is named in the report on stdout


CASES = {
    # the parser's own errors
    "unknown option": Case("generate --bogus", 2, "--bogus"),
    "unknown command": Case("frob", 2, "frob"),
    "top-level unknown option": Case("--bogus", 2, "--bogus"),
    "option without value": Case("generate --out", 2, "--out"),
    "games not a number": Case("generate --games x --out {w}/n1", 2, "--games"),
    "seed not a number": Case("generate --seed 1.5 --out {w}/n1", 2, "--seed"),
    "extra argument": Case("variants extra", 2, "extra"),
    "replay without game": Case("replay {w}/ds", 2, "game"),
    "replay game not a number": Case("replay {w}/ds abc", 2, "abc"),
    "validate without dataset": Case("validate", 2, "dataset"),
    "policies bogus option": Case("policies --bogus", 2, "--bogus"),
    # generate: every argument checked before any work
    "no games": Case("generate --games 0 --out {w}/n1", 2, "--games"),
    "negative games": Case("generate --games -5 --out {w}/n1", 2, "--games"),
    "absurd games": Case("generate --games 1000000000000 --out {w}/n1", 2, "1,000,000,000"),
    "negative seed": Case("generate --seed -1 --out {w}/n1", 2, "--seed"),
    "seed past 2^64": Case("generate --seed 18446744073709551616 --out {w}/n1", 2, "--seed"),
    "no workers": Case("generate --workers 0 --out {w}/n1", 2, "--workers"),
    "absurd workers": Case("generate --workers 100000 --out {w}/n1", 2, "--workers"),
    "no shard size": Case("generate --shard-size 0 --out {w}/n1", 2, "--shard-size"),
    "absurd shard size": Case("generate --shard-size 100000000 --out {w}/n1", 2, "--shard-size"),
    "too many part files": Case("generate --games 1000000000 --shard-size 1 --out {w}/n1", 2, "--shard-size"),
    "deck past the card codes": Case("generate --set ranks=1000 --set suits=33 --out {w}/n1", 2, "32,768"),
    "bad option value": Case("generate --set pickup=sideways --out {w}/n1", 2, "pickup"),
    "option twice": Case("generate --set pickup=pooled --set pickup=shuffled --out {w}/n1", 2, "pickup twice"),
    "unknown rule option": Case("generate --set colour=red --out {w}/n1", 2, "colour"),
    "fixed option": Case("generate -v arneson --set hand_size=4 --out {w}/n1", 2, "hand_size"),
    "negative war_down": Case("generate --set war_down=-1 --out {w}/n1", 2, "war_down"),
    "too many players": Case("generate --set players=9 --out {w}/n1", 2, "players"),
    "option without value in --set": Case("generate --set pickup --out {w}/n1", 2, "--set"),
    "unknown variant": Case("generate -v snap --out {w}/n1", 2, "snap"),
    "same variant twice": Case("generate -v classic -v classic --out {w}/n1", 2, "twice"),
    "boolean in a rule file": Case("generate --rules {w}/true.json --out {w}/n1", 2, "war_down"),
    "fraction in a rule file": Case("generate --rules {w}/float.json --out {w}/n1", 2, "players"),
    "rule file not TOML": Case("generate --rules {w}/broken.toml --out {w}/n1", 2, "broken.toml"),
    "rule file without variant": Case("generate --rules {w}/novariant.toml --out {w}/n1", 2, "variant"),
    "missing rule file": Case("generate --rules {w}/missing.toml --out {w}/n1", 2, "missing.toml"),
    "deal not a deck": Case("generate --deals {w}/short.jsonl --out {w}/n1", 2, "short.jsonl"),
    "deals not JSON": Case("generate --deals {w}/notjson.jsonl --out {w}/n1", 2, "notjson.jsonl"),
    "deals with a key twice": Case("generate --set ranks=3 --set suits=2 --deals {w}/twice.jsonl --out {w}/n2", 2,
                                   "twice.jsonl line 1: key 'piles' given twice"),
    "missing deals": Case("generate --deals {w}/nodeals.jsonl --out {w}/n1", 2, "nodeals.jsonl"),
    "unknown executor": Case("generate --executor threads --out {w}/n1", 2, "--executor"),
    "dask without scheduler": Case("generate --executor dask --out {w}/n1", 2, "--scheduler"),
    "policy for a variant without decisions": Case("generate --policy 0=greedy --out {w}/n1", 2, "polic"),
    "tournament of one": Case("generate -v steal --tournament greedy --out {w}/n1", 2, "--tournament"),
    "occupied folder": Case("generate --games 5 --out {w}/ds", 2, "--overwrite"),
    "overwrite a user's files": Case("generate --games 5 --out {w}/mine --overwrite", 2, "NOTES.md"),
    "out is a file": Case("generate --games 5 --out {w}/afile", 2, "afile"),
    "out under a file": Case("generate --games 5 --out {w}/afile/sub", 2, "afile"),
    "resume a finished dataset": Case("generate --games 5 --out {w}/ds --resume", 2, "nothing to resume"),
    "resume nothing": Case("generate --games 5 --out {w}/n1 --resume", 2, "nothing to resume"),
    "unfinished without resume": Case("generate --games 5 --out {w}/unfinished", 2, "--resume"),
    "append to nothing": Case("generate --games 5 --out {w}/n1 --append", 2, "n1"),
    "append without out": Case("generate --games 5 --append", 2, "--out"),
    "append and overwrite": Case("generate --games 5 --out {w}/ds --append --overwrite", 2, "--append"),
    "resume and overwrite": Case("generate --games 5 --out {w}/ds --resume --overwrite", 2, "--resume"),
    "append with another seed": Case("generate -v jokers --games 5 --seed 7 --out {w}/ds --append", 2, "--seed"),
    "append a rule set already there": Case("generate --games 5 --out {w}/ds --append", 2, "already"),
    # demo: checked before data is replaced
    "demo without games": Case("demo --games 0 --out {w}/demo", 2, "--games"),
    "demo negative games": Case("demo --games -5 --out {w}/demo", 2, "--games"),
    "demo over a user's files": Case("demo --games 5 --out {w}/mine", 2, "NOTES.md"),
    "demo into a file": Case("demo --games 5 --out {w}/afile", 2, "afile"),
    # validate
    "validate nothing": Case("validate {w}/nowhere", 2, "nowhere"),
    "validate a file": Case("validate {w}/afile", 2, "afile"),
    "validate no workers": Case("validate {w}/ds --workers 0", 2, "--workers"),
    "validate negative show": Case("validate {w}/ds --show -1", 2, "--show"),
    "validate a manifest that is not JSON": Case("validate {w}/bad_manifest", 2, "manifest.json"),
    "validate without manifest": Case("validate {w}/no_manifest", 2, "manifest.json"),
    "validate unfinished": Case("validate {w}/unfinished", 2, "--resume"),
    "validate empty games file": Case("validate {w}/zero_games", 1, "games/variant=classic/part-00001", True),
    "validate cut games file": Case("validate {w}/cut_games", 1, "games/variant=classic/part-00001", True),
    "validate empty events file": Case("validate {w}/zero_events", 1, "events/variant=classic/part-00001", True),
    "validate cut events file": Case("validate {w}/cut_events", 1, "events/variant=classic/part-00001", True),
    "validate an empty dataset": Case("validate {w}/empty", 1, "no games", True),
    "validate an older schema": Case("validate {w}/older", 2, "schema version 2; this war reads version"),
    # replay
    "replay unknown game": Case("replay {w}/ds 99999", 2, "99999"),
    "replay output into a folder": Case("replay {w}/ds 1 --output {w}/mine", 2, "is a folder"),
    "replay negative game": Case("replay {w}/ds -- -1", 2, "-1"),
    "replay nothing": Case("replay {w}/nowhere 1", 2, "nowhere"),
    "replay empty games file": Case("replay {w}/zero_games 12", 2, "part-00001"),
    "replay cut events file": Case("replay {w}/cut_events 12", 2, "part-00001"),
    "replay empty events file": Case("replay {w}/zero_events 12", 2, "part-00001"),
    "replay unfinished": Case("replay {w}/unfinished 1", 2, "--resume"),
    "replay an older schema": Case("replay {w}/older 1", 2, "generate the dataset again"),
    # query
    "query unknown name": Case("query {w}/ds nosuch", 2, "nosuch"),
    "query bad SQL": Case("query {w}/ds --sql SELEC", 2, "SELEC"),
    "query unknown param": Case("query {w}/ds outcomes --param nope=1", 2, "nope"),
    "query parquet without output": Case("query {w}/ds outcomes --format parquet", 2, "--output"),
    "query unknown format": Case("query {w}/ds outcomes --format xml", 2, "xml"),
    "query output into a folder": Case("query {w}/ds outcomes --format csv --output {w}/mine", 2, "is a folder"),
    "query nothing": Case("query {w}/nowhere outcomes", 2, "nowhere"),
    "query a manifest that is not JSON": Case("query {w}/bad_manifest outcomes", 2, "manifest.json"),
    "query an older schema": Case("query {w}/older --sql SELECT count(*) FROM events", 2, "schema version 2"),
    "query empty games file": Case("query {w}/zero_games outcomes", 2, "part-00001"),
    "query cut games file": Case("query {w}/cut_games outcomes", 2, "part-00001"),
    "query empty events file": Case("query {w}/zero_events war_depth", 2, "part-00001"),
    "query cut events file": Case("query {w}/cut_events war_depth", 2, "part-00001"),
    "query events view over an empty file": Case("query {w}/zero_events --sql SELECT count(*) FROM events", 2,
                                                 "part-00001"),
}


def run(monkeypatch, capsys, args: list[str]) -> tuple[int, str, str]:
    return run_main(monkeypatch, capsys, *args)


def check(code: int, out: str, err: str, case: Case) -> None:
    said = out + err
    assert "Traceback" not in said and "internal error" not in said, said
    assert code == case.code, f"exit {code}, wanted {case.code}\nstdout: {out}\nstderr: {err}"
    if case.report:
        assert case.culprit.lower() in out.lower(), out
        return
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert case.culprit.lower() in lines[0].lower(), lines[0]


@pytest.mark.parametrize("name", list(CASES))
def test_corpus(name, w, monkeypatch, capsys):
    case = CASES[name]
    before = tree(w)
    args = [a.replace("{w}", str(w)) for a in case.args.split(" ")]
    if "--sql" in args:  # the SQL is one argument
        args = args[:args.index("--sql") + 1] + [" ".join(args[args.index("--sql") + 1:])]
    code, out, err = run(monkeypatch, capsys, args)
    check(code, out, err, case)
    after = tree(w)
    assert {k: after.get(k) for k in before} == before, "a file that existed before was changed or removed"
    assert not (w / "n1").exists(), "a refused command left an output folder behind"


def test_the_corpus_is_large():
    assert len(CASES) >= 60


# ---------------------------------------------------------------- faults of the file system


def test_permission_denied_on_out(w, tmp_path, monkeypatch, capsys):
    """An --out war may not write (as root a mode bit does not stop it; a refusal is simulated)."""
    locked = tmp_path / "locked"
    real = pathlib.Path.mkdir

    def refuse(self, *args, **kwargs):
        if str(self).startswith(str(locked)):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "mkdir", refuse)
    code, out, err = run(monkeypatch, capsys, ["generate", "--games", "5", "--out", str(locked / "d"), "-q"])
    check(code, out, err, Case("", 2, "permission denied"))
    assert str(locked) in err
    assert not locked.exists()


@pytest.mark.parametrize("args,said", [
    ("query {ds} --sql SELECT_1 --output /proc/war-output.csv --format csv", "cannot write '/proc/war-output.csv'"),
    ("generate --games 5 --out /proc/war-dataset -q", "cannot create '/proc/war-dataset'"),
    ("report {ds} --format svg --output /proc/war-charts", "cannot create '/proc/war-charts'"),
])
def test_paths_that_cannot_be_made_are_named(args, said, w, monkeypatch, capsys):
    """A file or folder that cannot be created where the user said (Linux's /proc takes none):
    one line naming it, with what war tried to do, never the hidden name a file is written
    under first."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc here")
    argv = [a.replace("{ds}", str(w / "ds")).replace("SELECT_1", "SELECT 1") for a in args.split(" ")]
    code, out, err = run(monkeypatch, capsys, argv)
    check(code, out, err, Case("", 2, said))
    assert ".tmp" not in err


def test_disk_full_while_writing(w, tmp_path, monkeypatch, capsys):
    """A full disk mid-run: one line naming the file, exit 1, and how to finish the run; the
    journal lets --resume finish it, giving the bytes of an uninterrupted run."""
    out_dir = tmp_path / "full"
    calls = []

    def full(real):
        """A flush that finds the disk full on the fifth file handed over: the plan (fsynced),
        shard 0's events, games and record, then shard 1's events (handed to the disk unwaited)."""
        def flush(fd):
            calls.append(fd)
            if len(calls) == 5:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(fd)
        return flush

    monkeypatch.setattr(os, "fsync", full(os.fsync))
    monkeypatch.setattr(files, "start_writeback", full(files.start_writeback))
    args = ["generate", "--games", str(GAMES), "--shard-size", str(SHARD), "--seed", "42", "--out", str(out_dir), "-q"]
    code, out, err = run(monkeypatch, capsys, args)
    check(code, out, err, Case("", 1, "no space left on device"))
    assert len(calls) == 5
    assert "events/variant=classic/part-00001.parquet" in err and f"war {' '.join(args)} --resume" in err
    assert not (out_dir / "manifest.json").exists()
    assert not [p for p in out_dir.rglob("*") if p.name.endswith(".tmp")]
    monkeypatch.undo()
    code, out, err = run(monkeypatch, capsys, args + ["--resume"])
    assert code == 0, err
    assert tree(out_dir) == tree(w / "ds")


def test_disk_full_on_a_real_small_file_system(tmp_path, monkeypatch, capsys):
    """The same on a 64 KB tmpfs, where mounting one is allowed (as root on Linux)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0 or \
            os.system(f"mount -t tmpfs -o size=64k tmpfs {mnt} 2>/dev/null") != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        code, out, err = run(monkeypatch, capsys, ["generate", "--games", "300", "--shard-size", "100",
                                                   "--out", str(mnt / "d"), "-q"])
        check(code, out, err, Case("", 1, "no space left on device"))
        assert "--resume" in err
    finally:
        os.system(f"umount {mnt}")


def test_a_read_only_file_system(tmp_path, monkeypatch, capsys):
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0 or \
            os.system(f"mount -t tmpfs -o ro,size=64k tmpfs {mnt} 2>/dev/null") != 0:
        pytest.skip("cannot mount a read-only tmpfs here")
    try:
        code, out, err = run(monkeypatch, capsys, ["generate", "--games", "5", "--out", str(mnt / "d"), "-q"])
        check(code, out, err, Case("", 2, "read-only file system"))
        assert str(mnt / "d") in err
    finally:
        os.system(f"umount {mnt}")
