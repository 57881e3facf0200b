"""No module of pipeline/ outside the family folders knows a family by name (issue 52, item 5):
war reads what a family brings from its declaration (model.family.Family), so a module that
spells a family's variant, kind or note is a reader that a new family would pass by.

The names: every installed family's variant names, the names of the kinds it declares itself (a
Kind of its own, not a kind it names from war or from another family) and its notes (its
decisions' names and its own kinds' notes), read from the registry (model.families).

Where: every `.py` module under pipeline/ but those of a family's folder (the folder of its
declaration: pipeline/engines/table/, steal/, arneson/), in code: each identifier, split at `_`
(`KIND_STEAL` is KIND and STEAL) and case aside, and each word of a string literal (accents
aside: `Război` is razboi). Comments and docstrings are prose, not searched: a docstring that
names a built-in as its example (`Steal War's steal and top`) tells a reader what a general rule
does and changes nothing the code does. The other files under pipeline/ (the SQL, the pages'
templates and scripts) are searched whole, for the words a page or a view would act on.

Considered rules, for words that are not a family's alone:

1. War's own vocabulary. A name that is also one of war's own words is plain core vocabulary
   as well, and a word search cannot tell its senses apart: an outcome (`draw`), one of war's
   own kinds (model.kind.CORE), a core option or one of its values (`jokers`, the option, is
   also the variant War with Jokers), a place a kind moves cards between (model.kind.PLACES:
   `top`, `hand`). Such a name is searched only in the forms that can mean the family's alone:
   a code named after it (`KIND_DRAW`, `NOTE_HAND`); a literal compared with something that
   names a kind, a note, a decision or a variant (`note != "hand"`, `event.kind == "draw"`);
   a literal looked up in, or passed to, something that names kinds, notes, decisions or
   variants (`NOTES.index("hand")`, `kind_code("draw")`, `registry().decisions["top"]`,
   `build_rules("jokers")`).
2. War's default variant (`classic`: the first `war variants` lists, the variant a command
   plays when none is named, warm-ups' and the demo's rule set, the report's reference for
   comparing variants) is war's own word: allowed.
3. A dotted reference into a family's folder (`"pipeline.engines.steal:FAMILY"`, the registry's
   list of the built-in declarations, which stands for their entry points) says where the
   family is, not what it plays: allowed.
4. A family that is not built in (an installed plugin) is searched in rule 1's forms only: war
   was not written knowing it, and a plain word of its own may be one of war's.

PENDING lists, by file and word, what is still there in files outside this work's hands; an
entry that is no longer found fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.model.families import CORE_OPTIONS, registry
from pipeline.model.family import Kind
from pipeline.model.kind import CORE, PLACES
from pipeline.model.schema import OUTCOMES

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"
WORD = re.compile(r"[A-Za-z0-9]+")
# What names kinds, notes, decisions or variants (rule 1), by the end of its name.
NAMERS = ("kind", "kinds", "note", "notes", "decision", "decisions", "variant", "variants", "by_name")
CALLS = ("kind_code", "note_code", "build_rules", "template", "kind")

# Where a name still is, in a file this work does not edit (issue 52, item 5): (file, word): why.
PENDING: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Name:
    word: str      # lowercase, as searched
    what: str      # `variant of steal`, `kind of arneson`...
    generic: bool  # searched in rule 1's forms only
    family: str = ""


def _plain(text: str) -> str:
    """Lowercase, accents aside."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


def core_words() -> set[str]:
    """War's own vocabulary (rule 1)."""
    words = set(OUTCOMES) | {k.name for k in CORE} | set(PLACES)
    for option in CORE_OPTIONS:
        words.add(option.name)
        words |= {str(c) for c in option.choices}
    return {_plain(w) for w in words}


def default_variant() -> str:
    return next(iter(registry().variants))


