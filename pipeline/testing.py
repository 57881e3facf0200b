"""The conformance kit: what war checks of a family, for a plugin to run in its own pytest
(docs/plugins.md, "Test it"). war's own conformance suite (tests/test_conformance.py) runs the
same checks on every installed family.

    # tests/test_conformance.py of a plugin's project
    from pipeline.plugin import testing

    testing.install(Path(__file__).resolve().parent.parent)   # unless pip installed it already

    def test_cards_replay_and_regenerate(): testing.check_games("mine")
    def test_validation_catches_tampers(tmp_path): testing.check_tampers("mine", tmp_path)
    def test_golden(): testing.check_golden("mine")
    def test_drawn_never_cycle(): testing.check_drawn_never_cycle("mine")

or all of them at once, `testing.check_family("mine", tmp_path)`. Each check raises an
AssertionError saying the variant, the options and the game. The cases are drawn from the
family's declaration (`cases`): its variants at their defaults, then every option each takes,
one at a time, at each of its declared values (choices, words, a range's ends, a pattern's
shortest strings): no hand-written grid, so an option a plugin adds is played at once.

This module imports nothing of war's until a check runs, so `install` can come first, before
anything reads war's registry of families.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

GAMES = 8  # random games per case
SEED = 99
MOST_PLAYED = 64  # a range's maximum is played when at most this
TAMPER_GAMES = 16  # games of each variant written and validated, whose events are tampered with


# ---------------------------------------------------------------- installing a project as pip would


def install(project: str | Path) -> bool:
    """A plugin's project folder (its pyproject.toml beside its package) installed as `pip
    install` would install it, for this process and (PYTHONPATH) the processes it starts: its
    folder on the path and its entry points in a dist-info folder beside it, removed at exit.
    Nothing when its entry points are installed already. Call it before anything reads war's
    registry (the first rule set built). Whether it installed."""
    from importlib.metadata import entry_points

    project = Path(project).resolve()
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = meta.get("entry-points", {})
    if all(any(ep.name == name for ep in entry_points(group=group)) for group, points in groups.items()
           for name in points):
        return False
    site = Path(tempfile.mkdtemp(prefix=f"{meta['name']}-site-"))
    atexit.register(shutil.rmtree, site, True)
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items()) + "\n"
        for group, points in groups.items()), encoding="utf-8")
    sys.path[:0] = [str(project), str(site)]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project), str(site), os.environ.get("PYTHONPATH")]))
    return True


# ---------------------------------------------------------------- a family by its name


def _family(name: str):
    """The installed family `name`; a RulesError saying why there is none (model.families'
    family_named), imported when a check runs, as everything of war's here is."""
    from .model.families import family_named

    return family_named(name)


# ---------------------------------------------------------------- the cases, from the declaration


def _shortest(pattern: str) -> list[str]:
    """The shortest strings of each top-level alternative of a regular expression (`^(all_cards|
    wars:[1-9][0-9]{0,8})$` gives all_cards and wars:1); [] for one it cannot say."""
    import re._parser as parser  # noqa: PLC0415  (the standard library's own parser)
    from re._constants import ANY, AT, BRANCH, IN, LITERAL, MAX_REPEAT, MIN_REPEAT, RANGE, SUBPATTERN

    def one(items) -> list[str]:
        outs = [""]
        for op, arg in items:
            if op is LITERAL:
                outs = [o + chr(arg) for o in outs]
            elif op is AT:
                continue
            elif op is IN:
                first = next(((o, a) for o, a in arg if o in (LITERAL, RANGE)), None)
                if first is None:
                    return []
                outs = [o + chr(first[1] if first[0] is LITERAL else first[1][0]) for o in outs]
            elif op is ANY:
                outs = [o + "x" for o in outs]
            elif op in (MAX_REPEAT, MIN_REPEAT):
                low, _, sub = arg
                inner = one(sub)
                if not inner and low:
                    return []
                outs = [o + (inner[0] * low if low else "") for o in outs]
            elif op is SUBPATTERN:
                inner = one(arg[-1])
                outs = [o + i for o in outs for i in inner]
            elif op is BRANCH:
                outs = [o + i for o in outs for branch in arg[1] for i in one(branch)]
            else:
                return []
        return outs

    try:
        return [s for s in one(parser.parse(pattern)) if re.fullmatch(pattern, s)]
    except Exception:
        return []


def option_values(option, default=None) -> list:
    """The values an option is played at besides its default (`default`: a variant's own, else
    the option's), from its declaration: every choice and word; an integer range's minimum, the
    one above it, the one above the default and the option's own default (within its maximum),
    and its maximum where that is small (MOST_PLAYED: eight seats are played, a deck of a
    thousand ranks is not); a text pattern's shortest strings."""
    default = option.default if default is None else default
    values: list = []
    if option.choices:
        values += list(option.choices)
    elif option.integer:
        low = option.minimum if option.minimum is not None else option.default - 1
        values += [low, low + 1, option.default, _number(default, option.default) + 1]
        if option.maximum is not None:
            values = [min(v, option.maximum) for v in values] + ([option.maximum] if option.maximum <= MOST_PLAYED else [])
    elif option.pattern:
        values += _shortest(option.pattern)
    values += list(option.words)
    seen: list = []
    for v in values:
        if str(v) != str(default) and v not in seen:
            seen.append(v)
    return seen


def _number(value, otherwise: int) -> int:
    """A variant's default of an integer option as a number (a word such as `by_rank`: the option's)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return otherwise


def cases(family: str) -> list[tuple[str, dict]]:
    """Every variant of the family at its defaults, then with each option it takes set to each of
    option_values (besides the variant's own default), one option at a time: (variant, {option:
    value as text})."""
    from .model.families import registry

    reg = registry()
    fam = _family(family)
    out = []
    for variant in fam.variants:
        out.append((variant.name, {}))
        for name in variant.options or fam.option_names:
            for value in option_values(reg.options[name], variant.defaults.get(name)):
                out.append((variant.name, {name: str(value)}))
    return out


def seatings(family: str, players: int) -> list[tuple[str, ...]]:
    """Each policy of each of the family's decisions at every seat, one that takes a parameter
    at two values of it (parameter_values), then each profile at every seat: the seatings
    check_games plays beside the defaults."""
    fam = _family(family)
    out = [(f"{d.name}:{p.name}" + (f":{value}" if p.parameter else ""),) * players
           for d in fam.decisions for p in d.policies
           for value in (parameter_values(p) if p.parameter else (None,))]
    return out + [(profile,) * players for profile in fam.profiles]


def parameter_values(policy) -> tuple[int, ...]:
    """Two values at which the kit plays a policy that takes a parameter (`high:N`): 1 and 3,
    or the first two from 0 up to 20 its maker takes, where it refuses those (a rank from 2, a
    pile size from 5); none taken, 1, so that its maker's own error is what the kit says. A
    declaration says what its parameter means in words only, so the kit cannot know its range."""
    taken = []
    for value in (1, 3, 0, 2, *range(4, 21)):
        try:
            policy.make(str(value))
        except Exception:  # noqa: BLE001 - a maker's refusal of this value, whatever it raises
            continue
        taken.append(value)
        if len(taken) == 2:
            break
    return tuple(sorted(taken)) or (1,)


def case_id(case: tuple[str, dict]) -> str:
    variant, options = case
    return variant + "".join(f"-{k}={v}" for k, v in options.items())


def playable(case: tuple[str, dict]):
    """The case's rule set, or None when its declaration refuses the combination (a RulesError)."""
    from .errors import RulesError
    from .model.rules import build_rules

    try:
        return build_rules(*case)
    except RulesError:
        if not case[1]:
            raise
        return None


# ---------------------------------------------------------------- one game, for rules worked out by hand


def play(variant: str, options: dict | None = None, seed: int = 1, piles=None, policies=()):
    """One game of `variant` with `options` (values as `--set` takes them): of `seed`, or of an
    explicit deal (`piles`, each seat's cards top first as labels such as "10H", "AS", "JK1"; every
    other card set aside), later random orders drawn from `seed`. Its events (each with battle,
    kind, seat, cards, seats, options, value, note) and its summary."""
    from .engines.game import play_game
    from .model.deal import check_deal, deck_of
    from .model.rules import build_rules

    rules = build_rules(variant, {k: str(v) for k, v in (options or {}).items()})
    deal = None
    if piles is not None:
        deck = deck_of(rules)
        codes = [[deck.parse(c) if isinstance(c, str) else c for c in pile] for pile in piles]
        used = {c for pile in codes for c in pile}
        deal = check_deal(rules, codes, [c for c in range(deck.size) if c not in used])
    events, summary, _ = play_game(rules, seed, deal, policies=policies)
    return events, summary


def label(variant: str, card: int, options: dict | None = None) -> str:
    """A card code's label in the variant's deck ("J♠")."""
    from .model.deal import deck_of
    from .model.rules import build_rules

    return deck_of(build_rules(variant, {k: str(v) for k, v in (options or {}).items()})).label(card)


# ---------------------------------------------------------------- the checks


def check_games(family: str, games: int = GAMES, seed: int = SEED, case_list=None, every_step: int = 3) -> int:
    """For every case: random games keep every card in exactly one place (the ledger, which
    knows only the kinds' declared places: at every step of the first `every_step` games, then
    wherever the table is taken and at the end), end as a game ends (a win under win=all_cards
    leaves the winner every card in play), log only kinds the family declares, replay from the
    log alone to the same summary and regenerate from the seed to the same events. The number
    of cases played."""
    from .engines.families import family_of
    from .engines.game import play_game, replay_log
    from .errors import LogMismatch
    from .log.ledger import ledger_for
    from .model.deal import deck_of
    from .model.event_kinds import BY_NAME
    from .model.rng import game_seed

    settles = {name for name, kind in BY_NAME.items() if kind.takes or kind.role == "ends_game"}
    played = 0
    for case in case_list if case_list is not None else cases(family):
        rules = playable(case)
        if rules is None:
            continue
        played += 1
        size = deck_of(rules).size
        kinds = set(family_of(rules).kind_names)
        # a variant at its defaults also under each policy and profile at every seat: a rule
        # the default policies never reach (a war, where the default takes every tie) is played
        seats = [()] + (seatings(family, rules.players) if not case[1] else [])
        kept = []
        for i, policies in ((i, policies) for policies in seats for i in range(games)):
            where = f"{case_id(case)}{', policies ' + ' '.join(policies) if policies else ''}, game {i} of seed {seed}"
            events, summary, _ = play_game(rules, game_seed(seed, i), policies=policies)
            ledger = ledger_for(rules)
            for seq, ev in enumerate(events):  # seats and cards the game has, then the ledger
                assert ev.seat is None or 0 <= ev.seat < rules.players, f"{where}, seq {seq}: seat {ev.seat}"
                assert all(0 <= s < rules.players for s in ev.seats), f"{where}, seq {seq}: seats {list(ev.seats)}"
                assert all(0 <= c < size for c in ev.cards), f"{where}, seq {seq}: a card that is not the deck's"
                try:
                    ledger.apply(ev)
                except LogMismatch as err:  # said as the kit's own failures are, with the game
                    raise AssertionError(f"{where}, seq {seq}: the cards' places: {err}") from None
                if ev.kind != "deal" and (i < every_step or ev.kind in settles):
                    assert sorted(ledger.places()) == list(range(size)), f"{where}, seq {seq}: a card lost or doubled"
            assert events[-1].kind == "end" and events[-1].note == summary.outcome, where
            if summary.outcome == "win":
                assert events[-1].seat == summary.winner, f"{where}: the end event's winner is not the summary's"
            assert 0 < summary.battles <= rules.max_battles, where  # its outcome and winner: play_game's (summary_wrong)
            assert sum(summary.final_cards) + summary.cards_set_aside == size, where
            if summary.outcome == "win" and rules.wars_to_win is None:
                assert summary.final_cards[summary.winner] == size - summary.cards_set_aside, \
                    f"{where}: a win that leaves cards with another seat"
            assert {ev.kind for ev in events} <= kinds, f"{where}: a kind its family does not declare"
            assert replay_log(rules, events) == summary, f"{where}: replay from the log differs"
            kept.append((where, i, policies, events, summary))
        # regenerated last game first, each from a rule set made again: a hook kept as a table
        # (`strength`, `decides`: asked once a rule set) is asked again, so one that reads the
        # game (its deal), whose games all played the first game's table, plays differently
        for where, i, policies, events, summary in reversed(kept):
            again, summary_again, _ = play_game(playable(case), game_seed(seed, i), policies=policies)
            assert again == events and summary_again == summary, f"{where}: regenerates differently"
    return played


def _tampered(ev, deck_size: int, players: int, before=()):
    """One event changed as a careless or dishonest edit would: its first card another card (a
    deal's, one an earlier deal gave: a card of a later seat's would be named at that later
    deal, where it is seen twice), else its seat another seat, else its value or its seats."""
    if ev.cards:
        earlier = [c for c in before if c not in ev.cards] if ev.kind == "deal" else []
        other = earlier[0] if earlier else next(c for c in range(deck_size) if c not in ev.cards)
        return ev._replace(cards=(other,) + tuple(ev.cards[1:]))
    if ev.seat is not None:
        return ev._replace(seat=(ev.seat + 1) % players)
    if ev.value is not None:
        return ev._replace(value=ev.value + 1)
    if ev.seats:
        return ev._replace(seats=tuple(ev.seats[1:]) or ((ev.seats[0] + 1) % players,))
    return None


def check_tampers(family: str, folder: str | Path, games: int = TAMPER_GAMES, seed: int = 5) -> dict[str, int]:
    """A dataset of every variant of the family at its defaults, written and read back: `war
    validate --deep` finds every game good (each replayed from its log alone: an engine whose
    piles are not what its events say is found there); and for every event kind the family's games log, one event
    of that kind changed (_tampered) makes validation's check of that game name it, at that
    event. The kinds tampered, each with the seq it was named at."""
    from .jobs.generate import Plan, generate
    from .jobs.replay import load_game
    from .jobs.validate import check_game, validate
    from .model.deal import deck_of
    from .model.rules import build_rules
    from .model.schema import GAME_ID_STRIDE
    from .storage.dataset import Dataset

    variants = [v.name for v in _family(family).variants]
    root = Path(folder) / f"{family}-tampers"
    generate(root, [Plan(build_rules(v), games) for v in variants], seed=seed, shard_size=games)
    report = validate(root, deep=True)
    assert report.ok and report.good == games * len(variants), [str(p) for p in report.problems[:3]]
    ds = Dataset.open(root)
    named: dict[str, int] = {}
    for ordinal in range(len(variants)):
        for index in range(games):
            gid = ordinal * GAME_ID_STRIDE + index
            entry, record, log = load_game(ds, gid)
            size, n = deck_of(entry.rules).size, entry.rules.players
            for kind in sorted({ev.kind for ev in log} - set(named)):
                seq = [i for i, ev in enumerate(log) if ev.kind == kind][len([e for e in log if e.kind == kind]) // 2]
                bad = _tampered(log[seq], size, n, [c for e in log[:seq] if e.kind == "deal" for c in e.cards])
                if bad is None:
                    continue
                changed = log[:seq] + [bad] + log[seq + 1:]
                problem = check_game(entry, ds.manifest.master_seed, gid, record, list(enumerate(changed)))
                assert problem is not None, f"game {gid}: a changed {kind} event (seq {seq}) passes validation"
                assert problem.seq == seq, f"game {gid}: a changed {kind} event (seq {seq}) is named at {problem}"
                named[kind] = seq
    logged = {kind for ordinal in range(len(variants)) for index in range(games)
              for kind in (ev.kind for ev in load_game(ds, ordinal * GAME_ID_STRIDE + index)[2])}
    assert set(named) == logged, f"kinds no tamper was tried on: {sorted(logged - set(named))}"
    return named


def check_golden(family: str) -> list[str]:
    """Every variant of the family has its golden playthroughs (Family.golden) and its games
    still play them: a change that alters them fails until they are written again, deliberately,
    with the command their second line says. The variants checked."""
    from .golden import golden_dir, golden_text, regenerate_command
    from .model.families import registry

    fam = _family(family)
    assert fam.golden or fam.name in registry().built_in, (
        f"family {family!r} declares no folder of golden playthroughs: give Family(..., golden=\"golden\"), "
        f"a folder beside its declaration, then run python -m pipeline.golden {family} --out <that folder>")
    checked = []
    for variant in (v.name for v in fam.variants):
        path = golden_dir(variant) / f"{variant}.txt"
        assert path.exists(), f"no golden playthrough for {variant}: run {regenerate_command(variant)}"
        assert golden_text(variant) == path.read_text(encoding="utf-8"), \
            f"{variant}'s games changed: read the diff of {regenerate_command(variant)}"
        checked.append(variant)
    return checked


def check_drawn_never_cycle(family: str, games: int = GAMES, seed: int = SEED, max_battles: int = 3000) -> list[str]:
    """A game in which a seat plays a randomized policy is never a cycle: for every randomized
    policy of the family's decisions, every variant plays games under a fixed pickup order (where
    positions can repeat), that policy at every seat, and none ends as a cycle (an engine that
    says `cycle` all the same is refused by war: a PluginError). The policies played."""
    from .engines.game import play_game
    from .model.rng import game_seed

    fam = _family(family)
    drawn = [f"{d.name}:{p.name}" for d in fam.decisions for p in d.policies if p.randomized and not p.parameter]
    for variant in fam.variants:
        takes = variant.options or fam.option_names
        options = {"max_battles": str(max_battles)} if "max_battles" in takes else {}
        if "pickup" in takes:
            options["pickup"] = "table_order"
        rules = playable((variant.name, options)) or playable((variant.name, {}))
        for policy in drawn:
            for i in range(games):
                _, summary, _ = play_game(rules, game_seed(seed, i), policies=(policy,) * rules.players)
                assert summary.outcome != "cycle", f"{variant.name}, {policy} at every seat, game {i}: a cycle"
    return drawn


def check_family(family: str, folder: str | Path) -> None:
    """Every check of the kit on one family (`folder`: where its test dataset is written)."""
    check_games(family)
    check_tampers(family, folder)
    check_golden(family)
    check_drawn_never_cycle(family)
