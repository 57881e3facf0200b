"""The records file (data/records.jsonl in the repository): the best deal war's searches found
for each rule set and kind of record, one JSON object a line.

A line says the rule set as war spells it (`classic ranks=16 suits=1 pickup=natural
war_down=0`), what it is a record of (`battles` or `cards laid` of a game that ends, or a
`cycle`), the deal as a deals file line has it (`piles`: each seat's pile top first, and
`set_aside`, as card labels, so that the line itself is a line of a `war generate --deals` file),
the game's battles, cards laid, outcome and winner, and how it was found: the command of the
session that found it (a search resumed with other arguments), the deals the search played and
the positions it took back, its wall-clock seconds and sessions. A line is
replaced only by a deal that beats it; the lines are kept in order of deck size, then rule set.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path

from ..errors import DatasetError, RulesError, brief
from ..model.deal import Deal, check_deal, deck_of
from ..model.inputs import lines as split_lines
from ..model.inputs import loads_json, not_regular
from ..model.schema import RuleSet
from ..storage.files import atomic_write_bytes
from .request import rules_of
from .search import Found, chance_in_games, piles_of
from .searcher import Record

KINDS = ("battles", "cards laid", "cycle")
NEEDED = ("rules", "record", "piles", "battles", "cards_laid", "outcome")


def record_kind(goal: str, measure: str) -> str:
    """What a search's best deal is a record of: KINDS."""
    return "cycle" if goal == "cycle" else "cards laid" if measure == "cards" else "battles"


def entry(rules: RuleSet, record: Record, found: Found, kind: str) -> dict:
    """The records file's line for a search's best deal."""
    deck = deck_of(rules)
    piles, aside = piles_of(rules, record.deck)
    return {"rules": rules.label, "record": kind, "battles": record.battles, "cards_laid": record.cards_laid,
            "outcome": record.outcome, "winner": record.winner,
            "piles": [[deck.label(c) for c in pile] for pile in piles], "set_aside": [deck.label(c) for c in aside],
            "command": found.found_by(record), "sessions": len(found.sessions),
            "deals": found.deals, "positions_taken_back": found.taken_back,
            "wall_seconds": round(found.wall_seconds, 1)}


def read_records(path: str | Path) -> list[dict]:
    """The records file's lines (none when it does not exist), each checked to hold a record: its
    rule set and outcome as text, its battles and cards laid as counts. A FIFO or a device in
    its place is refused, never waited on nor written into (it is read, then replaced)."""
    path = Path(path)
    kind = not_regular(path)
    if kind is not None:
        raise DatasetError(f"the records file {str(path)!r} is {kind}, not a file", params=("records",))
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DatasetError(f"cannot read the records file {str(path)!r}: {err}", params=("records",)) from None
    lines = []
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        try:
            data = loads_json(line)
        except ValueError as err:
            raise DatasetError(f"{path.name} line {number}: not JSON: {err}", params=("records",)) from None
        missing = [k for k in NEEDED if not isinstance(data, dict) or k not in data]
        if missing or data["record"] not in KINDS:
            said = f"no {', '.join(missing)}" if missing else f"record {data['record']!r} is not one of {KINDS}"
            raise DatasetError(f"{path.name} line {number}: not a record ({said})", params=("records",))
        wrong = _mistyped(data)
        if wrong is not None:
            raise DatasetError(f"{path.name} line {number}: not a record ({wrong})", params=("records",))
        lines.append(data)
    return lines