def family_names() -> list[Name]:
    """Every installed family's variant, kind and note names (the module's docstring)."""
    reg, core = registry(), core_words()
    out = []
    for family in reg.families.values():
        built_in = family.name in reg.built_in
        named = [(v.name, "variant") for v in family.variants]
        own = [k for k in family.events if isinstance(k, Kind)]
        named += [(k.name, "kind") for k in own]
        named += [(d.name, "note") for d in family.decisions] + [(n, "note") for k in own for n in k.notes]
        whats: dict[str, list[str]] = {}
        for word, what in named:
            if _plain(word) != default_variant():  # rule 2
                whats.setdefault(_plain(word), []).append(what)
        out += [Name(word, f"{', '.join(dict.fromkeys(what))} of {family.name}", word in core or not built_in,
                     family.name) for word, what in whats.items()]
    return out


def family_folders() -> list[Path]:
    """The folders of the installed families' declarations under pipeline/: each a package of
    its own (its `__init__.py` declares it)."""
    out = []
    for family in registry().families.values():
        path = Path(importlib.import_module(family.module.partition(":")[0]).__file__).resolve()
        if path.name == "__init__.py" and path.parent.is_relative_to(PACKAGE) and path.parent != PACKAGE:
            out.append(path.parent)
    return out


def family_packages() -> tuple[str, ...]:
    return tuple(f.module.partition(":")[0] for f in registry().families.values())


def searched_files() -> list[Path]:
    folders = family_folders()
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix in (".py", ".sql", ".js", ".html")
                  and not any(p.is_relative_to(f) for f in folders))


def _words(text: str) -> set[str]:
    """The words of an identifier or a literal: split at `_` and at anything not a letter or
    digit, lowercase, accents aside."""
    return {w for w in WORD.findall(_plain(text))}


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def _is_reference(text: str, packages: tuple[str, ...]) -> bool:
    """A dotted reference into a family's folder (rule 3)."""
    ref = text.strip("'\"")
    return bool(re.fullmatch(r"[\w.]+(:[\w.]+)?", ref)) and any(
        ref == p or ref.startswith((p + ".", p + ":")) for p in packages if "." in p)


def _ident(node: ast.AST) -> str:
    """The name a node reads by (`note`, `event.kind` as kind, `row["kind"]` as kind)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call):
        return _ident(node.func)
    return ""


def _names(node: ast.AST) -> bool:
    """Whether a node names kinds, notes, decisions or variants (rule 1): `kind`, `event.kind`,
    `row["note"]`, `EVENT_KINDS`, `registry().decisions`, `VARIANTS`, `KIND_BY_NAME`."""
    name = _ident(node).lower()
    return name.rpartition("_")[2] in NAMERS or name.endswith("by_name")


def _literals(node: ast.AST) -> list[ast.Constant]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _read_as_names(tree: ast.AST) -> list[ast.Constant]:
    """The literals rule 1 searches: compared with, looked up in or passed to what names kinds,
    notes, decisions or variants."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names(s) for s in sides):
                out += [c for s in sides for c in _literals(s)]
        elif isinstance(node, ast.Subscript) and _names(node.value):
            out += _literals(node.slice)
        elif isinstance(node, ast.Call):
            func = node.func
            if _ident(func) in CALLS or (isinstance(func, ast.Attribute) and _names(func.value)):
                out += [c for a in node.args for c in _literals(a)]
    return out


def found_in_python(path: Path, names: list[Name], packages: tuple[str, ...]) -> list[tuple[int, Name, str]]:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    prose = _docstring_lines(tree)
    plain = {n.word: n for n in names if not n.generic}
    generic = {n.word: n for n in names if n.generic}
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            words = _words(tok.string)
            parts = _plain(tok.string).split("_")
            if len(parts) == 2 and parts[0] in ("kind", "note") and parts[1] in generic:
                out.append((tok.start[0], generic[parts[1]], tok.string))
        elif tok.type == tokenize.STRING and tok.start[0] not in prose:
            if _is_reference(tok.string.lstrip("rbfuRBFU"), packages):
                continue
            words = _words(tok.string)
        else:
            continue
        out += [(tok.start[0], plain[w], tok.string) for w in sorted(words & plain.keys())]
    for const in _read_as_names(tree):
        word = _plain(const.value)
        if word in generic:
            out.append((const.lineno, generic[word], repr(const.value)))
    once = {(line, name) for line, name, _ in out}
    return [(line, name, lines[line - 1].strip()) for line, name in sorted(once, key=lambda x: (x[0], x[1].word))]


