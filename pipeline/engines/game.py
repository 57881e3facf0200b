"""One game, start to end: from a seed (generation, regeneration) or from its log (replay).

Each variant's engine family (engines.families) plays it: its reference engine is a function
`play(rules, deal, chance, recorder, chooser) -> Summary`. The chance gives random orders, the
chooser gives players' decisions: from the generator and the seats' policies when generating,
from the log when replaying.
"""

from __future__ import annotations

import gc
import numbers
from typing import Mapping, Sequence, Union

from ..errors import DealError, LogMismatch, PluginError, RulesError, brief
from ..model.deal import Deal, check_deal, deck_of, shuffled_deal
from ..model.event_kinds import BY_NAME as KINDS
from ..model.event_kinds import with_role
from ..model.families import plugins_fault, registry
from ..model.pickups import PICKUP_ORDERS, PICKUPS_BY_NAME
from ..model.family import Family, wrong_choice
from ..model.schema import OUTCOMES, RuleSet
from .chance import LogChance, StreamChance
from .event import CheckingRecorder, Event, Recorder, describe, wars_said, wrong_event, wrong_events, wrong_places
from .families import family_of
from .play import CHOICES_DRAWN
from .policies import PolicyChooser, SeatPolicy, generator, parse_policy, seat_policies, seated
from .summary import Summary

# one policy per seat (specs or SeatPolicy), or a seating {seat: spec}
Policies = Union[Sequence[Union[str, SeatPolicy]], Mapping[int, str]]


def resolve_policies(rules: RuleSet, policies: Policies = ()) -> tuple[SeatPolicy, ...]:
    """Each seat's policy, the one place where policies are resolved: from one per seat (specs
    such as `greedy` or `steal:threshold:4,top:protect`, or SeatPolicy), or from a seating
    {seat: spec} (EVERY_SEAT, -1, for every seat not named); seats not given take the default."""
    kinds = family_of(rules).decision_names
    if not kinds:
        if policies:
            raise RulesError(f"variant {rules.variant!r} has no decisions, so it takes no `policies`",
                             params=("policies",))
        return ()
    if isinstance(policies, Mapping):
        return tuple(seat_policies(policies, rules.players, kinds))
    if not policies:
        policies = ("default",) * rules.players
    if len(policies) != rules.players:
        raise RulesError(f"`policies` gives {len(policies)} seats' policies; this rule set has "
                         f"{rules.players} players", params=("policies",))
    return tuple(p if isinstance(p, SeatPolicy) else parse_policy(p, kinds, f"policy of seat {seat}")
                 for seat, p in enumerate(policies))


def policy_specs(rules: RuleSet, policies: Policies = ()) -> tuple[str, ...]:
    """The canonical policy strings of every seat, as the games table and manifest record them."""
    return tuple(p.spec for p in resolve_policies(rules, policies))


def drawn_seats(seats: Sequence[SeatPolicy]) -> list[str]:
    """`seat N plays KIND:NAME` for every seat whose policy draws (declared `randomized`): a
    game of such seats never repeats a position for certain, so it is never a cycle."""
    return [f"seat {seat} plays {', '.join(p.drawn())}" for seat, p in enumerate(seats) if p.drawn()]


def chance_in_games(rules: RuleSet, policies: Policies = ()) -> tuple[str, str] | None:
    """What makes a game of `rules` depend on its seed besides its deal, seated with `policies`
    (each seat's default when none), and what a user can do about it (": ..." or ""); None when
    the deal alone decides each game: then its games may cycle for certain, a records line (a
    deal) plays what it lists, and shares over every deal are exact."""
    pickup = PICKUPS_BY_NAME.get(getattr(rules, "pickup", None))
    if pickup is not None and not pickup.fixed:
        if "pickup" in family_of(rules).option_names:
            return (f"pickup={pickup.name} draws the order won cards join a pile",
                    f": a fixed pickup ({', '.join(p.name for p in PICKUP_ORDERS if p.fixed)})")
        return f"variant {rules.variant!r} draws the order won cards join a pile (its rule, not an option)", ""
    drawn = drawn_seats(resolve_policies(rules, tuple(policies)))
    if drawn:
        return f"{'; '.join(drawn)}, a randomized policy" + ("" if policies else ", by default"), ""
    return None


def tournament_seatings(rules: RuleSet, policies: Sequence[str]) -> list[tuple[str, ...]]:
    """A tournament among `policies` (two or more, 2 players): every ordered pair of different
    policies, as canonical specs, so that each pair plays in both seat orders."""
    names = [p.strip() for p in policies]
    if len(names) < 2 or len(set(names)) != len(names):
        raise RulesError("`tournament` needs at least two different policies", params=("tournament",))
    if not family_of(rules).decision_names:
        raise RulesError(f"variant {rules.variant!r} has no decisions, so it takes no `tournament`",
                         params=("tournament",))
    if rules.players != 2:
        raise RulesError(f"a tournament is for 2 players; this rule set has {rules.players}")
    seatings = [policy_specs(rules, (a, b)) for a in names for b in names if a != b]
    if len(set(seatings)) != len(seatings):
        raise RulesError("`tournament` needs two different policies each time: two of those given "
                         "are the same policy written differently", params=("tournament",))
    return seatings


