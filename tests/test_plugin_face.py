"""The plugin face (pipeline/plugin.py): what a plugin family imports, held to a frozen listing
(tests/plugin_face.txt) so that a change to a name or a signature a plugin relies on fails here
first, and is made on purpose (docs/plugins.md says the face). And the hooks do what the face
says: each, overridden alone, changes its rule and nothing else; Trump War (examples/war-trump),
written with them alone, changes no file of pipeline/."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import plugin

ROOT = Path(__file__).resolve().parent.parent
FROZEN = Path(__file__).parent / "plugin_face.txt"


def listing() -> str:
    """Every public name of the face and its signature; the game's hooks, calls and state."""
    lines = []
    for name in sorted(plugin.__all__):
        value = getattr(plugin, name)
        if inspect.ismodule(value):
            lines.append(f"module {name}")
            for fn in sorted(n for n in dir(value) if not n.startswith("_") and inspect.isfunction(getattr(value, n))
                             and getattr(value, n).__module__ == value.__name__):
                lines.append(f"  {name}.{fn}{inspect.signature(getattr(value, fn))}")
        elif inspect.isclass(value):
            lines.append(f"class {name}{inspect.signature(value)}")
        else:
            lines.append(f"{name} = {value!r}")
    game = plugin.TableGame
    for group in ("HOOKS", "CALLS"):
        for method in getattr(plugin, group):
            value = getattr(game, method)
            if not callable(value):  # emit: the recorder's, bound as the game starts
                from pipeline.engines.event import Recorder

                value = getattr(Recorder, method)
            lines.append(f"TableGame.{method}{inspect.signature(value)}")
    lines += [f"TableGame.{name}: state" for name in plugin.STATE]
    return "\n".join(lines) + "\n"


def test_the_face_is_as_frozen():
    """Fails when a name or signature of the face changes: then update docs/plugins.md and, on
    purpose, tests/plugin_face.txt (python tests/test_plugin_face.py writes it)."""
    assert listing() == FROZEN.read_text(encoding="utf-8")


def test_the_game_has_every_hook_call_and_state_the_face_names_and_each_hook_is_documented():
    game = plugin.TableGame
    slots = {s for cls in game.__mro__ for s in getattr(cls, "__slots__", ())}
    assert set(plugin.STATE) <= slots
    for name in plugin.HOOKS:
        assert (getattr(game, name).__doc__ or "").startswith("Hook:"), name
        assert f"`{name}(" in plugin.__doc__, f"the face's docstring does not list {name}"


def test_importing_the_declaration_types_loads_no_engine():
    code = ("import sys; from pipeline.plugin import Family, Kind, Option, Variant, Decision, Policy; "
            "print(sorted(m for m in sys.modules if m.startswith('pipeline.engines')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


class Peace(plugin.TableGame):
    """Peace: the lowest card takes the table (strength alone)."""

    __slots__ = ()

    def strength(self, card):
        return -self.rank[card]


class LoserTakes(plugin.TableGame):
    """The battle's loser (the seat after the winner) takes the table, as it lies."""

    __slots__ = ()

    def collector(self, battle, winner, depth):
        return (winner + 1) % self.n

    def pick_up(self, seat, battle):
        return list(self.table)


class TenBattles(plugin.TableGame):
    """A game of ten battles, won by the seat holding more cards (a draw when even); wars of one
    card down."""

    __slots__ = ()

    def war_size(self, depth, card):
        return 1

    def game_over(self, battle):
        if battle < 10:
            return False
        a, b = self.holding(0), self.holding(1)
        self.summary.outcome, self.summary.winner = ("win", 0 if a > b else 1) if a != b else ("draw", None)
        return True


def play(game, seed: int):
    from pipeline.engines.chance import RandomChance
    from pipeline.engines.event import Recorder
    from pipeline.log.ledger import audit
    from pipeline.model.deal import shuffled_deal
    from pipeline.model.rng import Xoshiro256
    from pipeline.model.rules import build_rules

    rules = build_rules("classic")
    rng = Xoshiro256(seed)
    rec = Recorder()
    summary = game(rules, shuffled_deal(rules, rng), RandomChance(rng), rec).play()
    audit(rec.events, rules)  # every card in one place at every step, whatever the hook
    return rec.events, summary


@pytest.mark.parametrize("seed", range(4))
def test_each_hook_alone_changes_its_rule(seed):
    events, _ = play(Peace, seed)
    plays = {}
    for e in events:
        if e.kind == "play":
            plays.setdefault(e.battle, []).append(e)
        if e.kind == "collect" and len(plays.get(e.battle, ())) == 2:
            a, b = plays[e.battle]
            assert e.seat == (a.seat if a.cards[0] // 4 < b.cards[0] // 4 else b.seat)
    events, _ = play(LoserTakes, seed)
    for e in events:
        if e.kind == "play":
            plays.setdefault(("l", e.battle), []).append(e)
        if e.kind == "collect" and len(plays[("l", e.battle)]) == 2:
            a, b = plays[("l", e.battle)]
            assert e.seat == (b.seat if a.cards[0] // 4 > b.cards[0] // 4 else a.seat)
            assert list(e.cards) == [a.cards[0], b.cards[0]]
    events, summary = play(TenBattles, seed)
    assert summary.battles == 10 and summary.outcome in ("win", "draw")
    assert all(len(e.cards) == 1 for e in events if e.kind == "down")


def test_trump_war_is_written_with_the_face_alone_and_no_file_of_war_names_it():
    """examples/war-trump imports nothing of war but pipeline.plugin, and no file of pipeline/
    names it (its commit changed none)."""
    sources = list((ROOT / "examples" / "war-trump" / "war_trump").rglob("*.py"))
    imports = {m for p in sources for m in re.findall(r"^\s*(?:from|import) (pipeline[\w.]*)", p.read_text(), re.M)}
    assert imports == {"pipeline.plugin"}
    named = [str(p.relative_to(ROOT)) for p in (ROOT / "pipeline").rglob("*")
             if p.is_file() and p.suffix in (".py", ".sql", ".js", ".html", ".css")
             and re.search(r"\btrump", p.read_text(encoding="utf-8"), re.I)]
    assert named == []


@pytest.mark.parametrize("example", ["war-trump", "war-slap"])
def test_each_example_passes_the_kit_in_its_own_pytest(example):
    """Each example's own tests (the kit, and its rules by hand), in its own pytest run, the
    package installed as pip would (its conftest: the kit's install)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests"],
                         capture_output=True, text=True, cwd=ROOT / "examples" / example, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]


if __name__ == "__main__":
    FROZEN.write_text(listing(), encoding="utf-8")
    print(f"wrote {FROZEN}")