def _mistyped(line: dict) -> str | None:
    """What of a records line is not of its type (the numbers a record is compared by, the
    texts it is sorted and said by); None when all are."""
    for name in ("rules", "outcome"):
        if not isinstance(line[name], str):
            return f"{name} is {brief(line[name])}, not text"
    for name in ("battles", "cards_laid"):
        value = line[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"{name} is {brief(value)}, not a number of {name.replace('_', ' ')}"
    if not isinstance(line["piles"], list):
        return f"piles is {brief(line['piles'])}, not a list of piles"
    return None


def _score(line: dict) -> int:
    return {"battles": line["battles"], "cards laid": line["cards_laid"], "cycle": 0}[line["record"]]


def check_kept(rules: RuleSet) -> None:
    """Refuse a rule set whose records a records file cannot hold: a line is a deal, played again
    as game 0 of seed 0, so the game must be the deal's alone; under a pickup that draws
    (shuffled, pooled) or a default policy that draws it is the seed's too (chance_in_games),
    and the line would not play what it lists."""
    drawn = chance_in_games(rules)
    if drawn is not None:
        why, advice = drawn
        raise RulesError(f"{why}, so a deal does not decide its game and a records line (a deal) would not play "
                         f"what it lists{': keep records of' + advice[1:] if advice else ''}", params=("records",))


def keep_record(path: str | Path, line: dict) -> dict | None:
    """Put `line` in the records file unless the file holds as good a record of its rule set and
    kind (a cycle is kept once). Returns the line it holds for them afterwards when that is not
    `line` (the better record kept), else None; the file is rewritten whole, atomically."""
    check_kept(rules_of(line["rules"]))
    path = Path(path)
    with _taking_turns(path):
        return _keep(path, line)


@contextmanager
def _taking_turns(path: Path):
    """Hold the records file's folder's flock while the file is read, changed and written whole:
    searches run side by side with one records file take turns, so no line is lost to another's
    write of what it read before. The folder, not the file: the file is replaced at each write
    (a new inode), and a lock file beside it would be left in a checkout."""
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError as err:
        raise DatasetError(f"cannot open the folder of the records file {str(path)!r}: {err.strerror}",
                           params=("records",)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the flock ends with it


def _keep(path: Path, line: dict) -> dict | None:
    lines = read_records(path)
    for i, old in enumerate(lines):
        if old["record"] == line["record"] and _same_rules(old["rules"], line["rules"]):
            if _score(line) <= _score(old):
                return old
            lines[i] = line
            break
    else:
        lines.append(line)
    lines.sort(key=lambda x: (_size(x["rules"]), x["rules"], KINDS.index(x["record"])))
    text = "".join(json.dumps(x, ensure_ascii=False, separators=(", ", ": ")) + "\n" for x in lines)
    atomic_write_bytes(path, text.encode())
    return None


def _same_rules(label: str, other: str) -> bool:
    """Whether two records lines' labels name one rule set: the same text, or the same rules
    written otherwise (options in another order, a default spelt out), as `war search --start`
    reads a line. A label this war does not read is the same only as its own text."""
    if label == other:
        return True
    try:
        return rules_of(label) == rules_of(other)
    except Exception:
        return False


def _size(label: str) -> int:
    try:
        rules = rules_of(label)
    except Exception:  # a line of a rule set this war does not know sorts last
        return 1 << 30
    return rules.ranks * rules.suits + rules.jokers


def deal_of(line: dict) -> tuple[RuleSet, Deal]:
    """A records line's rule set and deal, checked to be a deal of its deck."""
    rules = rules_of(line["rules"])
    return rules, check_deal(rules, line["piles"], line.get("set_aside"), f"record of {line['rules']}")


def render_found(rules: RuleSet, found: Found, kind: str) -> str:
    """A search's records as `war search` prints them: a header, then each record's numbers and
    its deal, each seat's pile top first in card labels as `war replay` prints a deal."""
    deck = deck_of(rules)
    what = {"battles": "Longest games that end, by battles", "cards laid": "Longest games that end, by cards laid",
            "cycle": "Deals that cycle"}[kind]
    lines = [f"{what} · {rules.label}", "     #  battles  cards laid  outcome"]
    for number, record in enumerate(found.records, 1):
        outcome = f"seat {record.winner} wins" if record.outcome == "win" else record.outcome
        lines.append(f"{number:>6}  {record.battles:>7,}  {record.cards_laid:>10,}  {outcome}")
        piles, aside = piles_of(rules, record.deck)
        for seat, pile in enumerate(piles):
            lines.append(f"        seat {seat} ({len(pile)}): " + " ".join(deck.label(c) for c in pile))
        if aside:
            lines.append(f"        set aside ({len(aside)}): " + " ".join(deck.label(c) for c in aside))
    return "\n".join(lines)
