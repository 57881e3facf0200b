"""Plugin mistakes a hostile tester found (QA pass D, items 5, 6, 7 and 10), each the mistake of
one family, said as that family's, never as war's or the user's:

- a parameterized policy whose factory refuses its parameter (raises): the plugin's one-line
  error, naming the family, the policy and the seat, said before anything is written (it was
  an internal error that left an unfinished dataset);
- a query file whose header does not parse, a parameter whose default its own type or bound
  refuses, a report entry that gives its query a parameter it lacks: the family is left out
  with one warning naming the file (they broke `war query` and `war report` for every dataset);
- a malformed template (`{seat!r}`, `{n:>3}`, `{cards.x}`, an unclosed `{` or `[[`): the
  family is left out (they were printed as written in every replay).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from clikit import run_main
from pipeline.engines import policies
from pipeline.errors import PluginError
from pipeline.jobs.generate import Plan
from pipeline.jobs.query import registry as query_registry
from pipeline.model import families
from pipeline.model.family import Decision, Family, Policy, Variant
from pipeline.model.kind import CORE, Kind, malformed
from pipeline.model.rules import build_rules
from test_fault_corpus_plugins import installed

from test_plugin_declaration_checks import ENGINE, EVENTS, POLICY  # a family that holds together, to break
from test_plugin_declaration_checks import read as read_declared
HOSTILE = Family("hostile", ENGINE,
                 options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
                 variants=(Variant("hostile", "Hostile War", "the test", "Classic War under another name."),),
                 events=EVENTS,
                 decisions=(Decision("ponder", "seats", "seat {seat} [[seats?ponders|does not]]", "ponder?",
                                     (Policy("fine", POLICY),), "fine"),))
WHERE = "`hostile = war_hostile:FAMILY`"
GOOD_SQL = "-- answers: How many games are there? Per rule set.\n-- param: limit INTEGER = 5 >= 1 -- at most\n" \
           "SELECT rule_set, count(*) AS games FROM games GROUP BY rule_set LIMIT $limit\n"
_modules = itertools.count()


def read(monkeypatch, declaration, module: str = "pipeline.engines.table") -> tuple[families.Registry, list[str]]:
    """The registry with `declaration` as the entry point group's one family, and its warnings."""
    return read_declared(monkeypatch, declaration, module, WHERE)


def left_out(monkeypatch, declaration, *named: str, module: str = "pipeline.engines.table") -> str:
    reg, said = read(monkeypatch, declaration, module)
    assert "hostile" not in reg.families and len(said) == 1, said
    assert said[0].startswith(f"the family of entry point {WHERE} is left out: "), said
    assert "\n" not in said[0] and all(n in said[0] for n in named), said[0]
    return said[0]


def with_queries(tmp_path, monkeypatch, files: dict[str, str]) -> str:
    """A package of its own (a module named afresh) whose `queries/` folder holds `files`: the
    module a declaration with `queries="queries"` is read as declared in."""
    name = f"war_hostile_q{next(_modules)}"
    (tmp_path / name / "queries").mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    for file, text in files.items():
        (tmp_path / name / "queries" / file).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


# ---------------------------------------------------------------- 5: a policy factory that raises


@pytest.fixture
def refusing_high(monkeypatch):
    """war-slap's `slap:high:N` made by a factory that refuses N above 12, as an author writes it."""
    made = policies.KINDS["slap"]["high"]

    def high(n: int):
        if n > 12:
            raise ValueError(f"rank index {n} is above 12")
        return made(n)

    monkeypatch.setitem(policies.KINDS["slap"], "high", high)