def found_in_text(path: Path, names: list[Name]) -> list[tuple[int, Name, str]]:
    plain = {n.word: n for n in names if not n.generic}
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        out += [(number, plain[w], line.strip()) for w in sorted(_words(line) & plain.keys())]
    return out


def findings() -> dict[tuple[str, str], list[str]]:
    """Every name found, by (file, word): the lines, `file:line: word (what): the line`."""
    names, packages = family_names(), family_packages()
    out: dict[tuple[str, str], list[str]] = {}
    for path in searched_files():
        where = path.relative_to(PACKAGE.parent).as_posix()
        found = found_in_python(path, names, packages) if path.suffix == ".py" else found_in_text(path, names)
        for line, name, text in found:
            out.setdefault((where, name.word), []).append(f"{where}:{line}: {name.word} ({name.what}): {text}")
    return out


def test_no_module_outside_the_family_folders_names_a_family():
    found = findings()
    wrong = [line for key, lines in found.items() if key not in PENDING for line in lines]
    assert not wrong, "a family's name outside its folder:\n" + "\n".join(wrong)


def test_every_pending_name_is_still_there():
    """PENDING only shrinks: an entry whose name is gone from its file is to be dropped."""
    gone = [f"{file}: {word}" for file, word in PENDING if (file, word) not in findings()]
    assert not gone, "no longer found, drop from PENDING: " + ", ".join(gone)


# ---------------------------------------------------------------- the search itself

@pytest.fixture
def names():
    return [Name("steal", "variant of steal", False), Name("razboi", "variant of table", False),
            Name("hand", "note of arneson", True), Name("draw", "kind of arneson", True)]


@pytest.mark.parametrize("code, word", [
    ("KIND_STEAL = 3\n", "steal"),
    ("x = rules.variant != 'steal'\n", "steal"),
    ("SHOWS = {'razboi_war_sizes': 'Război\\'s war sizes'}\n", "razboi"),
    ("def f(steal_count):\n    return steal_count\n", "steal"),
    ("ok = note != 'hand'\n", "hand"),
    ("ok = event.kind in ('draw', 'play')\n", "draw"),
    ("NOTE_HAND = NOTES.index('hand')\n", "hand"),
    ("code = kind_code('draw')\n", "draw"),
    ("d = registry().decisions['hand']\n", "hand"),
])
def test_the_search_finds_a_name_in_code(tmp_path, names, code, word):
    path = tmp_path / "m.py"
    path.write_text(code, encoding="utf-8")
    assert word in {n.word for _, n, _ in found_in_python(path, names, ("pipeline.engines.steal",))}


@pytest.mark.parametrize("code", [
    '"""Steal War\'s `steal` and `top` decisions; a hand."""\n',
    "# the steal decision\nx = 1\n",
    "REF = 'pipeline.engines.steal:FAMILY'\n",
    "size = hands.hand_size[s]\nOUTCOME_DRAW = OUTCOMES.index('draw')\n",
    "label = f\"seat {seat}'s hand\"\nshare = row['draw_share']\n",
    "outcome = 'win' if left else 'draw'\n",
    "stealing = 1\n",
])
def test_the_search_leaves_prose_references_and_core_words(tmp_path, names, code):
    path = tmp_path / "m.py"
    path.write_text(code, encoding="utf-8")
    assert found_in_python(path, names, ("pipeline.engines.steal",)) == []


def test_the_names_are_read_from_the_declarations():
    """Every built-in family brings names, the generic ones by rule 1 and the default by rule 2."""
    by_word = {n.word: n for n in family_names()}
    reg = registry()
    for family in reg.families.values():
        for v in family.variants:
            assert _plain(v.name) in by_word or v.name == default_variant()
        for d in family.decisions:
            assert d.name in by_word
    core = core_words()
    assert all(n.generic == (n.word in core) for n in by_word.values() if n.family in reg.built_in)
    assert {"steal", "arneson", "razboi", "multiplayer"} <= {n.word for n in by_word.values() if not n.generic}
