"""Declaration mistakes a hostile tester found (issue items 4 to 9): each is the mistake of one
family, which war leaves out with one warning line naming its entry point and what is wrong,
never breaking another family, never an internal error, never accepted silently.

- two families that declare the same name: neither is read, and each warning names the other,
  whichever is read first (docs/plugins.md, "When two families clash");
- a kind, option, decision, variant or policy declared twice in one family;
- an option whose default its own range or pattern refuses, a variant default its option refuses;
- an option's check that raises: the plugin's error (exit 2), not war's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from dataclasses import replace

import pytest

from pipeline.model import families
from pipeline.model.family import Decision, Family, Option, Policy, Variant
from pipeline.model.kind import Kind
from test_fault_corpus_plugins import installed

ENGINE = "pipeline.engines.table.reference:play_table"
POLICY = "pipeline.engines.steal.policies:steal_always"  # a real function: the names resolve
EVENTS = ("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "decision",
          "out", "end")
OPTIONS = ("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles")
GRAB_KIND = Kind("grab", "the seat grabs the table", "seat {seat} grabs {n} cards", source="table", target="gains")
GRAB = Decision("grab", "seats", "seat {seat} [[seats?grabs|does not]]", "grab?", (Policy("always", POLICY),),
                "always")


def family(name: str, **parts) -> Family:
    """A family that holds together: Classic War's engine under its own name, its own kind
    `grab` and decision `grab` (as the two plugins of the clash declare)."""
    return Family(name, ENGINE, options=parts.pop("options", OPTIONS),
                  variants=parts.pop("variants", (Variant(name, f"{name} War", "the test", "Classic War again."),)),
                  events=parts.pop("events", (*EVENTS, GRAB_KIND)), decisions=parts.pop("decisions", (GRAB,)),
                  **parts)


def point(name: str, declaration) -> tuple[str, str, object]:
    """(where, module, declaration) as the entry point `NAME = war_NAME:FAMILY` gives it (its
    folders looked for beside war's table family)."""
    return f"`{name} = war_{name}:FAMILY`", "pipeline.engines.table", declaration


def read(monkeypatch, *points) -> tuple[families.Registry, dict[str, str]]:
    """The registry with these entry points' families, and its warnings by the entry point each names."""
    monkeypatch.setattr(families, "_outside", lambda: iter(points))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = families.build()
    said = [str(w.message) for w in caught if w.category is families.FamilyWarning]
    by = {}
    for line in said:
        assert line.startswith("the family of entry point `") and " is left out: " in line and "\n" not in line, line
        where = line[len("the family of entry point "):line.index(" is left out: ")]
        assert where not in by, said  # one line a family
        by[where] = line
    return reg, by


def left_out(monkeypatch, declaration, *named: str) -> str:
    """The one warning of `declaration`, read alone, which is left out: it names each of `named`."""
    reg, said = read(monkeypatch, point("trap", declaration))
    assert declaration.name not in reg.families and list(said) == ["`trap = war_trap:FAMILY`"], said
    line = said["`trap = war_trap:FAMILY`"]
    assert all(n in line for n in named), line
    return line


def test_a_family_that_holds_together_joins(monkeypatch):
    """The families below are left out for their one mistake, not for anything else."""
    reg, said = read(monkeypatch, point("rev", family("rev")))
    assert said == {} and "rev" in reg.families and reg.kinds["grab"] is GRAB_KIND


# ---------------------------------------------------------------- 4. two families, one name


@pytest.mark.parametrize("order", [("bad", "rev"), ("rev", "bad")])
def test_two_families_that_declare_one_name_are_both_left_out_each_naming_the_other(monkeypatch, order):
    """Installing a second plugin evicted the first, and the warning blamed the first alone: the
    family of entry point `rev` was left out because `bad` (read first, by name) declared `grab`."""
    others = point("other", family("other", events=EVENTS, decisions=()))
    reg, said = read(monkeypatch, *[point(name, family(name)) for name in order], others)
    assert "rev" not in reg.families and "bad" not in reg.families and "other" in reg.families
    assert set(said) == {"`rev = war_rev:FAMILY`", "`bad = war_bad:FAMILY`"}, said
    for me, it in (("rev", "bad"), ("bad", "rev")):
        line = said[f"`{me} = war_{me}:FAMILY`"]
        assert f"the family '{it}' of entry point `{it} = war_{it}:FAMILY`, package pipeline" in line, line
        assert "event kind 'grab'" in line and "decision 'grab'" in line, line
        assert f"`{me} = " not in line.partition(" is left out: ")[2], line  # the other, not itself
    assert "grab" not in reg.kinds and "grab" not in reg.decisions
    assert "variant 'rev' is of the family of entry point `rev = war_rev:FAMILY`, installed but left out" \
        in reg.unplayed("rev")


def test_a_third_family_that_declares_the_name_is_left_out_too(monkeypatch):
    """Not the first to come after the two: every family that declares the name is named."""
    reg, said = read(monkeypatch, *[point(name, family(name)) for name in ("aaa", "bbb", "ccc")])
    assert not {"aaa", "bbb", "ccc"} & set(reg.families) and len(said) == 3, said
    for me in ("aaa", "bbb", "ccc"):
        others = {"aaa", "bbb", "ccc"} - {me}
        assert all(f"`{o} = war_{o}:FAMILY`" in said[f"`{me} = war_{me}:FAMILY`"] for o in others), said


def test_a_family_left_out_for_its_own_mistake_evicts_no_other(monkeypatch):
    """A broken package that declares the name too does not take a working family down: it is
    left out for its mistake, and its warning says who holds the name."""
    broken = replace(family("zed"), play="pipeline.engines.table.reference:play_tabel")
    reg, said = read(monkeypatch, point("rev", family("rev")), point("zed", broken))
    assert "rev" in reg.families and list(said) == ["`zed = war_zed:FAMILY`"], said
    line = said["`zed = war_zed:FAMILY`"]
    assert "play_tabel" in line and "event kind 'grab' is declared already" in line, line
    assert "the family 'rev' of entry point `rev = war_rev:FAMILY`, package pipeline" in line, line


@pytest.mark.parametrize("declaration, held", [
    (family("mine", events=(*EVENTS, Kind("collect", "again", "again"))), "event kind 'collect' is declared already (war's own)"),
    (family("mine", options=(*OPTIONS, Option("war_down", 1, "again"))),
     "option 'war_down' is declared already (war's built-in family 'table')"),
    (family("mine", variants=(Variant("classic", "x", "x", "x"),)),
     "variant 'classic' is another family's (war's built-in family 'table')"),
])
def test_a_name_war_holds_stays_war_s_and_the_warning_says_whose(monkeypatch, declaration, held):
    left_out(monkeypatch, declaration, held)


# ---------------------------------------------------------------- 5, 6. twice in one family


SNATCH = Kind("snatch", "the seat snatches the table", "seat {seat} snatches {n} cards", source="table",
              target="gains")


@pytest.mark.parametrize("declaration, said", [
    (family("mine", events=(*EVENTS, SNATCH, Kind("snatch", "again", "seat {seat} again"))),
     "event kind 'snatch' is declared twice"),
    (family("mine", options=(*OPTIONS, Option("bad_opt", "low", "h", choices=("low", "high")),
                             Option("bad_opt", 2, "h", minimum=0, maximum=9))),
     "option 'bad_opt' is declared twice"),
    (family("mine", options=(*OPTIONS, "players")), "option 'players' is given twice"),
    (family("mine", decisions=(GRAB, replace(GRAB, chooses="card"))), "decision 'grab' is declared twice"),
    (family("mine", variants=(Variant("mine", "a", "t", "t"), Variant("mine", "b", "t", "t", defaults={"jokers": 2}))),
     "variant 'mine' is declared twice"),
    (family("mine", decisions=(replace(GRAB, policies=(Policy("always", POLICY), Policy("always", POLICY))),)),
     "decision 'grab': policy 'always' is declared twice"),
])
def test_a_part_declared_twice_in_one_family_is_left_out(monkeypatch, declaration, said):
    """A kind twice: every game it wrote failed validation; an option twice: the last won, silently."""
    left_out(monkeypatch, declaration, said)


# ---------------------------------------------------------------- 7, 8. defaults refused


@pytest.mark.parametrize("option, said", [
    (Option("bad_opt", 10, "h", minimum=0, maximum=5), "option 'bad_opt': its default 10 is outside 0..5"),
    (Option("bad_opt", -1, "h", minimum=0), "option 'bad_opt': its default -1 is below its minimum 0"),
    (Option("bad_opt", 7, "h", maximum=5, words=("never",)), "option 'bad_opt': its default 7 is above its maximum 5"),
    (Option("bad_opt", "xyz", "h", pattern=r"[0-9]+"), "option 'bad_opt': its default 'xyz' does not match"),
    (Option("bad_opt", 3, "h", pattern=r"[0-9]+"), "option 'bad_opt': only a text option takes a pattern"),
    (Option("bad_opt", "a", "h", pattern=r"(?=a)a"), "option 'bad_opt': its pattern is not one war's validation reads"),
    (Option("bad_opt", 1, "h", minimum=5, maximum=2), "option 'bad_opt': its minimum 5 is above its maximum 2"),
])
def test_an_option_whose_own_values_refuse_its_default_is_left_out(monkeypatch, option, said):
    """Its games were generated at bad_opt=10 while `--set bad_opt=10` was refused."""
    left_out(monkeypatch, family("mine", options=(*OPTIONS, option)), said)


@pytest.mark.parametrize("option, said", [
    (Option("slap_order", "after_winner", "h", choices=("after_winner", "seat", "bad value", "")),
     "option 'slap_order': its choices 'bad value', '' are not words (letters, digits and _ . : + -"),
    (Option("slap_order", "seat", "h", choices=("seat", "a=b")), "option 'slap_order': its choice 'a=b' is not a word"),
    (Option("slap_order", "seat", "h", choices=("seat", "tab\there")), "its choice 'tab\\there' is not a word"),
    (Option("slap_order", "seat", "h", choices=("seat", 2)), "option 'slap_order': its choice 2 is not a word"),
    (Option("slap_order", "seat", "h", choices=()), "option 'slap_order': its choices are empty"),
    (Option("hand", 0, "h", choices=()), "option 'hand': its choices are empty"),
    (Option("hand", 0, "h", choices=(0, "three")), "option 'hand': its choice 'three' is not an integer"),
    (Option("slap_order", "seat", "h", choices=("seat", "after_winner", "seat")),
     "option 'slap_order': its choices name 'seat' twice"),
    (Option("hand", 0, "h", choices=(0, 1, 1)), "option 'hand': its choices name 1 twice"),
])
def test_an_option_s_choices_are_words_a_rule_set_carries(monkeypatch, option, said):
    """Hostile pass D: `choices=("after_winner", "seat", "bad value", "")` was accepted (`""`
    cannot be given to --set, and the rule set was named `slap slap_order=bad value`, which
    splits at the space), and `choices=()` silently let the option take any text."""
    line = left_out(monkeypatch, family("mine", options=(*OPTIONS, option)), said)
    assert line.count("option ") == 1, line


def test_choices_of_words_and_an_integer_s_words_join():
    reg_ok = [Option("slap_order", "seat", "h", choices=("seat", "after_winner", "wars:3", "x-1.5+")),
              Option("hand", 0, "h", choices=(0, 3, "all"), words=("all",)), Option("free", "any", "h")]
    assert [o.problems() for o in reg_ok] == [[], [], []]


def test_the_values_an_option_takes_are_those_the_rule_set_takes():
    """Option.refuses says what the rule set's model refuses, no more, no less: its field and
    its check of integers (model.rule_set), in a model of the option alone. Of a value not of
    the option's type (a text for an integer) it is stricter than the model, which turns "3"
    into 3: a declaration gives its values as they are."""
    from pydantic import BaseModel, ValidationError, create_model

    from pipeline.model.rule_set import _checked, _field

    cases = [(Option("n", 1, "h", minimum=0, maximum=5), [0, 5, 6, -1, "3", True]),
             (Option("n", 1, "h", choices=(1, 3), minimum=2), [1, 2, 3]),
             (Option("n", 1, "h", minimum=0, maximum=5, words=("all",)), [5, 6, "all", "some"]),
             (Option("n", "low", "h", choices=("low", "high")), ["low", "medium", 1]),
             (Option("n", "1", "h", pattern=r"^[0-9]+$"), ["12", "x1", "", 1]),
             (Option("n", "1", "h", pattern=r"[0-9]"), ["a1b", "ab"])]
    for option, values in cases:
        model = create_model("M", __base__=BaseModel, __validators__=_checked({"n": option}), n=_field(option))
        for value in values:
            if isinstance(value, bool) or (isinstance(value, int) != option.integer and value not in option.words):
                assert option.refuses(value) is not None, (option, value)
                continue
            try:
                model.model_validate({"n": value}, strict=None)
                taken = True
            except ValidationError:
                taken = False
            assert (option.refuses(value) is None) == taken, (option, value, option.refuses(value))


@pytest.mark.parametrize("variant, said", [
    (Variant("badv", "B", "t", "t", defaults={"bad_opt": "medium"}),
     "variant 'badv': its default bad_opt='medium' is not one of its choices (low, high)"),
    (Variant("badv", "B", "t", "t", defaults={"players": 9}), "variant 'badv': its default players=9 is outside 2..8"),
    (Variant("badv", "B", "t", "t", fixed_players=3), "variant 'badv': it is played by exactly 3 players"),
    (Variant("badv", "B", "t", "t", standard_deck=True, defaults={"ranks": 5}),
     "variant 'badv': it is played with the standard deck"),
])
def test_a_variant_default_its_option_refuses_is_left_out_when_read(monkeypatch, variant, said):
    """`war variants` failed for every family: "error: rule set 'badv': bad_opt: Input should be 'low' or 'high'"."""
    options = (*OPTIONS, Option("bad_opt", "low", "h", choices=("low", "high")))
    line = left_out(monkeypatch, family("badf", options=options, variants=(variant,)), said)
    assert "badv" in line


# ---------------------------------------------------------------- in `war` processes


def war(site, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def source(name: str, extra: str = "", options: str = "", variant: str = "") -> str:
    """The declaration module of a plugin `war_NAME` (its policy in its own module)."""
    return f'''
from pipeline.model.family import Decision, Family, Kind, Option, Policy, Variant
FAMILY = Family("{name}", "{ENGINE}",
    options=("players", "jokers", "war_down", "pickup", "ranks", "suits", "win", "max_battles"{options}),
    variants=(Variant("{name}", "{name} War", "the test", "Classic War again."{variant}),),
    events=("deal", "set_aside", "play", "down", "war", "war_out", "forfeit", "collect", "reshuffle", "out", "end"{extra}))
'''


GRABS = (', "decision", Kind("grab", "the seat grabs", "seat {seat} grabs {n} cards", source="table", target="gains")),'
         '\n    decisions=(Decision("grab", "seats", "seat {seat} [[seats?grabs|does not]]", "grab?", '
         f'(Policy("always", "{POLICY}"),), "always"),')


def test_a_second_plugin_that_takes_a_name_leaves_both_out_saying_both(tmp_path):
    """The repro: war_rev plays; war_bad, installed beside it, declares the same kind and
    decision. Both are left out, each warning naming the other's entry point and package; a
    dataset of war_rev's says it is installed but left out, and why."""
    site = installed(tmp_path / "site", {"rev": "war_rev:FAMILY"},
                     {"war_rev/__init__.py": source("rev", GRABS), "war_bad/__init__.py": source("bad", GRABS)})
    data = tmp_path / "d"
    made = war(site, "generate", "-v", "rev", "--games", "2", "--out", data)
    assert made.returncode == 0, made.stderr
    (site / "war_test_plugins-1.0.dist-info" / "entry_points.txt").write_text(
        "[war.families]\nrev = war_rev:FAMILY\nbad = war_bad:FAMILY\n", encoding="utf-8")
    run = war(site, "replay", data, "0")
    assert run.returncode == 2 and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    warned = {line.split("`")[1].split(" = ")[0]: line for line in lines if "is left out" in line}
    assert set(warned) == {"rev", "bad"}, lines
    assert "the family 'bad' of entry point `bad = war_bad:FAMILY`, package war_bad" in warned["rev"], warned
    assert "the family 'rev' of entry point `rev = war_rev:FAMILY`, package war_rev" in warned["bad"], warned
    assert all("event kind 'grab'" in line for line in warned.values()), warned
    assert "installed but left out" in lines[-1] and "war_bad" in lines[-1], lines


CHECKY = source("checky", options=', Option("bad_opt", 1, "h", minimum=0, maximum=5, check=lambda r: 1 / 0)')


def test_an_option_check_that_raises_is_the_plugin_s_error(tmp_path):
    """It ended `internal error: ZeroDivisionError`, exit 1, as if war's. Playing its variant is
    the plugin's error; `war variants` lists every other family and says this one's variant is
    left out, naming the error (it had stopped the list of every family: hostile-j 13)."""
    site = installed(tmp_path / "site", {"checky": "war_checky:FAMILY"}, {"war_checky.py": CHECKY})
    run = war(site, "generate", "-v", "checky", "--games", "1", "--out", str(tmp_path / "d"))
    lines = run.stderr.splitlines()
    assert run.returncode == 2 and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert lines[-1].startswith("error: plugin family 'checky': the check of its option 'bad_opt'"), lines
    assert "ZeroDivisionError" in lines[-1] and "the error is the plugin's (war_checky), not war's" in lines[-1], lines
    for args in (["variants"], ["variants", "--details"]):
        run = war(site, *args)
        assert run.returncode == 0 and "classic" in run.stdout and "checky" not in run.stdout, run.stderr
        said = [line for line in run.stderr.splitlines() if "'checky'" in line]
        assert len(said) == 1 and "left out of the list" in said[0] and "ZeroDivisionError" in said[0], run.stderr


def test_war_variants_goes_on_past_a_plugin_whose_defaults_are_refused(tmp_path):
    """A variant default its option refuses is said when the family is read; a variant whose
    defaults an option's check refuses is left out of the list, saying so; the others are listed."""
    site = installed(tmp_path / "site", {"badf": "war_badf:FAMILY", "picky": "war_picky:FAMILY"}, {
        "war_badf.py": source("badf", options=', Option("bad_opt", "low", "h", choices=("low", "high"))',
                              variant=', defaults={"bad_opt": "medium"}'),
        "war_picky.py": source("picky", options=', Option("picky_opt", 1, "h", minimum=0, maximum=5, '
                                                'check=lambda r: "picky refuses its own defaults")'),
    })
    run = war(site, "variants")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert "classic" in run.stdout and "picky" not in run.stdout and "badf" not in run.stdout, run.stdout
    lines = run.stderr.splitlines()
    badf = [line for line in lines if "`badf = war_badf:FAMILY` is left out" in line]
    assert len(badf) == 1 and "its default bad_opt='medium' is not one of its choices" in badf[0], lines
    picky = [line for line in lines if "'picky'" in line]
    assert len(picky) == 1 and "left out of the list" in picky[0] and "`picky = war_picky:FAMILY`" in picky[0], lines
    assert "picky refuses its own defaults" in picky[0], lines