def test_a_policy_factory_that_raises_is_the_plugin_s_error_at_plan_time(refusing_high):
    with pytest.raises(PluginError) as caught:
        Plan(build_rules("slap"), 3, policies={0: "slap:high:13"})
    said = str(caught.value)
    for named in ("plugin family 'slap'", "slap:high:13", "seat 0", "ValueError: rank index 13 is above 12",
                  "the error is the plugin's (war_slap)"):
        assert named in said, said
    assert caught.value.owner == "war_slap" and caught.value.exit_code == 2
    Plan(build_rules("slap"), 3, policies={0: "slap:high:12"})  # the parameter it takes is made as before


def test_a_policy_factory_that_raises_leaves_nothing_written(refusing_high, tmp_path, monkeypatch, capsys):
    """It was `internal error: ValueError` and an unfinished dataset that --resume could not finish."""
    out = tmp_path / "d"
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", "slap", "--policy", "0=slap:high:13",
                            "--games", "3", "--out", out)
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(lines) == 1, err
    assert "internal error" not in err and "plugin family 'slap'" in lines[0] and "seat 0" in lines[0], err
    assert not out.exists()


def test_a_policy_factory_that_raises_in_a_later_game_is_the_plugin_s_error(monkeypatch, tmp_path, capsys):
    """A parameterized policy is made again each game: a maker that refuses only then (here its
    third call, the plan's check its first) was an internal error of war's."""
    made, calls = policies.KINDS["slap"]["high"], []

    def high(n: int):
        calls.append(n)
        if len(calls) == 3:
            raise ValueError("out of patience")
        return made(n)

    monkeypatch.setitem(policies.KINDS["slap"], "high", high)
    out = tmp_path / "d"
    code, _, err = run_main(monkeypatch, capsys, "generate", "-v", "slap", "--policy", "1=slap:high:9",
                            "--games", "4", "--workers", "1", "--out", out)
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(lines) == 1, err
    for named in ("plugin family 'slap'", "slap:high:9 of seat 1", "ValueError: out of patience", "(seed ",
                  "the error is the plugin's (war_slap)"):
        assert named in lines[0], err
    assert "internal error" not in err


# ---------------------------------------------------------------- 6 and 7: a family's query files


@pytest.mark.parametrize("text, named", [
    (GOOD_SQL.replace("-- answers:", "-- answer:"), "header has no `-- answers:` line"),
    ("SELECT 1 AS one\n", "header has no `-- answers:` line"),
    (GOOD_SQL.replace("INTEGER", "INTEGR"), "unknown type INTEGR"),
    (GOOD_SQL.replace("= 5 >= 1", "= ten >= 1"), "'ten'"),
    (GOOD_SQL.replace("= 5 >= 1", "= 5 >= 10"), "at least 10"),
    (GOOD_SQL.replace("= 5 >= 1", "= 0 > 0"), "positive"),
    (GOOD_SQL.replace("INTEGER = 5 >= 1", "BOOLEAN = maybe"), "'maybe'"),
])
def test_a_query_file_that_does_not_parse_leaves_its_family_out(tmp_path, monkeypatch, text, named):
    """It broke `war query` and `war report` for every dataset, naming only the bare file name;
    a bad default, only when the query ran without it, as the user's mistake."""
    module = with_queries(tmp_path, monkeypatch, {"hostile_games.sql": text})
    path = tmp_path / module / "queries" / "hostile_games.sql"
    left_out(monkeypatch, replace(HOSTILE, queries="queries"), f"its query file {path}", named, module=module)


def test_war_s_own_queries_work_beside_a_family_left_out_for_its_query_file(tmp_path, monkeypatch):
    good = with_queries(tmp_path, monkeypatch, {"hostile_games.sql": GOOD_SQL})
    reg, said = read(monkeypatch, replace(HOSTILE, queries="queries", report=(("hostile_games", {"limit": "3"}),)),
                     good)
    assert said == [] and "hostile" in reg.families  # the families below are left out for their mistake alone
    module = with_queries(tmp_path, monkeypatch, {"hostile_games.sql": "-- answer: typo\nSELECT 1\n"})
    reg, said = read(monkeypatch, replace(HOSTILE, queries="queries"), module)
    assert len(said) == 1 and "hostile" not in reg.families, said
    monkeypatch.setattr(query_registry, "registry", lambda outside=True: reg)
    queries = query_registry.named_queries()
    assert "game_length" in queries and "hostile_games" not in queries