class NoChooser:
    randomized = False
    policies: tuple = ()

    def choose(self, kind, seat, view, options):
        raise AssertionError(f"a decision ({kind}) in a variant without policies")


DECIDES = with_role("decides")  # the kinds of a decision's event (model.kind.ROLES)


class LogChooser:
    """Decisions read from the log, after checking that each was one of the legal options, as
    its declaration says the choice is held (model.family.Decision.chooses)."""

    def __init__(self, recorder: CheckingRecorder, policies: Sequence[SeatPolicy] = ()) -> None:
        self.recorder = recorder
        self.policies = policies  # the seats' policies the log was played by
        self.randomized = any(p.randomized for p in policies)

    def choose(self, kind: str, seat: int, view, options: tuple):
        seq = self.recorder.position
        found = self.recorder.next_logged()
        if found is None or found.kind not in DECIDES or found.seat != seat or found.note != kind:
            raise LogMismatch(seq, f"(decision seat={seat} note={kind} ...)", describe(found))
        if tuple(found.options) != tuple(options):
            raise LogMismatch(seq, f"a {kind} decision among options {list(options)}",
                              f"options {list(found.options)}")
        if registry().decisions[kind].chooses == "seats":
            chosen = tuple(found.seats)
            if wrong_choice("seats", chosen, options) is not None:
                raise LogMismatch(seq, f"seats among {list(options)}", f"{list(chosen)}")
            return chosen
        if len(found.cards) != 1 or wrong_choice("card", found.cards[0], options) is not None:
            raise LogMismatch(seq, f"one card among {list(options)}", f"cards {list(found.cards)}")
        return found.cards[0]


def wrong_decision(log: list[Event]) -> tuple[int, str] | None:
    """The first decision of a log whose choice is not among the options it records, as replay
    reads a choice (LogChooser): its seq and what is wrong; None when every one is legal. What
    validation checks before it regenerates a game, since a policy that chose so regenerates
    the same log."""
    decisions = registry().decisions
    for seq, ev in enumerate(log):
        if ev.kind not in DECIDES or ev.note not in decisions:
            continue
        chooses = decisions[ev.note].chooses
        if chooses == "seats":
            wrong = wrong_choice(chooses, tuple(ev.seats), tuple(ev.options))
        elif len(ev.cards) != 1:
            wrong = f"cards {list(ev.cards)}, not one card among its options {list(ev.options)}"
        else:
            wrong = wrong_choice(chooses, ev.cards[0], tuple(ev.options))
        if wrong is not None:
            return seq, f"seat {ev.seat}'s {ev.note} decision chose {wrong}"
    return None


def chooser_for(rules: RuleSet, policies, seed: int):
    found = _setup(rules, policies)
    seats = found[2]
    if not seats:
        return NO_CHOOSER
    return PolicyChooser(list(seats), seed, found[3])


NO_CHOOSER = NoChooser()  # it keeps nothing of a game's

# The last (registry, rule set, policies) a game was set up for, and its (family, reference
# engine, seats' policies): every game of a shard asks for the same, so they are worked out once
# a shard, not once a game. One tuple, read and replaced whole (a game on another thread sees one
# or the other).
_LAST_SETUP: list = [(None, None, None, None)]


def _setup(rules: RuleSet, policies) -> tuple:
    """(family, its reference engine or None before it is asked, seats' policies, what their
    chooser works out alike every game: policies.seated) of the rule set and policies
    (resolve_policies), for the registry in use."""
    last, families = _LAST_SETUP[0], registry()
    if last[0] is families and last[1] is rules and last[2] is policies:
        return last[3]
    seats = resolve_policies(rules, policies)
    found = (family_of(rules), None, seats, seated(list(seats)) if seats else None)
    _LAST_SETUP[0] = families, rules, policies, found
    return found


def _engine_of(rules: RuleSet, policies, family: Family):
    """The family's reference engine, imported on first use and kept with the set-up."""
    found = _setup(rules, policies)
    if found[1] is not None and found[0] is family:
        return found[1]
    engine = family.reference()
    last = _LAST_SETUP[0]
    if last[3] is found:
        _LAST_SETUP[0] = (*last[:3], (found[0], engine, *found[2:]))
    return engine


