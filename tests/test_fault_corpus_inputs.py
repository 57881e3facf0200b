"""The fault corpus, round two (issue 35): hostile input files and paths. Each case ends in one
line `error: ...` naming what is at fault and a non-zero exit, never a traceback or a hang, and
changes nothing that was there: JSON and TOML nested deeper than a reader goes, numbers past
what the files store, FIFOs where files belong, folders whose names are glob patterns, a valid
JSON Lines deal with U+2028 inside a string (accepted).

Cases that would hang if they regressed (a FIFO) run in a child process with a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from faultkit import one_line, tree, war
from pipeline.jobs.generate import Plan, generate
from pipeline.model.rules import build_rules

DEEP = 5000      # past Python's recursion limit: the parser itself gives up
SHALLOW = 100    # within it, but past war's bound on nesting (32)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def w(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("inputs")
    generate(w / "ds", [Plan(build_rules("classic"), 30)], seed=42, shard_size=10)
    for name, depth in (("deep", DEEP), ("shallow", SHALLOW)):
        (w / f"{name}.json").write_text('{"variant": "classic", "players": ' + nested(depth) + "}", encoding="utf-8")
        (w / f"{name}.toml").write_text('variant = "classic"\nplayers = ' + nested(depth) + "\n", encoding="utf-8")
        (w / f"{name}.jsonl").write_text('{"piles": ' + nested(depth) + ', "set_aside": []}\n', encoding="utf-8")
        copy = w / f"{name}_manifest"
        shutil.copytree(w / "ds", copy)
        manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
        text = json.dumps({**manifest, "master_seed": "SEED"}).replace('"SEED"', nested(depth))
        (copy / "manifest.json").write_text(text, encoding="utf-8")
    (w / "battles.toml").write_text('variant = "classic"\nmax_battles = 1000000000000000000000000000000\n',
                                    encoding="utf-8")
    (w / "battles.json").write_text('{"variant": "classic", "max_battles": 1e30}', encoding="utf-8")
    for field, value in (("games", 10**30), ("first_game", -1), ("rows", 2**70)):
        copy = w / f"huge_{field}"
        shutil.copytree(w / "ds", copy)
        manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
        target = manifest["rule_sets"][0] if field == "games" else manifest["files"][0]
        target[field] = value
        (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return w


CASES = {
    # nesting: deeper than Python parses, and deeper than war's bound
    "rule file JSON nested past the parser": ("generate --rules {w}/deep.json --out {w}/n1", "deep.json"),
    "rule file TOML nested past the parser": ("generate --rules {w}/deep.toml --out {w}/n1", "deep.toml"),
    "rule file JSON nested past the bound": ("generate --rules {w}/shallow.json --out {w}/n1", "nested deeper"),
    "rule file TOML nested past the bound": ("generate --rules {w}/shallow.toml --out {w}/n1", "nested deeper"),
    "deals nested past the parser": ("generate --deals {w}/deep.jsonl --out {w}/n1", "deep.jsonl line 1"),
    "deals nested past the bound": ("generate --deals {w}/shallow.jsonl --out {w}/n1", "nested deeper"),
    "query a manifest nested past the parser": ("query {w}/deep_manifest outcomes", "manifest.json"),
    "validate a manifest nested past the parser": ("validate {w}/deep_manifest", "manifest.json"),
    "replay a manifest nested past the parser": ("replay {w}/deep_manifest 1", "manifest.json"),
    "query a manifest nested deep": ("query {w}/shallow_manifest outcomes", "master_seed"),
    # numbers past what the files store
    "max_battles past int32": ("generate --set max_battles=1000000000000000000000000000000 --out {w}/n1", "max_battles"),
    "max_battles past int32 in TOML": ("generate --rules {w}/battles.toml --out {w}/n1", "max_battles"),
    "max_battles a float in JSON": ("generate --rules {w}/battles.json --out {w}/n1", "max_battles"),
    "war_down past the deck": ("generate --set war_down=99999999 --out {w}/n1", "war_down"),
    "ace_value past the deck": ("generate -v razboi --set ace_value=10000000000000000000000 --out {w}/n1", "ace_value"),
    "wars to win past int32": ("generate --set win=wars:99999999999999 --out {w}/n1", "win"),
    "manifest games past a rule set's": ("query {w}/huge_games outcomes", "games"),
    "manifest first game negative": ("validate {w}/huge_first_game", "first_game"),
    "manifest rows past int64": ("replay {w}/huge_rows 1", "rows"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_corpus(name, w, monkeypatch, capsys):
    args, culprit = CASES[name]
    before = tree(w)
    code, out, err = war(monkeypatch, capsys, *[a.replace("{w}", str(w)) for a in args.split(" ")])
    one_line(code, out, err, 2, culprit)
    assert tree(w) == before
    assert not (w / "n1").exists()


def test_an_error_shows_a_hostile_value_cut_short(w, monkeypatch, capsys):
    """A value in an error message is cut short: a list nested deep or a long string gives a
    short line, not a RecursionError or a screenful."""
    rule = w / "long.json"
    rule.write_text(json.dumps({"variant": "classic", "pickup": "x" * 100_000}), encoding="utf-8")
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", rule, "--out", w / "n1")
    line = one_line(code, out, err, 2, "pickup")
    assert len(line) < 400


def test_a_deal_with_u2028_inside_a_string_is_read(w, tmp_path, monkeypatch, capsys):
    """JSON allows U+2028 (and U+0085) unescaped inside a string; a JSON Lines reader that splits
    at them (str.splitlines) broke such a line in two."""
    deals = tmp_path / "deals.jsonl"
    piles = [[str(c) for c in range(0, 52, 2)], [str(c) for c in range(1, 52, 2)]]
    line = json.dumps({"piles": piles, "set_aside": [], "note": "first\u2028second\u0085third"}, ensure_ascii=False)
    deals.write_text(line + "\n" + line + "\n", encoding="utf-8")
    code, out, err = war(monkeypatch, capsys, "generate", "--deals", deals, "--out", tmp_path / "d", "-q")
    assert code == 0, err
    code, out, err = war(monkeypatch, capsys, "validate", tmp_path / "d")
    assert code == 0, out + err


# ---------------------------------------------------------------- FIFOs where files belong


def war_child(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    """`war ARGS` in a child process that may not take longer than `timeout` (a reader that
    opened a FIFO would block forever)."""
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def fifo_ds(w, tmp_path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    ds = tmp_path / "ds"
    shutil.copytree(w / "ds", ds)
    part = ds / "events" / "variant=classic" / "part-00001.parquet"
    part.unlink()
    os.mkfifo(part)
    return ds


@pytest.mark.parametrize("args,code", [(("query", "{ds}", "outcomes"), 2), (("validate", "{ds}"), 1),
                                       (("replay", "{ds}", "12"), 2)])
def test_a_fifo_in_place_of_a_part_file_is_refused(fifo_ds, args, code):
    done = war_child(*[str(a).replace("{ds}", str(fifo_ds)) for a in args])
    assert done.returncode == code, done.stderr
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "FIFO" in said and "part-00001" in said


@pytest.mark.parametrize("flag", ["--rules", "--deals"])
def test_a_fifo_as_an_input_file_is_refused(tmp_path, flag):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "input.toml"
    os.mkfifo(fifo)
    done = war_child("generate", flag, fifo, "--out", tmp_path / "d", timeout=60)
    assert done.returncode == 2 and "FIFO" in done.stderr and "input.toml" in done.stderr, done.stderr
    assert not (tmp_path / "d").exists()


# ---------------------------------------------------------------- paths are data, not patterns


@pytest.mark.parametrize("folder", ["**", "star*x", "a[b]c", "what?"])
def test_a_dataset_in_a_folder_named_like_a_pattern_reads_its_own_files(tmp_path, folder, monkeypatch, capsys):
    """DuckDB reads every path as a glob pattern: a dataset under `star*x` read the games of
    `starAx` too (27 games instead of 20)."""
    mine = tmp_path / folder / "ds"
    generate(mine, [Plan(build_rules("classic"), 20)], seed=1, shard_size=10)
    for other in ("starAx", "aXbc", "ab", "whatX", "plain"):
        generate(tmp_path / other / "ds", [Plan(build_rules("classic"), 7)], seed=2, shard_size=10)
    code, out, err = war(monkeypatch, capsys, "query", mine, "--sql",
                         "SELECT (SELECT count(*) FROM games), (SELECT count(DISTINCT game_id) FROM events)",
                         "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1] == "20,20"


def test_a_folder_named_variant_above_the_dataset_is_not_its_variant(tmp_path, monkeypatch, capsys):
    """DuckDB takes any `key=value` folder in a path as a partition: a dataset under
    `variant=zz/` had every event's variant read as zz."""
    mine = tmp_path / "variant=zz" / "ds"
    generate(mine, [Plan(build_rules("jokers"), 10), Plan(build_rules("classic"), 10)], seed=1, shard_size=10)
    code, out, err = war(monkeypatch, capsys, "query", mine, "--sql",
                         "SELECT variant, count(DISTINCT game_id) FROM events GROUP BY 1 ORDER BY 1", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1:] == ['"classic",10', '"jokers",10']


