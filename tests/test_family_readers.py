"""Readers know a family only by its declaration, and war's own lists are found, not written by
hand: the commands are the modules of pipeline/cli that define them; the words said of an
option's value are the option's (Option.said); a family's charts are those it declares
(Family.charts), resolved when the registry reads it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pipeline.cli as cli


def _defines_a_command(path: Path) -> bool:
    """Whether a module's source decorates a function with `app.command` (typer's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command"
               for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) for d in node.decorator_list)


def test_the_commands_are_the_modules_that_define_them():
    folder = Path(cli.__file__).parent
    defining = {p.stem for p in folder.glob("*.py") if _defines_a_command(p)}
    assert set(cli.command_modules()) == defining
    app = cli.app  # every command module loaded, each registering its own
    registered = {c.callback.__module__.rpartition(".")[2] for c in app.registered_commands}
    assert registered == defining
    for name in defining:  # each module's commands are on the app
        module = importlib.import_module(f"pipeline.cli.{name}")
        own = {f for f in vars(module).values() if getattr(f, "__module__", None) == module.__name__ and callable(f)}
        assert any(c.callback in own for c in app.registered_commands), name


def test_a_new_command_module_is_a_command(tmp_path, monkeypatch):
    """A module dropped into the package is found without a list naming it."""
    folder = Path(cli.__file__).parent
    monkeypatch.setattr(cli, "__path__", [*cli.__path__, str(tmp_path)])
    (tmp_path / "hello.py").write_text("from pipeline.cli.app import app\n\n@app.command()\ndef hello():\n    pass\n")
    assert "hello" in cli.command_modules()
    assert "app" not in cli.command_modules() and "__main__" not in cli.command_modules()
    assert set(cli.command_modules()) - {"hello"} == {p.stem for p in folder.glob("*.py") if _defines_a_command(p)}


# ------------------------------------------------------------------------- words of option values

from dataclasses import replace  # noqa: E402

from pipeline.model import words  # noqa: E402
from pipeline.model.families import registry  # noqa: E402
from pipeline.model.family import Option, wrong_types  # noqa: E402
from pipeline.model.rules import build_rules  # noqa: E402


def _values(option: Option) -> list:
    if option.choices:
        return list(option.choices)
    if option.integer:
        return [option.default, option.minimum or 0, 7, *option.words]
    return [option.default]


def test_a_rule_set_s_description_says_each_option_s_own_words():
    """Every value a variant lets a user set is described by its option's declared words, and
    only they: a variant's unsaid options say nothing."""
    reg = registry()
    for name, variant in reg.variants.items():
        for option in (reg.options[o] for o in variant.options):
            for value in _values(option):
                try:
                    rules = build_rules(name, {option.name: str(value)}).options()
                except Exception:  # a value the rule set refuses (a deck too small, ...)
                    continue
                described = words.describe_rules(rules)
                said = option.saying(rules[option.name])
                if said and option.name not in variant.unsaid:
                    assert said in described.split(", "), (name, option.name, value, described)
        default = build_rules(name).options()
        for o in variant.unsaid:
            said = reg.options[o].saying(default.get(o, reg.options[o].default))
            assert not said or said not in words.describe_rules(default).split(", "), (name, o)


def test_the_words_module_names_no_variant():
    source = Path(words.__file__).read_text(encoding="utf-8")
    for name in set(registry().variants) - set(registry().options):  # `jokers` is an option too
        assert f'"{name}"' not in source and f"'{name}'" not in source, name


def test_an_option_s_words_are_typed():
    assert wrong_types(replace(registry().families["table"], options=(Option("x", 0, "x", said=5),)))
    assert not wrong_types(replace(registry().families["table"],
                                   options=(Option("x", 0, "x", said={1: "one"}), Option("y", 0, "y", said=str))))
    assert Option("x", 0, "x", said={1: "one"}).saying(1) == "one"
    assert Option("x", 0, "x", said={1: "one"}).saying(2) is None
    assert Option("x", 0, "x").saying(0) is None


# ------------------------------------------------------------------------------ a family's charts

import sys  # noqa: E402
import types  # noqa: E402

from pipeline.model import families  # noqa: E402
from pipeline.model.families import _problems, build  # noqa: E402


def _texts(path: Path) -> list[str]:
    """The text constants of a module's code, its docstrings left out, lowercase."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value.lower() for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_the_report_s_charts_name_no_family():
    """The code of the report's own chart modules names no family's variant, by its name or its
    title: a family's charts are found through its declaration."""
    reg = registry()
    names = set(reg.variants) - set(reg.options)  # `jokers` is an option too
    folder = Path(families.__file__).parents[1] / "present" / "charts"
    for path in folder.glob("*.py"):
        texts = _texts(path)
        for name in names:
            assert name not in texts, (path.name, name)
        for variant in reg.variants.values():  # nor their titles (`Steal War: ...`)
            assert not any(variant.title.lower() in t for t in texts), (path.name, variant.title)


def test_a_family_s_charts_are_resolved_when_it_is_read():
    reg = build(outside=False)
    table = reg.families["table"]
    for bad in ("pipeline.engines.table.charts:nothing", "pipeline.engines.no_such:charts", "charts"):
        problems = _problems(replace(table, name="other", variants=(), charts=bad), replace(reg, families={}),
                             "pipeline.engines.table")
        assert any("its charts" in p and bad in p for p in problems), (bad, problems)
    assert not [p for p in _problems(replace(table, name="other", variants=()), replace(reg, families={}),
                                     "pipeline.engines.table") if "charts" in p]
    for family in reg.families.values():  # the built-ins declare theirs, and each names a function
        assert family.charts and callable(families.load(family.charts))


def test_every_family_s_charts_are_drawn_in_turn(monkeypatch):
    """The report draws every declared family's charts, in the registry's order, those with rows
    (not None) alone: a plugin's charts too, without a list in war naming them."""
    from pipeline.present import charts

    module = types.ModuleType("war_test_charts")
    drawn = []

    def mine(data, variant, palette):
        drawn.append(variant)
        return [None, f"{variant}-mine"]

    module.charts = mine
    monkeypatch.setitem(sys.modules, "war_test_charts", module)
    reg = registry()
    plugin = replace(reg.families["table"], name="plugin", charts="war_test_charts:charts")
    fake = replace(reg, families={"plugin": plugin, **{k: replace(f, charts="") for k, f in reg.families.items()}})
    monkeypatch.setattr(families, "registry", lambda outside=True: fake)
    assert charts.family_figures(None, "classic", None) == [None, "classic-mine"]
    assert drawn == ["classic"]
