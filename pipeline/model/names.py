"""The names a person reads for a dataset's rule sets: one place for `war query`'s `rule_set`
column, the report, `war serve` and the replay.

A rule set's name is the name its user gave it (`war generate --name`, `name = ...` in a rule
file), else its label: its variant and the options that differ from the variant's defaults
(RuleSet.label). Policies are not rules (they are not in rules_id), so a rule set played in
several seatings, as a tournament plays every ordered pair of its policies, is several rule sets
of the dataset, each named by its seating: `always vs never` (seat 0's policy first), after its
rules' name where two rule sets of the dataset have seatings, each policy said as short as the
others let it be (short_policies: `threshold:4 vs random`, a seating at most 24 characters, its
policies in full in the `policies` column of the views and named queries). A rule set generated
alone keeps its own name beside them: of the seatings of its rules, the first in which every seat
plays the same policy (the default seating, a profile or `--policy '*=...'`), which a tournament,
playing pairs of two policies, never is, keeps the rules' name (`steal` beside `always vs never`),
so appending a tournament renames no rule set already there; a seating of rules given a name
(`--tournament ... --name duel`) is said after that name (`duel: always vs never`), whatever name
its rules' first rule set has. Entries of one rule set in one
seating (the same rules appended twice) share their name, so a query grouped by name counts them
together.
"""

from __future__ import annotations


SEATING_WIDTH = 24  # a seating's name (`threshold:4 vs cautious`) is at most this long, two seats


def _parts(spec: str) -> list[tuple[str, str]]:
    """A canonical policy string's (decision, policy) parts: `steal:threshold:4,top:protect` ->
    [("steal", "threshold:4"), ("top", "protect")]."""
    return [(k, v) if sep else ("", k) for k, sep, v in (x.partition(":") for x in spec.split(","))]


def _decisions():
    """Each decision's policies' names and default, and the profiles ({decision: policy} each),
    from the families (model.families), as the policies' parser reads them."""
    from .families import registry

    reg = registry()
    names = {d.name: {p.name for p in d.policies} for d in reg.decisions.values()}
    defaults = {d.name: d.default for d in reg.decisions.values()}
    profiles: dict[str, dict[str, str]] = {}
    for family in reg.families.values():
        for name, chosen in family.profiles.items():
            profiles.setdefault(name, {}).update(chosen)
    return names, defaults, profiles


def short_policies(policies) -> dict[str, str]:
    """Each policy string as short as it can be said among `policies`, never two alike:

    - only its parts that differ among them (`steal:always,top:as_played` among policies that
      all play top:as_played is `steal:always`), and of those the ones that are not their
      decision's default, or the first if all are;
    - each part as its policy's name alone where only one decision of theirs has a policy of
      that name (`threshold:4`, `protect`; `steal:random`, as `top` has a random policy too);
    - several parts that are together a profile as the profile's name (`random` for
      steal:random,top:random, as `war generate --tournament random` reads it);
    - two policies said alike are said in full; and while two of them would make a seating
      (`A vs B`) longer than SEATING_WIDTH characters, the longest is numbered, `P2` (its place
      among the policies sorted), its whole text being in the `policies` column."""
    policies = list(dict.fromkeys(policies))
    if not policies:
        return {}
    names, defaults, profiles = _decisions()
    parsed = {p: _parts(p) for p in policies}
    kinds = {k for parts in parsed.values() for k, _ in parts}
    common = set.intersection(*(set(parts) for parts in parsed.values())) if len(parsed) > 1 else set()

    def said(kind: str, value: str) -> str:
        base = value.split(":", 1)[0]
        owners = [k for k in kinds if base in names.get(k, ())]
        return value if not kind or (owners == [kind]) else f"{kind}:{value}"

    out = {}
    for p, parts in parsed.items():
        varying = [x for x in parts if x not in common] or parts
        shown = [(k, v) for k, v in varying if v != defaults.get(k)] or varying[:1]
        text = ",".join(said(k, v) for k, v in shown)
        if len(shown) > 1:
            whole = dict(parts)
            named = sorted((n for n, chosen in profiles.items() if n != "default" and
                            all(chosen.get(k, defaults.get(k)) == v for k, v in whole.items())), key=len)
            text = named[0] if named else text
        out[p] = text
    said_by: dict[str, list[str]] = {}
    for p, text in out.items():
        said_by.setdefault(text, []).append(p)
    out = {p: (p if len(said_by[text]) > 1 else text) for p, text in out.items()}
    number = {p: f"P{i}" for i, p in enumerate(sorted(policies), start=1)}
    budget = SEATING_WIDTH - len(" vs ")
    while len(out) > 1:
        longest = sorted(out, key=lambda p: (-len(out[p]), p))
        if len(out[longest[0]]) + len(out[longest[1]]) <= budget or out[longest[0]] == number[longest[0]]:
            break
        out[longest[0]] = number[longest[0]]
    return out


