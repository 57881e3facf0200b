"""The registry of families (pipeline.model.families): the built-in families and those of the
entry point group `war.families`, read and checked the same way. An outside declaration that
does not hold together, or does not load, is left out with a warning that names it and says
why; war goes on with the others."""

from __future__ import annotations

import warnings
from dataclasses import replace

import pytest

from pipeline.model import families
from pipeline.model.family import Decision, Family, Option, Policy, Variant
from pipeline.model.kind import Kind

MINI = Family("mini", "pipeline.engines.table.reference:play_table",
              options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles",
                       Option("mini_option", 1, "A number of the test's.", minimum=0, maximum=3)),
              variants=(Variant("mini", "Mini War", "the test", "Classic War under another name."),),
              events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "out", "end"))


def registry_with(monkeypatch, *outside) -> tuple[families.Registry, list[str]]:
    """A registry built with these (where, module, declaration) as the entry point group's, and
    the warnings it gave."""
    monkeypatch.setattr(families, "_outside", lambda: iter(outside))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    return reg, [str(w.message) for w in caught if w.category is families.FamilyWarning]


def test_an_outside_family_joins_as_the_built_in_ones_do(monkeypatch):
    reg, said = registry_with(monkeypatch, ("`mini = tests:MINI`", "tests", MINI))
    assert said == []
    assert list(reg.families)[:3] == ["table", "steal", "arneson"] and "mini" in reg.families
    assert "mini" not in reg.built_in and {"table", "steal", "arneson"} <= reg.built_in
    assert reg.variants["mini"].family == "mini" and reg.variants["mini"].options == MINI.option_names
    assert list(reg.options)[-1] == "mini_option" and reg.options["mini_option"].maximum == 3


@pytest.mark.parametrize("declaration, why", [
    (replace(MINI, name="table"), "a family 'table' is already registered"),
    (replace(MINI, variants=(Variant("classic", "x", "x", "x"),)), "variant 'classic' is another family's"),
    (replace(MINI, options=("players", "nobodys")), "option 'nobodys' is declared by no family and not by war"),
    (replace(MINI, options=(Option("war_down", 1, "again"),)), "option 'war_down' is declared already"),
    (replace(MINI, events=("deal", "teleport")), "event kind 'teleport' is declared by no family"),
    (replace(MINI, events=(Kind("collect", "again", "again"),)), "event kind 'collect' is declared already"),
    (replace(MINI, events=(Kind("warp", "x", "x", source="nowhere", target="table"),)),
     "source 'nowhere' is not a place"),
    (replace(MINI, decisions=(Decision("guess", "card", "x", "x", (Policy("any", "x:y"),), "any"),)),
     "its events include a kind that decides"),
    (replace(MINI, events=(*MINI.events, "decision"),
             decisions=(Decision("guess", "cards", "x", "x", (Policy("any", "x:y"),), "none"),)),
     "decision 'guess': chooses card or seats"),
    (replace(MINI, profiles={"greedy": {"guess": "all"}}), "profile 'greedy': guess:all is not"),
    (replace(MINI, variants=(Variant("mini2", "x", "x", "x", defaults={"hand_size": 3}),)),
     "option 'hand_size' is not one of the family's"),
    (object(), "it is a object, not a pipeline.model.family.Family"),
])
def test_a_declaration_that_does_not_hold_together_is_left_out_saying_why(monkeypatch, declaration, why):
    reg, said = registry_with(monkeypatch, ("`bad = tests:BAD`", "tests", declaration))
    assert len(said) == 1 and said[0].startswith("the family of entry point `bad = tests:BAD` is left out: ")
    assert why in said[0], said[0]
    assert set(reg.families) == {"table", "steal", "arneson"}


def test_a_family_that_does_not_load_is_left_out_and_war_goes_on(monkeypatch):
    """A package whose entry point fails to import is named, with its error, and left out."""
    class Point:
        name, value, module = "broken", "war_broken:FAMILY", "war_broken"

        def load(self):
            raise ImportError("No module named 'war_broken'")

    monkeypatch.setattr(families, "_points", lambda: [Point()])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    said = [str(w.message) for w in caught if w.category is families.FamilyWarning]
    assert said == ["the family of entry point `broken = war_broken:FAMILY` is left out: it does not load: "
                    "ImportError: No module named 'war_broken'"]
    assert set(reg.families) == {"table", "steal", "arneson"}


def test_every_built_in_passes_the_whole_check_a_plugin_does():
    """war reads its own families without the checks of their types, names and templates (their
    sources parsed cost every command 0.1 s): this holds them to the whole check instead."""
    reg = families.Registry(kinds={k.name: k for k in families.CORE})
    for ref in families.BUILT_IN:
        family, module = families.load(ref), families._module(ref)
        assert families._problems(family, reg, module) == [], ref
        families._add(reg, family, module)
    broken = replace(families.load(families.BUILT_IN[0]), play="pipeline.engines.table.reference:no_such_engine")
    fresh = families.Registry(kinds={k.name: k for k in families.CORE})
    assert any("no_such_engine" in p for p in families._problems(broken, fresh, families._module(families.BUILT_IN[0])))


def test_a_built_in_declaration_that_does_not_hold_together_is_a_bug(monkeypatch):
    monkeypatch.setattr(families, "BUILT_IN", families.BUILT_IN + ("pipeline.engines.table:FAMILY",))
    with pytest.raises(TypeError, match="built-in family pipeline.engines.table:FAMILY: a family 'table'"):
        families.build(outside=False)
