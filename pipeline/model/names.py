"""The names a person reads for a dataset's rule sets: one place for `war query`'s `rule_set`
column, the report, `war serve` and the replay.

A rule set's name is the name its user gave it (`war generate --name`, `name = ...` in a rule
file), else its label: its variant and the options that differ from the variant's defaults
(RuleSet.label). Policies are not rules (they are not in rules_id), so a rule set played in
several seatings, as a tournament plays every ordered pair of its policies, is several rule sets
of the dataset, each named by its seating: `always vs never` (seat 0's policy first), after its
rules' name where two rule sets of the dataset have seatings. Entries of one rule set in one
seating (the same rules appended twice) share their name, so a query grouped by name counts them
together.
"""

from __future__ import annotations


def short_policies(policies) -> dict[str, str]:
    """Each policy string as short as it can be said among `policies`: without the parts (`,`
    separated) that every one of them has, and without the decision's key (`steal:`) where every
    part left is of one decision (`steal:always` -> `always`)."""
    policies = list(dict.fromkeys(policies))
    parts = {p: p.split(",") for p in policies}
    common = set.intersection(*(set(ps) for ps in parts.values())) if parts else set()
    left = {p: [x for x in ps if x not in common] for p, ps in parts.items()}
    keys = {x.split(":", 1)[0] for ps in left.values() for x in ps}
    one_key = len(keys) == 1 and all(len(ps) == 1 and ":" in ps[0] for ps in left.values())
    out = {}
    for p, ps in left.items():
        if one_key:
            out[p] = ps[0].split(":", 1)[1]
        else:
            out[p] = ",".join(ps) or p
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
    identity: dict[int, tuple] = {}
    wanted: dict[tuple, str] = {}
    for e in entries:
        if e.rules_id in seated:
            short = short_policies([p for s in seatings[e.rules_id] for p in s])
            name = seating_name(e.policies, short)
            if len(seated) > 1 or name in base.values():
                name = f"{base[e.rules_id]}: {name}"
            key = (e.rules_id, tuple(e.policies))
        else:
            name, key = base[e.rules_id], (e.rules_id,)
        identity[e.ordinal] = key
        wanted.setdefault(key, name)
    named = _told_apart(wanted)
    return {ordinal: named[key] for ordinal, key in identity.items()}
