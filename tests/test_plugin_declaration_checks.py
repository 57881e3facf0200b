"""War enforces what docs/plugins.md promises of a declaration (issue 52, item 3): the names a
family gives its engines, policies and report queries are resolved when the family is read,
without importing its engine; its sentence templates name only fields war fills; and a family
left out is said so, on one clean line, by every reader of a dataset of its variant ("installed
but left out: REASON", not "played by no installed family").
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from dataclasses import replace

import pytest

from pipeline.model import families
from pipeline.model.family import Decision, Family, Policy, Variant
from pipeline.model.kind import CORE, Kind
from test_fault_corpus_plugins import installed

ENGINE = "pipeline.engines.table.reference:play_table"
POLICY = "war_slap.policies:always"  # a real policy (examples/war-slap, installed by conftest)
EVENTS = ("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "decision",
          "out", "end")
CHECKED = Family("checked", ENGINE,
                 options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
                 variants=(Variant("checked", "Checked War", "the test", "Classic War under another name."),),
                 events=EVENTS,
                 decisions=(Decision("ponder", "seats", "seat {seat} [[seats?ponders|does not]]", "ponder {n}?",
                                     (Policy("fine", POLICY),), "fine"),),
                 report=(("outcomes", {}),))
WHERE = "`checked = war_checked:FAMILY`"


def read(monkeypatch, declaration, module: str = "pipeline.engines.table",
         where: str = WHERE) -> tuple[families.Registry, list[str]]:
    """The registry with `declaration` as the entry point group's one family (declared in
    `module`, named `where`), and the warnings it gave."""
    monkeypatch.setattr(families, "_outside", lambda: iter([(where, module, declaration)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    return reg, [str(w.message) for w in caught if w.category is families.FamilyWarning]


def left_out(monkeypatch, declaration, *named: str) -> str:
    reg, said = read(monkeypatch, declaration)
    assert "checked" not in reg.families and len(said) == 1, said
    assert said[0].startswith(f"the family of entry point {WHERE} is left out: "), said
    assert "\n" not in said[0] and all(n in said[0] for n in named), said[0]
    return said[0]


def test_a_declaration_whose_names_all_resolve_joins(monkeypatch):
    reg, said = read(monkeypatch, CHECKED)
    assert said == [] and "checked" in reg.families


def with_policy(ref: str) -> Family:
    return replace(CHECKED, decisions=(replace(CHECKED.decisions[0], policies=(Policy("fine", ref),)),))


@pytest.mark.parametrize("declaration, bad", [
    (replace(CHECKED, play="pipeline.engines.table.referenc:play_table"), "pipeline.engines.table.referenc"),
    (replace(CHECKED, play="pipeline.engines.table.reference:play_tabel"), "play_tabel"),
    (replace(CHECKED, play="pipeline.engines.table.reference.play_table"), "pipeline.engines.table.reference.play_table"),
    (replace(CHECKED, play="war_nowhere.engine:play"), "war_nowhere"),
    (with_policy("war_slap.policies:alway"), "alway"),
    (with_policy("war_slap.policy:always"), "war_slap.policy"),
    (replace(CHECKED, compiled="pipeline.engines.table.compild"), "pipeline.engines.table.compild"),
    (replace(CHECKED, report=(("countz", {}),)), "countz"),
])
def test_a_misspelt_engine_policy_or_query_is_left_out_naming_it(monkeypatch, declaration, bad):
    """It passed the check, then failed when a game was played (an internal error that blamed war)."""
    line = left_out(monkeypatch, declaration, bad)
    assert ("policy" in line) == (bad in ("alway", "war_slap.policy")), line


def test_the_engine_is_found_without_being_imported(tmp_path, monkeypatch):
    """War reads declarations before it imports any engine: resolving a name runs no plugin code."""
    site = installed(tmp_path / "site", {}, {
        "war_lazy/__init__.py": "",
        "war_lazy/engine.py": "raise RuntimeError('imported')\ndef play(*a):\n    pass\n",
    })
    monkeypatch.syspath_prepend(str(site))
    reg, said = read(monkeypatch, replace(CHECKED, play="war_lazy.engine:play"))
    assert said == [] and "checked" in reg.families and "war_lazy.engine" not in sys.modules
    _, said = read(monkeypatch, replace(CHECKED, play="war_lazy.engine:plays"))
    assert len(said) == 1 and "plays" in said[0], said


BEATEN = "seat {seat} beats {beaten}"


@pytest.mark.parametrize("declaration, template", [
    (replace(CHECKED, events=(*EVENTS, Kind("beat", "x", BEATEN))), "kind 'beat', its text"),
    (replace(CHECKED, events=(*EVENTS, Kind("beat", "x", "x", deal_text=BEATEN))), "kind 'beat', its deal_text"),
    (replace(CHECKED, events=(*EVENTS, Kind("beat", "x", "x", notes={"n": BEATEN}))), "kind 'beat', its notes['n']"),
    (replace(CHECKED, decisions=(replace(CHECKED.decisions[0], sentence=BEATEN),)), "decision 'ponder', its sentence"),
    (replace(CHECKED, decisions=(replace(CHECKED.decisions[0], title="{beaten}?"),)), "decision 'ponder', its title"),
])
def test_an_unknown_template_field_is_a_declaration_problem(monkeypatch, declaration, template):
    """`{beaten}` was printed literally by replay and the page."""
    left_out(monkeypatch, declaration, "family 'checked'", template, "{beaten}")


def test_an_unknown_condition_is_a_declaration_problem(monkeypatch):
    decision = replace(CHECKED.decisions[0], sentence="seat {seat} [[beaten?wins|loses]]")
    left_out(monkeypatch, replace(CHECKED, decisions=(decision,)), "decision 'ponder'", "[[beaten?")


def test_every_field_war_fills_is_known():
    """The fields the check knows are those event_kinds.fill fills, every one (or the check
    would refuse a template that works, or pass one that prints a field literally)."""
    from pipeline.model.event_kinds import fill
    from pipeline.model.kind import FIELDS, unknown_fields

    text = " ".join(f"{{{f}}}" for f in FIELDS)
    filled = fill(text, _Event(), str)
    assert "{" not in filled and unknown_fields(text) == []
    assert unknown_fields("{seat} {beaten}") == ["{beaten}"]
    assert [k.name for k in CORE for t in (k.text, k.deal_text, *k.notes.values()) if unknown_fields(t)] == []


class _Event:
    """An event with every field set."""
    kind, seat, cards, seats, options, value, note, battle = "play", 0, (1,), (0,), (1,), 1, "n", 1


def test_a_left_out_family_s_variant_is_said_installed_but_left_out(monkeypatch):
    """Whether its declaration does not hold together (its variants known) or its package does
    not load (they are not), the reader of its dataset learns the package is there, and why
    war does not play it."""
    reg, _ = read(monkeypatch, replace(CHECKED, play="war_nowhere.engine:play"))
    said = reg.unplayed("checked")
    assert said.startswith(f"variant 'checked' is of the family of entry point {WHERE}, installed but left out: ")
    assert "war_nowhere" in said and "no installed family" not in said, said
    reg, _ = read(monkeypatch, families._Unloaded("ImportError: nope"))
    said = reg.unplayed("checked")
    assert "played by no installed family" in said and f"{WHERE} is installed but left out: it does not load: " \
        "ImportError: nope" in said, said
    reg, said = read(monkeypatch, replace(CHECKED, variants=5))
    assert len(said) == 1 and reg.left_out_variants == {}, said


# ---------------------------------------------------------------- in `war` processes

GOOD = f'''
from pipeline.model.family import Family, Variant
FAMILY = Family("lefty", "{ENGINE}",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"),
    variants=(Variant("lefty", "Lefty War", "the test", "Classic War under another name."),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "out", "end"))
'''
BROKEN = GOOD.replace(f'"{ENGINE}"', '"pipeline.engines.table.reference:play_tabel"')


def war(site, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def test_a_dataset_of_a_family_left_out_says_installed_but_left_out(tmp_path):
    """Its dataset said "played by no installed family" although the package is installed, under
    a `war:0: FamilyWarning:` prefix."""
    site = installed(tmp_path / "site", {"lefty": "war_lefty:FAMILY"}, {"war_lefty.py": GOOD})
    data = tmp_path / "d"
    made = war(site, "generate", "-v", "lefty", "--games", "2", "--out", data)
    assert made.returncode == 0, made.stderr
    (site / "war_lefty.py").write_text(BROKEN, encoding="utf-8")
    for args in (["replay", data, "0"], ["generate", "-v", "lefty", "--games", "2", "--out", tmp_path / "e"]):
        run = war(site, *args)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        lines = run.stderr.splitlines()
        warned = [line for line in lines if "is left out" in line]
        assert len(warned) == 1 and warned[0].startswith("warning: the family of entry point `lefty = "), lines
        assert "FamilyWarning" not in run.stderr and "war:0" not in run.stderr, run.stderr
        assert "play_tabel" in warned[0], warned
        assert "installed but left out" in lines[-1] and "play_tabel" in lines[-1], lines
        assert "played by no installed family" not in lines[-1], lines


def _with_policies(*policies: Policy, profiles=None, default: str = "fine") -> Family:
    decision = replace(CHECKED.decisions[0], policies=policies, default=default)
    return replace(CHECKED, decisions=(decision,), profiles=profiles or {})


@pytest.mark.parametrize("name", ["al:ways", "no way", "a,b", "default", "Fine"])
def test_a_policy_name_no_seating_could_ask_for_is_left_out(monkeypatch, name):
    """A default named `al:ways` made every run fail "unknown policy 'al' (known: al:ways ...)",
    with no policy given, and left an unfinished dataset (hostile-j 11)."""
    left_out(monkeypatch, _with_policies(Policy("fine", POLICY), Policy(name, POLICY)), repr(name))


@pytest.mark.parametrize("profiles", [{"default": {"ponder": "fine"}}, {"other": {"ponder": "fine"}}], ids=["default", "a policy"])
def test_a_profile_that_would_hide_a_default_or_a_policy_is_left_out(monkeypatch, profiles):
    """A profile `default` replaced every decision's default unsaid; one named as a policy
    played another (hostile-j 10). A profile named as the policy it plays is fine."""
    declaration = _with_policies(Policy("fine", POLICY), Policy("other", POLICY), profiles=profiles)
    left_out(monkeypatch, declaration, "profile")
    reg, said = read(monkeypatch, _with_policies(Policy("fine", POLICY), Policy("other", POLICY),
                                                 profiles={"other": {"ponder": "other"}}))
    assert said == [] and "checked" in reg.families
