"""Event kinds by role: the readers of the log (the SQL views, replay's text, the replay page's
script, serve's game page, the ledger, the codec) know a kind by what it does (its places, its
role: model.kind), never by its name, so a kind a family declares is read with no change to war.
This test greps them for kind names compared, looked up or listed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pipeline.model.event_kinds import KINDS, NAMES
from pipeline.model.kind import CORE

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
PYTHON_READERS = ["jobs/replay.py", "present/game_page.py", "present/replay_page.py", "log/ledger.py",
                  "log/codec.py", "log/tables.py", "log/invariants.py", "jobs/query/session.py"]
SCRIPT_READERS = ["present/static/replay_view.js", "present/static/replay_game.js"]
SQL_READERS = ["log/events.sql"]
NAMED = set(NAMES) | {k.name for k in CORE}


def _kind_names_in(node: ast.AST) -> list[str]:
    """The kind names among the string constants of an expression (a tuple of them too)."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and n.value in NAMED]


def _of_kinds(node: ast.AST) -> bool:
    """An expression about kinds (`KINDS`, `BY_NAME`, `kind_of`...), not a row's columns."""
    text = ast.unparse(node).lower()
    return "kind" in text or "by_name" in text


def python_kind_names(source: str) -> list[tuple[int, str]]:
    """Kind names a Python reader compares with, lists for `in`, or looks up in what holds kinds
    (KINDS["collect"], BY_NAME.get("war"))."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if any(_of_kinds(part) for part in parts):
                found += [(node.lineno, name) for part in parts for name in _kind_names_in(part)]
        elif isinstance(node, ast.Subscript) and _of_kinds(node.value):
            found += [(node.lineno, name) for name in _kind_names_in(node.slice)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _of_kinds(node.func.value):
            found += [(node.lineno, name) for arg in node.args for name in _kind_names_in(arg)]
    return found


def script_kind_names(source: str) -> list[tuple[int, str]]:
    names = "|".join(sorted(NAMED))
    pattern = re.compile(rf"""(?:[!=]==?\s*["'`]({names})["'`])|(?:["'`]({names})["'`]\s*[!=]==?)|case\s+["'`]({names})["'`]""")
    return [(source.count("\n", 0, m.start()) + 1, next(g for g in m.groups() if g)) for m in pattern.finditer(source)]


def sql_kind_names(source: str) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        code = line.split("--")[0]
        out += [(number, name) for name in re.findall(r"'([a-z_]+)'", code) if name in NAMED]
    return out


@pytest.mark.parametrize("path", PYTHON_READERS + SCRIPT_READERS + SQL_READERS)
def test_a_reader_of_the_log_names_no_kind(path):
    source = (PIPELINE / path).read_text(encoding="utf-8")
    finder = python_kind_names if path.endswith(".py") else script_kind_names if path.endswith(".js") else sql_kind_names
    assert finder(source) == [], f"pipeline/{path} dispatches on kind names"


@pytest.mark.parametrize("finder, source", [
    (python_kind_names, 'if ev.kind == "collect":\n    pass\n'),
    (python_kind_names, 'x = ev.kind in ("play", "down")\n'),
    (python_kind_names, 'k = BY_NAME["war"]\n'),
    (script_kind_names, 'if (e.kind === "decision") x();\n'),
    (sql_kind_names, "SELECT * FROM events WHERE kind = 'collect'\n"),
])
def test_the_grep_finds_a_kind_named(finder, source):
    """The finders above find what they look for (so their silence means something)."""
    assert finder(source)


def test_every_kind_says_what_it_does():
    """Each kind's places and role hold together: a kind that lays cards puts them on the table
    face up or down, one that collects takes the table to a seat, and the roles the readers need
    are each some kind's."""
    roles = {k.role for k in KINDS}
    assert {"starts_war", "decides", "leaves_game", "ends_game"} <= roles
    for k in KINDS:
        assert not k.problems(), k.problems()
        assert not (k.puts and k.takes), k.name
    assert any(k.collects for k in KINDS) and any(k.puts and k.face == "down" for k in KINDS)