def seating_name(seating, short: dict[str, str]) -> str:
    """A seating (each seat's policy, seat 0 first) as a person reads it: `always vs never`."""
    return " vs ".join(short.get(p, p) for p in seating)


def rules_names(entries) -> dict[str, str]:
    """The name of each rules_id of `entries`, whatever its seatings: the first name a user gave
    one of its entries, else its label; a name two rules would share is told apart by each one's
    rules_id (`x (83f4e2410889938a)`)."""
    labels: dict[str, str] = {}
    given: dict[str, str] = {}
    for e in sorted(entries, key=lambda e: e.ordinal):
        labels.setdefault(e.rules_id, e.rules.label)
        if e.name:
            given.setdefault(e.rules_id, e.name)
    names = {rid: given.get(rid, label) for rid, label in labels.items()}
    return _told_apart({(rid,): name for rid, name in names.items()})


def _told_apart(wanted: dict[tuple, str]) -> dict[tuple, str]:
    """The names of `wanted` (keyed by tuples whose first item is a rules_id), a name that keys of
    two rules_ids would share followed by each one's rules_id."""
    owners: dict[str, set] = {}
    for key, name in wanted.items():
        owners.setdefault(name, set()).add(key[0])
    return {key: (f"{name} ({key[0]})" if len(owners[name]) > 1 else name) for key, name in wanted.items()}


def rule_set_names(entries) -> dict[int, str]:
    """Each rule set entry's name, by its ordinal (see the module's docstring)."""
    entries = sorted(entries, key=lambda e: e.ordinal)
    base = {key[0]: name for key, name in rules_names(entries).items()}
    seatings: dict[str, list[tuple[str, ...]]] = {}
    for e in entries:
        seats = seatings.setdefault(e.rules_id, [])
        if tuple(e.policies) not in seats:
            seats.append(tuple(e.policies))
    seated = [rid for rid, s in seatings.items() if len(s) > 1]
    # the seating of each seated rules that keeps its rules' name: its first in which every seat
    # plays one policy (a rule set generated alone; a tournament plays pairs of two policies)
    own = {rid: next((s for s in seatings[rid] if len(set(s)) == 1), None) for rid in seated}
    identity: dict[int, tuple] = {}
    wanted: dict[tuple, str] = {}
    for e in entries:
        if e.rules_id in seated and tuple(e.policies) != own[e.rules_id]:
            short = short_policies([p for s in seatings[e.rules_id] if s != own[e.rules_id] for p in s])
            name = seating_name(e.policies, short)
            if e.name:  # a tournament its user named: that name, then the seating (`duel: always vs never`)
                name = f"{e.name}: {name}"
            elif len(seated) > 1 or name in base.values():
                name = f"{base[e.rules_id]}: {name}"
            key = (e.rules_id, tuple(e.policies))
        else:
            name, key = base[e.rules_id], (e.rules_id,)
        if key in wanted and e.ordinal not in identity and _other_games(e, entries, identity, key):
            # the same rules and seating again, of other games (a deals file appended beside
            # seeded games): a name of its own, the first keeping its name, so no query pools them
            name, key = f"{wanted[key]} (rule set {e.ordinal})", (*key, e.ordinal)
        identity[e.ordinal] = key
        wanted.setdefault(key, name)
    named = _told_apart(wanted)
    return {ordinal: named[key] for ordinal, key in identity.items()}


def _other_games(entry, entries, identity: dict[int, tuple], key: tuple) -> bool:
    """Whether `entry` plays other games than the earlier entry named by `key`: a rules and
    seating twice in a dataset is so only where their deals differ (seeded, a deals file, every
    deal), as an append allows."""
    first = next(e for e in entries if identity.get(e.ordinal) == key)
    return (first.deals, first.all_deals, first.seeds) != (entry.deals, entry.all_deals, entry.seeds)
