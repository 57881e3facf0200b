"""Which policies the players of Steal War and Arneson's War may follow, and how a seat gets one
(docs/decisions.md rulings 11-19, rules 6 and 7, pipeline/engines/policies.py): the registry that
`war policies` lists; parsing a seat's policy (profiles, `kind:name`, bare names, parameters,
the canonical spec, one-line errors); the seats' policies in a rule set, a plan and the manifest,
and none for a variant without decisions; `war generate --policy`; and `war generate
--tournament`, every ordered pair of policies on the same seeds, validated, with its errors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app, main
from pipeline.storage.dataset import MANIFEST
from pipeline.errors import RulesError
from pipeline.engines.game import NoChooser, chooser_for, policy_specs, resolve_policies
from pipeline.jobs.generate import Plan
from pipeline.engines.policies import DEFAULTS, KINDS, PROFILES, parse_policy, parse_seating, seat_policies
from pipeline.engines.steal.policies import StealView, top_protect
from pipeline.model.rng import game_seed
from pipeline.model.rules import build_rules
from pipeline.jobs.validate import validate
from clikit import error_lines
from rulekit import card, games_rows

STEAL_KINDS = ("steal", "top")
HAND_KINDS = ("hand",)


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def ok(*args):
    result = invoke(*args)
    assert result.exit_code == 0, f"war {' '.join(map(str, args))} -> {result.exit_code}\n" \
                                  f"stdout: {result.stdout}\nstderr: {result.stderr}"
    return result


def run_main(monkeypatch, capsys, *args) -> tuple[int, str, str]:
    """`war ARGS` through pipeline.cli.main (the one-line error boundary)."""
    monkeypatch.setattr(sys, "argv", ["war", *map(str, args)])
    capsys.readouterr()
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, mentions: str) -> None:
    assert code == 2, err
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err
    assert mentions.lower() in lines[0].lower(), lines[0]


def rules_error(text: str, kinds=STEAL_KINDS) -> str:
    with pytest.raises(RulesError) as info:
        parse_policy(text, kinds)
    message = str(info.value)
    assert "\n" not in message and message, message
    return message


# =============================================================================================
# 1. Registry and parsing
# =============================================================================================

def test_war_policies_lists_every_kind_and_policy():
    out = ok("policies").stdout
    lines = out.splitlines()
    for kind, names in KINDS.items():
        line = next((ln for ln in lines if ln.startswith(f"{kind}: ") and "(default" in ln), None)
        assert line is not None, out
        for name in names:
            assert name in line, (name, line)
        assert f"(default {DEFAULTS[kind]})" in line
    assert "threshold:N" in out  # the parameter is shown
    profiles = next(ln for ln in lines if ln.startswith("profiles:"))
    for name in PROFILES:
        assert name in profiles
    assert "steal: decides steal, top" in out
    assert "arneson: decides hand" in out
    assert "classic" not in out  # a variant without decisions is not listed


@pytest.mark.parametrize("text,kinds,spec", [
    ("greedy", STEAL_KINDS, "steal:always,top:highest"),
    ("cautious", STEAL_KINDS, "steal:never,top:protect"),
    ("random", STEAL_KINDS, "steal:random,top:random"),
    ("default", STEAL_KINDS, "steal:always,top:as_played"),
    ("greedy", HAND_KINDS, "hand:highest"),
    ("cautious", HAND_KINDS, "hand:save_high"),
    ("random", HAND_KINDS, "hand:random"),
    ("default", HAND_KINDS, "hand:random"),
    ("  greedy  ", STEAL_KINDS, "steal:always,top:highest"),
])
def test_profiles(text, kinds, spec):
    assert parse_policy(text, kinds).spec == spec


@pytest.mark.parametrize("text,kinds,spec", [
    ("steal:never", STEAL_KINDS, "steal:never,top:as_played"),          # kinds left out: default
    ("top:protect", STEAL_KINDS, "steal:always,top:protect"),
    ("top:protect,steal:never", STEAL_KINDS, "steal:never,top:protect"),  # canonical kind order
    ("hand:lowest", HAND_KINDS, "hand:lowest"),
    ("highest", HAND_KINDS, "hand:highest"),        # bare name owned by one kind
    ("save_high", HAND_KINDS, "hand:save_high"),
    ("highest", STEAL_KINDS, "steal:always,top:highest"),
    ("never", STEAL_KINDS, "steal:never,top:as_played"),
    ("protect, always", STEAL_KINDS, "steal:always,top:protect"),
    ("threshold:4", STEAL_KINDS, "steal:threshold:4,top:as_played"),
    ("steal:threshold:4", STEAL_KINDS, "steal:threshold:4,top:as_played"),
    ("steal:threshold:04,top:random", STEAL_KINDS, "steal:threshold:4,top:random"),
    ("steal:threshold:0", STEAL_KINDS, "steal:threshold:0,top:as_played"),
])
def test_kind_name_and_bare_names(text, kinds, spec):
    policy = parse_policy(text, kinds)
    assert policy.spec == spec
    # the canonical spec parses to itself
    assert parse_policy(policy.spec, kinds) == policy


def test_randomized_flag_and_functions():
    assert parse_policy("random", STEAL_KINDS).randomized
    assert parse_policy("top:random", STEAL_KINDS).randomized
    assert parse_policy("default", HAND_KINDS).randomized        # hand:random is the default
    assert not parse_policy("greedy", STEAL_KINDS).randomized
    assert not parse_policy("threshold:3", STEAL_KINDS).randomized
    fns = parse_policy("steal:threshold:4,top:protect", STEAL_KINDS).functions()
    assert set(fns) == set(STEAL_KINDS) and fns["top"] is top_protect
    view = StealView(0, card(5), 5, ((1, 3), (2, 4)), 10, False)
    assert fns["steal"](view, None) == (2,)


@pytest.mark.parametrize("text,kinds,mentions", [
    ("bogus", STEAL_KINDS, "'bogus'"),                              # unknown policy / profile
    ("steal:bogus", STEAL_KINDS, "unknown steal policy 'bogus'"),
    ("hand:bogus", HAND_KINDS, "unknown hand policy"),
    ("foo:bar", STEAL_KINDS, "'foo:bar'"),                          # unknown kind
    ("hand:highest", STEAL_KINDS, "no decision 'hand'"),            # kind of another variant
    ("steal:always", HAND_KINDS, "no decision 'steal'"),
    ("steal:threshold", STEAL_KINDS, "needs a pile size"),          # missing parameter
    ("threshold", STEAL_KINDS, "needs a pile size"),
    ("steal:threshold:x", STEAL_KINDS, "needs a pile size"),
    ("steal:threshold:-1", STEAL_KINDS, "needs a pile size"),
    ("steal:always:3", STEAL_KINDS, "takes no parameter"),          # extra parameter
    ("top:random:2", STEAL_KINDS, "takes no parameter"),
    ("hand:highest:1", HAND_KINDS, "takes no parameter"),
    ("steal:always,steal:never", STEAL_KINDS, "steal given twice"),  # a kind twice
    ("always,never", STEAL_KINDS, "steal given twice"),
    ("highest,lowest", HAND_KINDS, "hand given twice"),
    ("random,top:protect", STEAL_KINDS, "'random'"),               # bare name of two kinds
    ("steal:", STEAL_KINDS, "names no policy"),
    ("", STEAL_KINDS, "policy"),
])
def test_parse_errors_are_one_line(text, kinds, mentions):
    assert mentions in rules_error(text, kinds)


def test_no_decisions_variant_takes_no_policy():
    message = rules_error("greedy", ())
    assert "no decisions" in message
    classic = build_rules("classic")
    with pytest.raises(RulesError, match="no decisions") as info:
        resolve_policies(classic, ("greedy", "greedy"))
    assert "\n" not in str(info.value)
    assert resolve_policies(classic) == () and policy_specs(classic) == ()
    assert isinstance(chooser_for(classic, (), 1), NoChooser)
    with pytest.raises(RulesError, match="no decisions"):
        policy_specs(classic, {0: "greedy"})
    with pytest.raises(RulesError, match="no decisions"):
        Plan(classic, 3, policies=("greedy", "greedy"))


def test_seat_policies_and_seat_out_of_range():
    specs = [p.spec for p in seat_policies({1: "cautious", -1: "greedy"}, 3, STEAL_KINDS)]
    assert specs == ["steal:always,top:highest", "steal:never,top:protect", "steal:always,top:highest"]
    assert [p.spec for p in seat_policies({}, 2, HAND_KINDS)] == ["hand:random", "hand:random"]
    for seat in (2, 5, -2):
        with pytest.raises(RulesError, match="seats are 0..1") as info:
            seat_policies({seat: "greedy"}, 2, STEAL_KINDS)
        assert "\n" not in str(info.value)
    # the failing seat is named
    with pytest.raises(RulesError, match="policy of seat 1"):
        seat_policies({1: "bogus"}, 2, STEAL_KINDS)


def test_resolve_policies_and_plan_keep_canonical_specs():
    steal = build_rules("steal")
    assert policy_specs(steal) == ("steal:always,top:as_played",) * 2
    assert policy_specs(steal, ("greedy", "threshold:3")) == ("steal:always,top:highest",
                                                              "steal:threshold:3,top:as_played")
    plan = Plan(build_rules("arneson"), 5, policies=("highest", "cautious"))
    assert plan.policies == ("hand:highest", "hand:save_high")
    with pytest.raises(RulesError, match="policy of seat 1"):
        resolve_policies(steal, ("greedy", "hand:highest"))


@pytest.mark.parametrize("args,mentions", [
    (["-v", "steal", "--policy", "5=greedy"], "seat 5"),
    (["-v", "steal", "--policy", "0=bogus"], "bogus"),
    (["-v", "steal", "--policy", "0=steal:threshold"], "needs a pile size"),
    (["-v", "steal", "--policy", "0=greedy", "--policy", "0=cautious"], "twice"),
    (["-v", "steal", "--policy", "greedy"], "SEAT=POLICY"),
    (["-v", "classic", "--policy", "0=greedy"], "no decisions"),
    (["-v", "arneson", "--policy", "0=steal:always"], "no decision 'steal'"),
])
def test_cli_policy_errors(monkeypatch, capsys, tmp_path, args, mentions):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", *args, "-n", 3, "--out", out, "-q")
    assert_one_line_error(code, err, mentions)
    assert not out.exists()


def test_cli_policy_star_and_seats(tmp_path):
    out = tmp_path / "ds"
    ok("generate", "-v", "steal", "-n", 4, "--policy", "*=cautious", "--policy", "1=threshold:2",
       "--out", out, "-q")
    entry = json.loads((out / MANIFEST).read_text())["rule_sets"][0]
    assert entry["policies"] == ["steal:never,top:protect", "steal:threshold:2,top:as_played"]


def test_cli_policy_two_seats_of_three_players(tmp_path):
    rules = build_rules("steal", {"players": 3})
    seating = parse_seating(["0=greedy", "1=cautious"])
    assert policy_specs(rules, seating) == ("steal:always,top:highest", "steal:never,top:protect",
                                          "steal:always,top:as_played")


# =============================================================================================
# 2. Tournaments
# =============================================================================================

@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tournament") / "D"
    ok("generate", "-v", "steal", "-n", 30, "--tournament", "always", "--tournament", "never",
       "--tournament", "threshold:5", "--out", out, "-q")
    return out


def test_tournament_plays_every_ordered_pair_on_the_same_seeds(tournament):
    manifest = json.loads((tournament / MANIFEST).read_text())
    entries = manifest["rule_sets"]
    assert len(entries) == 6
    specs = {"always": "steal:always,top:as_played", "never": "steal:never,top:as_played",
             "threshold:5": "steal:threshold:5,top:as_played"}
    pairs = [tuple(e["policies"]) for e in entries]
    assert sorted(pairs) == sorted((specs[a], specs[b]) for a in specs for b in specs if a != b)
    assert len({e["rules_id"] for e in entries}) == 1
    assert all(e["games"] == 30 and e["seed"] == manifest["master_seed"] for e in entries)
    rows = games_rows(tournament)
    assert len(rows) == 6 * 30
    seeds: dict[int, dict[int, int]] = {}
    by_ordinal = {e["ordinal"]: e for e in entries}
    for row in rows:
        ordinal = row["game_id"] // 1_000_000_000
        assert row["policies"] == by_ordinal[ordinal]["policies"]   # canonical, per seat
        seeds.setdefault(ordinal, {})[row["game_index"]] = row["game_seed"]
    expected = {i: game_seed(manifest["master_seed"], i) for i in range(30)}
    assert all(s == expected for s in seeds.values())


def test_tournament_validates_and_games_differ_by_policy(tournament):
    report = validate(tournament)
    assert report.ok and report.good == 180, report.problems[:3]
    rows = games_rows(tournament)
    battles = {}
    for r in rows:
        battles.setdefault(tuple(r["policies"]), []).append(r["battles"])
    assert len({tuple(v) for v in battles.values()}) > 1  # the policies matter


@pytest.mark.parametrize("args,mentions", [
    (["-v", "steal", "--tournament", "always"], "at least two"),
    (["-v", "steal", "--tournament", "always", "--tournament", "always"], "at least two"),
    (["-v", "steal", "--set", "players=3", "--tournament", "always", "--tournament", "never"],
     "2 players"),
    (["-v", "steal", "--policy", "0=always", "--tournament", "always", "--tournament", "never"],
     "not both"),
    (["-v", "classic", "--tournament", "always", "--tournament", "never"], "no decisions"),
    (["-v", "steal", "--tournament", "always", "--tournament", "bogus"], "bogus"),
])
def test_tournament_errors(monkeypatch, capsys, tmp_path, args, mentions):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", *args, "-n", 3, "--out", out, "-q")
    assert_one_line_error(code, err, mentions)
    assert not out.exists()


def test_tournament_arneson(tmp_path):
    out = tmp_path / "ds"
    ok("generate", "-v", "arneson", "-n", 5, "-t", "greedy", "-t", "cautious", "--out", out, "-q")
    entries = json.loads((out / MANIFEST).read_text())["rule_sets"]
    assert [e["policies"] for e in entries] == [["hand:highest", "hand:save_high"],
                                                ["hand:save_high", "hand:highest"]]


def test_tournament_same_policy_spelled_twice(monkeypatch, capsys, tmp_path):
    out = tmp_path / "ds"
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", "steal", "-n", 3,
                            "-t", "always", "-t", "steal:always", "--out", out, "-q")
    assert_one_line_error(code, err, "two different")


# =============================================================================================
# 3. A name read two ways: said
# =============================================================================================

def test_profile_reading_says_how_a_name_of_two_readings_is_read():
    from pipeline.engines.policies import profile_reading

    said = profile_reading("random", STEAL_KINDS)
    assert said.startswith("'random' is read as the profile steal:random,top:random")
    assert "steal:random" in said.split(";")[1]          # how to give the policy alone
    assert profile_reading("random", HAND_KINDS) is None  # hand:random either way
    for text in ("always", "greedy", "steal:random", "threshold:4", "default"):
        assert profile_reading(text, STEAL_KINDS) is None, text


@pytest.mark.parametrize("args", [["--tournament", "random", "--tournament", "always"],
                                  ["--policy", "0=random"], ["--policy", "*=random", "--policy", "1=random"]])
def test_cli_warns_when_random_is_read_as_the_profile(monkeypatch, capsys, tmp_path, args):
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", "steal", *args, "-n", 2, "--out",
                            tmp_path / "ds", "-q")
    assert code == 0, err
    warnings = [line for line in error_lines(err) if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(
        "warning: 'random' is read as the profile steal:random,top:random"), err
    entries = json.loads((tmp_path / "ds" / MANIFEST).read_text())["rule_sets"]
    assert "steal:random,top:random" in entries[0]["policies"]  # read as before: the profile


@pytest.mark.parametrize("variant,args", [("steal", ["--tournament", "steal:random", "--tournament", "always"]),
                                          ("arneson", ["--policy", "0=random"])])
def test_cli_says_nothing_of_a_name_read_one_way(monkeypatch, capsys, tmp_path, variant, args):
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", variant, *args, "-n", 2, "--out",
                            tmp_path / "ds", "-q")
    assert code == 0, err
    assert not [line for line in error_lines(err) if line.startswith("warning:")], err