# ---------------------------------------------------------------- the compile cache


def test_a_damaged_compile_cache_is_discarded_and_compiled_again(tmp_path):
    """A copy of the package compiles its engine into a cache of its own (war's per-user cache,
    WAR_CACHE_DIR here); some of those files are then cut short: war says so once, compiles them
    again and runs; the next run loads them."""
    package = Path(__file__).resolve().parents[1] / "pipeline"
    copy = tmp_path / "pkg"
    shutil.copytree(package, copy / "pipeline", ignore=shutil.ignore_patterns("*.pyc", "*.nbi", "*.nbc"))
    env = {**os.environ, "PYTHONPATH": str(copy), "WAR_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)

    def generate_in_copy(out: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline.cli", "generate", "--games", "5", "--out",
                               tmp_path / out, "-q"], capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=600)

    first = generate_in_copy("a")
    assert first.returncode == 0, first.stderr
    cached = sorted((tmp_path / "cache").rglob("*.nb[ci]"))
    assert cached, "no compile cache was written"
    for path in cached[::3]:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    again = generate_in_copy("b")
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr and "internal error" not in again.stderr
    warnings = [line for line in again.stderr.splitlines() if "damaged" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: "), again.stderr
    third = generate_in_copy("c")
    assert third.returncode == 0 and "damaged" not in third.stderr, third.stderr