@pytest.mark.parametrize("report, named", [
    (("hostile_games", {"limt": "3"}), "has no parameter 'limt'"),
    (("hostile_games", {"limit": "0"}), "must be at least 1"),
    (("hostile_games", {"limit": "many"}), "'many'"),
    (("game_length", {"limit": "5"}), "query 'game_length' has no parameter 'limit'"),  # war's own query
])
def test_a_report_entry_its_query_refuses_leaves_the_family_out(tmp_path, monkeypatch, report, named):
    """It loaded, then failed `war report` as if the user had given a bad --param."""
    module = with_queries(tmp_path, monkeypatch, {"hostile_games.sql": GOOD_SQL})
    left_out(monkeypatch, replace(HOSTILE, queries="queries", report=(report,)),
             f"its report runs query {report[0]!r}", named, module=module)


QUERY_FAMILY = '''
from pipeline.model.family import Family, Variant
FAMILY = Family("qbad", "pipeline.engines.table.reference:play_table",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
    variants=(Variant("qbad", "Qbad War", "the test", "Classic War under another name."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "out", "end"),
    queries="queries")
'''


def test_war_query_goes_on_without_a_family_whose_query_file_does_not_parse(tmp_path):
    site = installed(tmp_path / "site", {"qbad": "war_qbad:FAMILY"}, {
        "war_qbad/__init__.py": QUERY_FAMILY,
        "war_qbad/queries/qbad_games.sql": "-- answer: How many?\nSELECT count(*) FROM games\n",
    })
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "pipeline.cli", "query", "--list"], env=env, capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0 and "game_length" in run.stdout and "qbad_games" not in run.stdout, run.stderr
    warned = [line for line in run.stderr.splitlines() if "is left out" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: the family of entry point `qbad = "), run.stderr
    assert str(site / "war_qbad" / "queries" / "qbad_games.sql") in warned[0], warned


# ---------------------------------------------------------------- 10: malformed templates


@pytest.mark.parametrize("template, named", [
    ("seat {seat!r} grabs", "{seat!r}"),
    ("seat {seat} grabs {n:>3} cards", "{n:>3}"),
    ("seat {seat} grabs {cards.x}", "{cards.x}"),
    ("seat {seat} grabs {cards[0]}", "{cards[0]}"),
    ("seat {seat grabs {n}", "braces do not pair"),
    ("seat {seat} grabs }", "braces do not pair"),
    ("seat {seat} grabs {{n}}", "doubled brace"),
    ("seat {seat} [[seats?grabs", "[[seats?grab"),
    ("seat {seat} [[seats|grabs]]", "[[seats|grab"),
])
def test_a_malformed_template_leaves_the_family_out(monkeypatch, template, named):
    """Each was accepted and printed as written in every replay and golden file."""
    kind = Kind("grab", "the seat grabs the table", template, source="table", target="gains")
    left_out(monkeypatch, replace(HOSTILE, events=(*EVENTS, kind)), "kind 'grab', its text", "malformed", named)
    decision = replace(HOSTILE.decisions[0], sentence=template)
    left_out(monkeypatch, replace(HOSTILE, decisions=(decision,)), "decision 'ponder', its sentence", named)


def test_war_s_own_templates_are_well_formed():
    reg = families.registry(outside=False)
    texts = [t for k in (*CORE, *reg.kinds.values()) for t in (k.text, k.deal_text, *k.notes.values())]
    texts += [t for d in reg.decisions.values() for t in (d.sentence, d.title)]
    assert [(t, malformed(t)) for t in texts if malformed(t)] == []
    assert malformed("the game ends after battle {value}: {note}[[seat? (seat {seat})|]]") == []