def play_game(rules: RuleSet, seed: int, deal: Deal | None = None, recorder: Recorder | None = None,
              policies=()) -> tuple[list[Event], Summary, Deal]:
    """Play the game of `seed` (or of an explicit deal, shuffling later orders with `seed`)."""
    rec = recorder if recorder is not None else Recorder()
    summary, deal = play_seeded(rules, seed, rec, deal, policies)
    if not isinstance(rec, CheckingRecorder):  # a log's events were checked one by one as they were made
        wrong = (wrong_events(rec.events, family_of(rules).kind_names)
                 or wrong_places(rec.events, rules.players, deck_of(rules).size))
        if wrong is not None:
            raise event_fault(family_of(rules), wrong[1], seed)
        untold = wars_untold(summary, rec.events)
        if untold is not None:
            raise _fault(family_of(rules), f"returned a Summary {untold}", seed)
    return rec.events, summary, deal


def play_seeded(rules: RuleSet, seed: int, recorder, deal: Deal | None = None, policies=()) -> tuple[Summary, Deal]:
    """play_game into any recorder (one that keeps no Event list, log.array_recorder's): the
    summary and the deal."""
    chance = StreamChance(generator(seed))  # the generator's draws a block at a time: the same draws
    chooser = chooser_for(rules, policies, seed)
    if deal is None:
        deal = shuffled_deal(rules, chance)
    return _engine_plays(rules, deal, chance, recorder, chooser, seed, policies), deal


def _engine_plays(rules: RuleSet, deal: Deal, chance, rec, chooser, seed: int | None = None, policies=None) -> Summary:
    """The family's reference engine plays the game. An outside family's engine that fails (it
    does not load, raises, exits) is the plugin's error (PluginError), naming the family, its
    engine and the game's seed; a WarError (a log that disagrees, a policy's fault) and Ctrl-C
    go through as they are, and a built-in family's failure is war's bug.
    In a game where a seat's policy draws, war's loop (play.Game) looks for no cycle, and an
    engine that says the game is a cycle all the same is refused (cycle_fault)."""
    family = family_of(rules) if policies is None else _setup(rules, policies)[0]
    drawn = bool(getattr(chooser, "randomized", False))
    try:
        engine = family.reference() if policies is None else _engine_of(rules, policies, family)
        token = CHOICES_DRAWN.set(drawn)
        # Python's collector paused for the game, as it runs as usual between games: a game keeps
        # every event it makes alive until its end and makes no reference cycles, and the
        # collector would scan those events again and again (an Event, a tuple subclass, is never
        # untracked as a plain tuple is)
        collecting = gc.isenabled()
        gc.disable()
        try:
            summary = engine(rules, deal, chance, rec, chooser)
        finally:
            if collecting:
                gc.enable()
            CHOICES_DRAWN.reset(token)
        if not isinstance(summary, Summary):
            raise summary_fault(family, summary, seed)
        wrong = summary_wrong(summary, rules.players)
        if wrong is not None:
            raise _fault(family, f"returned a Summary {wrong}", seed)
        if drawn and summary.outcome == "cycle":
            raise cycle_fault(family, chooser, seed)
        return summary
    except LogMismatch as err:  # an event no log holds is the engine's fault, not the log's
        made = getattr(rec, "made", None)
        wrong = None if made is None else wrong_event(made[1], made[7], family.kind_names)
        if wrong is not None:
            raise event_fault(family, f"{wrong} (event {err.seq}, battle {made[0]!r})", seed) from err
        raise
    except (Exception, SystemExit) as err:
        if not plugins_fault(err, family):
            raise  # war's bug, war's own error, or a Ctrl-C the plugin's code turned into another error
        raise engine_fault(family, err, seed) from err


def engine_fault(family: Family, err: BaseException, seed: int | None = None) -> PluginError:
    """The plugin's error of an outside family's engine that failed with `err`."""
    engine = family.play if isinstance(family.play, str) else getattr(family.play, "__qualname__", "its engine")
    said = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    return PluginError(f"plugin family {family.name!r}: its engine {engine} failed: {said}", seed, owner=family.module)


def _fault(family: Family, what: str, seed: int | None) -> PluginError:
    """The error of a family's engine that broke what its declaration promises (`what` it did):
    the plugin's for an outside family, a bug of war's for a built-in one."""
    engine = family.play if isinstance(family.play, str) else getattr(family.play, "__qualname__", "its engine")
    plugin = family.name not in registry().built_in
    return PluginError(f"{'plugin ' if plugin else ''}family {family.name!r}: its engine {engine} {what}", seed,
                       owner=family.module if plugin else "")


def summary_fault(family: Family, summary: object, seed: int | None = None) -> PluginError:
    """The error of an engine that returned something else than the game's Summary."""
    return _fault(family, f"returned {brief(summary)}, not the game's Summary (what its game's play() returns)",
                  seed)


