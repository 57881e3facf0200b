"""What a plugin's author sees of their family (issue 52, items 2 and 3): `war variants
--details` and `war policies --details` show every option's help, values, default and family,
and every policy's help and parameter, from the declarations (Slap War's, installed for the
session by conftest.py, as well as the built-ins'); a rule set generated alone keeps its own name
beside a tournament of its rules; the golden playthrough writer is a small command that takes
its families and folder explicitly and refuses what it cannot mean.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline as war
from clikit import ok, run_main
from pipeline.golden import golden_text
from pipeline.jobs.query import run
from pipeline.jobs.request import GenerateArgs, generate_request
from pipeline.model.names import rule_set_names
from pipeline.model.rules import build_rules
from pipeline.model.schema import RuleSetEntry

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- war variants --details


def _variant(details, name):
    return next(v for v in details if v["variant"] == name)


def test_variant_details_come_from_the_declarations():
    details = war.variant_details()
    assert [v["variant"] for v in details] == [v["variant"] for v in war.describe_variants()]
    slap = _variant(details, "slap")
    assert slap["family"] == "slap"
    options = {o["name"]: o for o in slap["options"]}
    # every option the variant takes, in its order, with its default for this variant
    assert list(options) == list(_variant(war.describe_variants(), "slap")["defaults"])
    order = options["slap_order"]
    assert order["family"] == "slap" and order["default"] == "after_winner"
    assert order["choices"] == ["after_winner", "seat"]
    assert order["help"].startswith("Who may slap a pair first")
    # an option of war's own, and one of Classic War's that Slap War names
    assert options["players"]["family"] == "war"
    assert (options["players"]["minimum"], options["players"]["maximum"]) == (2, 8)
    assert options["war_down"]["family"] == "table" and options["war_down"]["words"] == ["by_rank"]
    assert options["win"]["pattern"]
    (decision,) = slap["decisions"]
    assert decision["name"] == "slap" and decision["default"] == "always"
    policies = {p["name"]: p for p in decision["policies"]}
    assert policies["random"]["randomized"] and not policies["always"]["randomized"]
    assert policies["never"]["help"] == "no pair: the game is Classic War"
    high = policies["high"]["parameter"]
    assert high["name"] == "N" and high["help"].startswith("a rank index")
    assert high["minimum"] == 0 and high["default"] is None
    assert policies["always"]["parameter"] is None
    # a variant's own default, not its option's
    razboi = {o["name"]: o for o in _variant(details, "razboi")["options"]}
    assert razboi["war_down"]["default"] == "by_rank"
    assert _variant(details, "classic")["decisions"] == []


def test_war_variants_details_prints_every_option_and_policy():
    out = ok("variants", "--details").stdout
    assert "Who may slap a pair first" in out                  # a plugin option's help
    assert "after_winner, seat" in out                         # its choices
    assert "Number of seats, 2..8" in out                      # war's own option
    assert "the piles of N cards or more" in out               # a policy's help
    assert "a pile size, e.g. steal:threshold:4" in out        # its parameter
    assert "The Ace above the King" in out
    block = out.split("\nslap ")[1]
    assert "slap_order" in block and "[slap]" in block and "[war]" in block and "[table]" in block
    assert "high:N" in block and "randomized" in block
    # the plain listing is as it was: two lines a variant, no help
    plain = ok("variants").stdout
    assert len(plain.splitlines()) == 2 * len(war.describe_variants())
    assert "Who may slap" not in plain and "slap_order=after_winner" in plain


def test_war_variants_details_as_json():
    out = json.loads(ok("variants", "--details", "--json").stdout)
    assert out == json.loads(json.dumps(war.variant_details()))


def test_war_policies_details():
    out = ok("policies", "--details").stdout
    assert "each pair with probability 1/2" in out and "randomized" in out
    assert "a rank index, 0 for 2s" in out
    assert "the rank hardest to match" in out
    assert "profiles" in out
    assert ok("policies").stdout == "\n".join(war.describe_policies()) + "\n"
    decisions = {d["name"]: d for d in war.policy_details()}
    assert decisions["slap"]["family"] == "slap" and decisions["steal"]["family"] == "steal"
    assert decisions["hand"]["default"] == "random"


def test_details_of_a_bad_flag_is_one_line(monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "variants", "--detail")
    assert code == 2 and "Traceback" not in err


# ---------------------------------------------------------------- a rule set's own name


def _entry(rules, ordinal, policies=(), name=None):
    return RuleSetEntry(ordinal=ordinal, rules_id=rules.rules_id, rules=rules, seed=0, games=1, shard_size=1,
                        policies=list(policies), name=name)


def test_a_rule_set_alone_keeps_its_name_beside_a_tournament_of_its_rules():
    slap = build_rules("slap")
    alone = _entry(slap, 0, ["slap:always", "slap:always"])
    tour = [_entry(slap, 1 + i, pair) for i, pair in enumerate(itertools.permutations(["slap:always", "slap:never"]))]
    assert rule_set_names([alone, *tour]) == {0: "slap", 1: "always vs never", 2: "never vs always"}
    # the tournament first, then the rule set alone: the names already given do not change
    later = [_entry(slap, i, pair) for i, pair in enumerate(itertools.permutations(["slap:always", "slap:never"]))]
    assert rule_set_names([*later, _entry(slap, 2, ["slap:always", "slap:always"])]) == {
        0: "always vs never", 1: "never vs always", 2: "slap"}
    # one rule set alone per rules keeps its name; another alone in another seating is its seating
    other = _entry(slap, 3, ["slap:never", "slap:never"])
    names = rule_set_names([alone, *tour, other])
    assert names[0] == "slap" and names[3] == "never vs never" and len(set(names.values())) == 4
    # a name the user gave stays that rule set's own
    steal = build_rules("steal")
    named = _entry(steal, 0, ["steal:always,top:as_played"] * 2, name="house")
    pair = ["steal:always,top:as_played", "steal:never,top:as_played"]
    seated = [_entry(steal, 1 + i, p) for i, p in enumerate(itertools.permutations(pair))]
    assert rule_set_names([named, *seated]) == {0: "house", 1: "always vs never", 2: "never vs always"}
    # a rule set alone and two tournaments: every name distinct
    short = build_rules("steal", {"war_down": "1"})
    more = [_entry(short, 3 + i, p) for i, p in enumerate(itertools.permutations(pair))]
    names = rule_set_names([_entry(steal, 0, ["steal:always,top:as_played"] * 2), *seated, *more])
    assert names == {0: "steal", 1: "steal: always vs never", 2: "steal: never vs always",
                     3: "steal war_down=1: always vs never", 4: "steal war_down=1: never vs always"}


def test_a_tournament_its_user_named_keeps_that_name_beside_its_seatings():
    """`--tournament ... --name duel` appended beside a rule set named `mine` of the same rules:
    its seatings were named `always vs never` and its rules `mine`, so `duel` was in the
    manifest and nowhere a query or the report showed (the note of hostile-j's pass)."""
    slap = build_rules("slap")
    mine = _entry(slap, 0, ["slap:always", "slap:always"], name="mine")
    duel = [_entry(slap, 1 + i, pair, name="duel")
            for i, pair in enumerate(itertools.permutations(["slap:always", "slap:never"]))]
    assert rule_set_names([mine, *duel]) == {0: "mine", 1: "duel: always vs never", 2: "duel: never vs always"}
    assert rule_set_names(duel) == {1: "duel: always vs never", 2: "duel: never vs always"}  # alone, too
    unnamed = [_entry(slap, i, pair) for i, pair in enumerate(itertools.permutations(["slap:always", "slap:never"]))]
    assert rule_set_names(unnamed) == {0: "always vs never", 1: "never vs always"}


def test_the_views_keep_the_name_of_a_rule_set_alone(tmp_path):
    out = tmp_path / "slaps"
    generate_request(GenerateArgs(variants=["slap"], games=4, out=out, seed=5)).run()
    assert run(out, sql="SELECT rule_set FROM rules").column("rule_set").to_pylist() == ["slap"]
    generate_request(GenerateArgs(variants=["slap"], tournament=["always", "never"], games=4, out=out,
                                  append=True)).run()
    rows = run(out, sql="SELECT rule_set, rules_name FROM rules ORDER BY ordinal").to_pylist()
    assert [r["rule_set"] for r in rows] == ["slap", "always vs never", "never vs always"]
    assert {r["rules_name"] for r in rows} == {"slap"}
    counted = run(out, sql="SELECT rule_set, count(*) AS n FROM games GROUP BY ALL ORDER BY min(game_id)").to_pylist()
    assert counted == [{"rule_set": n, "n": 4} for n in ["slap", "always vs never", "never vs always"]]


# ---------------------------------------------------------------- the golden writer


def _golden(*args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pipeline.golden", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _own_golden_files():
    from pipeline.golden import golden_dir
    return {p: p.stat().st_mtime_ns for p in golden_dir().glob("*.txt")}


def test_golden_help_prints_usage_and_writes_nothing(tmp_path):
    before = _own_golden_files()
    done = _golden("--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout and "--out" in done.stdout
    assert list(tmp_path.iterdir()) == []
    assert _own_golden_files() == before


def test_golden_without_arguments_prints_usage_and_fails(tmp_path):
    before = _own_golden_files()
    done = _golden(cwd=tmp_path)
    assert done.returncode != 0
    assert "usage:" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
    assert _own_golden_files() == before


@pytest.mark.parametrize("args", [["slap", "--out", "--help"], ["slap", "--out=-x"], ["slap", "--out", "-"]])
def test_golden_refuses_a_folder_that_looks_like_a_flag(tmp_path, args):
    done = _golden(*args, cwd=tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "flag" in lines[0], done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, said", [(["nosuch", "--out", "g"], "nosuch"),
                                        (["slap"], "--out"),
                                        (["slap", "--out", "g", "--bogus"], "--bogus"),
                                        (["slap", "slap", "--out", "g"], "twice"),
                                        (["slap", "--out", "a", "--out=b"], "--out is given 2 times ('a', 'b')")])
def test_golden_bad_arguments_are_one_line(tmp_path, args, said):
    done = _golden(*args, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and said in lines[0], done.stderr
    assert list(tmp_path.iterdir()) == []


def test_golden_writes_one_family_into_the_folder_given(tmp_path):
    done = _golden("slap", "--out", "g", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == ["slap.txt"]
    assert (tmp_path / "g" / "slap.txt").read_text(encoding="utf-8") == golden_text("slap")
    assert "wrote" in done.stdout


def test_the_command_in_a_golden_file_is_the_one_that_writes_it():
    """Each golden file says how to regenerate it, and that command is the one make golden runs."""
    assert "# Regenerate with: python -m pipeline.golden table --out tests/golden\n" in golden_text("classic")
    assert "# Regenerate with: python -m pipeline.golden arneson --out tests/golden\n" in golden_text("arneson")
    assert "# Regenerate with: python -m pipeline.golden slap --out war_slap/golden\n" in golden_text("slap")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\tpython -m pipeline.golden table steal arneson --out tests/golden\n" in makefile
    for doc in ("README.md", "docs/plugins.md", "docs/architecture.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert "`python -m pipeline.golden`" not in text, doc  # the bare command no longer writes anything
