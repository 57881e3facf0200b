"""The `war` application itself (pipeline/cli/app.py, with `war variants` of pipeline/cli/info.py;
README.md): variants as text and JSON, what it says of Multiplayer War's players; the error
boundary `main` (exit 0 on success, usage errors on one line), --version, plain help with its
defaults, `war` alone printing the help, and the `war` process keeping numba from importing
scipy."""

from __future__ import annotations

import json

import pytest

from clikit import assert_one_line_error, ok, run_main


# ---------------------------------------------------------------- variants


def test_variants_lists_classic_with_defaults():
    out = ok("variants").stdout
    assert "classic" in out
    assert "war_down=3" in out and "players=2" in out and "pickup=shuffled" in out


def test_variants_json():
    data = json.loads(ok("variants", "--json").stdout)
    by_name = {v["variant"]: v for v in data}
    assert "classic" in by_name
    defaults = by_name["classic"]["defaults"]
    assert defaults["players"] == 2
    assert defaults["war_down"] == 3
    assert defaults["pickup"] == "shuffled"


# ---------------------------------------------------------------- the error boundary, usage, help


def test_main_success_exit_zero(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "variants")
    assert code == 0 and "classic" in out and err == ""


def test_version(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "--version")
    assert code == 0 and out.startswith("war ") and len(out.strip().split()) == 2


@pytest.mark.parametrize("args, mentions", [
    (("generate", "--bogus"), "no such option: --bogus"),
    (("frob",), "no such command 'frob'"),
    (("replay",), "missing argument"),
    (("generate", "--games", "many"), "invalid value for --games: 'many'"),
])
def test_usage_errors_are_one_line(monkeypatch, capsys, args, mentions):
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert_one_line_error(code, out, err, mentions=mentions)
    assert "╭" not in err and "Usage:" not in err


@pytest.mark.parametrize("command", ["generate", "demo", "validate", "variants"])
def test_help_is_plain_and_shows_defaults(command):
    text = ok(command, "--help").stdout
    assert "<bool>" not in text and "╭" not in text
    assert " ." not in text.replace("..", "")  # no "Games per rule set ."
    if command == "generate":
        flat = " ".join(text.split())
        for default in ("[default: 1000, or one per deal]", "[default: 0, or the dataset's with --append]",
                        "[default: data/VARIANT-", "[default: 2000, or 20000 with --log games]", "[default: 1]"):
            assert default in flat, default


def test_variants_says_multiplayer_takes_up_to_8_players(tmp_path):
    """What `war variants` says is what the rules accept (docs/rules.md 1.4, 3.1)."""
    line = next(line for line in ok("variants").stdout.splitlines() if line.startswith("multiplayer"))
    assert "up to 8" in line and "3 or 4" not in line
    ok("generate", "-v", "multiplayer", "--set", "players=8", "--games", 1, "--out", tmp_path / "eight", "-q")


def test_war_alone_prints_the_help(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys)
    assert code == 0 and out.startswith("Usage: war ") and "generate" in out and err == ""


def test_the_war_process_keeps_numba_from_importing_scipy():
    """numba looks for scipy's linear algebra when it starts (0.2 s or more where scipy is
    installed); the `war` process, which has none, blocks that import. A library caller keeps
    its scipy."""
    import subprocess
    import sys

    code = ("import sys, pipeline.cli; from pipeline.log.warm import warm; warm(); "
            "print(sys.modules.get('scipy.linalg', 'absent'))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() in (["None"], ["absent"])
    code = "import sys, pipeline.log.shard; print('scipy.linalg' in sys.modules and sys.modules['scipy.linalg'] is None)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False"]


def test_a_war_command_does_not_import_pandas_and_pandas_still_works(tmp_path):
    """pyarrow imports pandas (0.2 s or more) the first time it makes an array, to ask whether
    it was handed pandas objects; a war command tells it pandas is absent. pandas itself still
    imports afterwards, and pyarrow's to_pandas() still works; `--help` imports no pyarrow."""
    import subprocess
    import sys

    out = tmp_path / "d"
    code = ("import sys; from pipeline.cli import main\n"
            f"try: main(['generate', '-o', {str(out)!r}, '--games', '3', '-q'])\n"
            "except SystemExit as e: assert not e.code, e.code\n"
            "print('pandas' in sys.modules)\n"
            "import pyarrow as pa, pandas; print(pa.table({'a': [1, 2]}).to_pandas()['a'].sum())")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert got[-2:] == ["False", "3"]
    code = ("import sys; from pipeline.cli import main\n"
            "try: main(['generate', '--help'])\n"
            "except SystemExit: pass\n"
            "print('pyarrow' in sys.modules, 'pandas' in sys.modules, file=sys.stderr)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stderr.split()[-2:] == ["False", "False"]