def summary_wrong(summary: Summary, players: int) -> str | None:
    """What a game's Summary says that no game can be (an outcome war does not know, a win
    without a winner or a winner of another outcome, a seat that is not one of the game's), in a
    few words; None when nothing. The games table is the summary: such a one was written, and
    `war report` failed on it."""
    outcome, winner = summary.outcome, summary.winner
    if outcome not in OUTCOMES:
        return f"of outcome {brief(outcome)}, not one of {', '.join(OUTCOMES)}"
    if (outcome == "win") != (winner is not None):
        return f"of outcome {outcome!r} with winner {brief(winner)} (a win has a winner, and only a win)"
    if winner is not None and not (isinstance(winner, numbers.Integral) and not isinstance(winner, bool)
                                   and 0 <= winner < players):
        return f"whose winner {brief(winner)} is not one of the game's {players} seats"
    return None


def wars_untold(summary: Summary, events: list) -> str | None:
    """What a game's Summary says of its wars that its `war` events do not (the games table's
    wars, war_battles, max_war_depth and first_battle_war are the summary's, and a query of the
    events counts them from the events: the two must agree); None when they agree."""
    said = (summary.wars, summary.war_battles, summary.max_war_depth, summary.first_battle_war)
    told = wars_said(events)
    if said == told:
        return None
    return (f"of {said[0]} wars in {said[1]} battles, the deepest {said[2]}{', one in battle 1' if said[3] else ''}, "
            f"where its war events say {told[0]} in {told[1]}, the deepest {told[2]}"
            f"{', one in battle 1' if told[3] else ''}")


def event_fault(family: Family, what: str, seed: int | None = None) -> PluginError:
    """The error of an engine that emitted an event no log of its family holds (`what`:
    engines.event.wrong_event's words, and where in the game)."""
    return _fault(family, f"emitted {what}", seed)


def cycle_fault(family: Family, chooser, seed: int | None = None) -> PluginError:
    """The error of an engine that ended a game as a cycle while a seat's policy draws: the
    plugin's for an outside family, a bug of war's for a built-in one."""
    engine = family.play if isinstance(family.play, str) else getattr(family.play, "__qualname__", "its engine")
    plugin = family.name not in registry().built_in
    seats = "; ".join(drawn_seats(getattr(chooser, "policies", ()))) or "a seat plays a randomized policy"
    return PluginError(f"{'plugin ' if plugin else ''}family {family.name!r}: its engine {engine} ended the game "
                       f"as a cycle, though {seats}, a randomized policy: a game whose choices are drawn never "
                       f"repeats a position for certain, so it is never a cycle", seed,
                       owner=family.module if plugin else "")


def _deals(ev: Event | None, at_start: bool = False) -> bool:
    """Whether `ev` deals cards (model.kind: from the deck; `at_start`, or aside at the deal)."""
    kind = KINDS.get(ev.kind) if ev is not None else None
    return kind is not None and ev.battle == 0 and (kind.deals or (at_start and kind.at_deal == "deck"))


def deal_from_log(rules: RuleSet, log: list[Event]) -> Deal:
    """The deal that a log starts with, checked to be a deal of the rule set's deck."""
    n = rules.players
    for seat in range(n):
        ev = log[seat] if seat < len(log) else None
        if not _deals(ev) or ev.seat != seat:
            raise LogMismatch(seat, f"(deal seat={seat} battle=0 ...)", describe(ev))
    piles = [list(log[seat].cards) for seat in range(n)]
    aside: list[int] = []
    if n < len(log) and _deals(log[n], at_start=True) and not KINDS[log[n].kind].deals:
        aside = list(log[n].cards)
    try:
        return check_deal(rules, piles, aside, "logged deal")
    except DealError as err:
        raise LogMismatch(_first_bad_deal_event(rules, log), "a deal of the whole deck",
                          str(err).removeprefix("logged deal: ")) from None


def _first_bad_deal_event(rules: RuleSet, log: list[Event]) -> int:
    """The seq of the deal event holding the first card that is repeated or not in the deck."""
    size = rules.ranks * rules.suits + rules.jokers
    seen: set[int] = set()
    seq = 0
    for seq, ev in enumerate(log):
        if not _deals(ev, at_start=True):
            return max(seq - 1, 0)
        for c in ev.cards:
            if c in seen or not 0 <= c < size:
                return seq
            seen.add(c)
    return seq


def replay_log(rules: RuleSet, log: list[Event], recorder: CheckingRecorder | None = None,
               policies=()) -> Summary:
    """Rebuild a game from its log alone, checking every event against the rules and every
    decision against the options the player had (the policies are not called)."""
    deal = deal_from_log(rules, log)
    rec = recorder if recorder is not None else CheckingRecorder(log)
    return _engine_plays(rules, deal, LogChance(rec), rec, LogChooser(rec, resolve_policies(rules, policies)))
