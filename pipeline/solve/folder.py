"""A solution folder as its readers see it (`war query`, `report`, `serve`, `validate`): known by
its own manifest, `solution.json` (format war-solution/1), read and checked without the solver's
compiled code, so recognising a folder costs a file read.

A solution is not a dataset of games: it has no seed, no games, no event log, so it keeps a
manifest of its own (docs/solve.md, "The dataset"), and every reader asks `is_solution` first.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path, PurePosixPath

from ..errors import DatasetError

MANIFEST = "solution.json"
FORMAT = "war-solution/1"
VIEWS = ("deals", "positions", "distribution")  # the Parquet files, each a view of its name
KEYS = ("format", "rules", "cards", "deals", "positions", "deck", "files", "bound", "exact", "sweeps")


def is_solution(root) -> bool:
    """Whether `root` is a local folder holding a solution's manifest (finished or not read
    yet): the folder every reader then treats as a solution."""
    if root is None or "://" in str(root):
        return False
    try:
        return (Path(root) / MANIFEST).is_file()
    except OSError:
        return False


def read_manifest(root) -> dict:
    """A solution's manifest, refused in one line when the folder is not a finished solution or
    its manifest is not one this war reads; its files' paths checked to stay in the folder."""
    path = Path(root) / MANIFEST
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise DatasetError(f"{str(root)!r} is not a finished solution of war solve (no readable {MANIFEST})") from None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise DatasetError(f"{str(root)!r}: {MANIFEST} is not a {FORMAT} manifest")
    missing = [k for k in KEYS if k not in body]
    if missing:
        raise DatasetError(f"{str(root)!r}: {MANIFEST} lacks {', '.join(missing)}")
    wrong = _mistyped(body)
    if wrong is not None:
        raise DatasetError(f"{str(root)!r}: {MANIFEST}'s {wrong}")
    files = body["files"]
    if not isinstance(files, list) or not all(isinstance(f, dict) and {"path", "sha256", "rows"} <= set(f)
                                              and isinstance(f["sha256"], str) and _count(f["rows"]) for f in files):
        raise DatasetError(f"{str(root)!r}: {MANIFEST} lists its files wrongly (each a path, sha256 and rows)")
    for f in files:
        rel = f["path"]
        if not isinstance(rel, str) or PurePosixPath(rel).name != rel or rel.removesuffix(".parquet") not in VIEWS:
            raise DatasetError(f"{str(root)!r}: {MANIFEST} names {rel!r}, not one of a solution's files "
                               f"({', '.join(v + '.parquet' for v in VIEWS)})")
    if "deals.parquet" not in {f["path"] for f in files}:
        raise DatasetError(f"{str(root)!r}: {MANIFEST} lists no deals.parquet")
    return body


DECK = ("p_win0", "p_win1", "p_draw", "battles", "laid", "over_cap", "battles_bound", "laid_bound")
DECK_EXACT = ("exact_p_win0", "exact_p_win1", "exact_battles", "exact_laid")


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mistyped(body: dict) -> str | None:
    """What of a manifest is not of the type its readers take it as (the deck view reads each
    figure as a number, each fraction as "p/q", each quantile as a count), said in a few
    words; None when all are. A manifest edited by hand is said in a line, not a traceback."""
    for key in ("cards", "deals", "positions", "sweeps"):
        if not _count(body[key]):
            return f"{key} is {body[key]!r}, not a count"
    if not _number(body["bound"]):
        return f"bound is {body['bound']!r}, not a number"
    if not isinstance(body["exact"], bool):
        return f"exact is {body['exact']!r}, not true or false"
    deck = body["deck"]
    if not isinstance(deck, dict):
        return f"deck is {type(deck).__name__}, not the deck's figures"
    for key in DECK:
        if not _number(deck.get(key)):
            return f"deck's {key} is {deck.get(key)!r}, not a number"
    for key in DECK_EXACT:
        if deck.get(key) is not None:
            try:
                fraction(deck[key])
            except (ValueError, TypeError, ZeroDivisionError):
                return f"deck's {key} is {deck[key]!r}, not a fraction"
    quantiles = body.get("quantiles", {})
    if not isinstance(quantiles, dict) or not all(v is None or _count(v) for v in quantiles.values()):
        return f"quantiles are {quantiles!r}, not a battle count by probability"
    if not isinstance(body.get("rules_label", ""), str):
        return f"rules_label is {body['rules_label']!r}, not text"
    return None


def file_paths(root, body: dict) -> dict[str, Path]:
    """Each view's file (deals, positions, distribution), present and a plain file, or a
    one-line DatasetError naming the first that is not."""
    out = {}
    for f in body["files"]:
        path = Path(root) / f["path"]
        if path.is_symlink() or not path.is_file():
            raise DatasetError(f"solution {str(root)!r}: {f['path']} is missing or not a plain file "
                               f"(`war validate` says more)")
        out[f["path"].removesuffix(".parquet")] = path
    return out


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def rules_of(body: dict):
    """The solution's rule set (model.schema.RuleSet), or a one-line DatasetError."""
    from pydantic import ValidationError

    from ..model.schema import RuleSet, explain

    try:
        return RuleSet.model_validate(body["rules"])
    except ValidationError as err:
        raise DatasetError(explain(err, f"{MANIFEST} rules")) from None


def fraction(text) -> Fraction | None:
    """A fraction as the files write it ("p/q"), None for none."""
    return None if text is None else Fraction(text)


def deck_row(body: dict) -> dict:
    """The deck's figures as one row (the `deck` view): each value as a float, its exact
    fraction as text where solved exactly (P(draw)'s from the two wins when every deal ends),
    its error bound, the quantiles of the number of battles, and what was solved."""
    deck, exact = body["deck"], bool(body["exact"])
    draw = None
    if exact and deck.get("exact_p_win0") and deck.get("exact_p_win1") and deck.get("exact_battles"):
        value = 1 - Fraction(deck["exact_p_win0"]) - Fraction(deck["exact_p_win1"])
        draw = str(value)
    quantiles = body.get("quantiles") or {}
    rules = rules_of(body)
    return {
        "rule_set": body.get("rules_label") or rules.label, "rules_id": rules.rules_id, "variant": rules.variant,
        "ranks": rules.ranks, "suits": rules.suits, "cards": body["cards"], "deals": body["deals"],
        "positions": body["positions"], "exact": exact,
        "p_win0": deck["p_win0"], "p_win1": deck["p_win1"], "p_draw": deck["p_draw"],
        "mean_battles": deck["battles"], "mean_laid": deck["laid"], "p_capped": deck["over_cap"],
        "bound": body["bound"], "battles_bound": deck.get("battles_bound"), "laid_bound": deck.get("laid_bound"),
        "battles_median": quantiles.get("0.5"), "battles_p90": quantiles.get("0.9"),
        "battles_p99": quantiles.get("0.99"), "battles_p999": quantiles.get("0.999"),
        "exact_p_win0": deck.get("exact_p_win0") if exact else None,
        "exact_p_win1": deck.get("exact_p_win1") if exact else None,
        "exact_p_draw": draw,
        "exact_mean_battles": deck.get("exact_battles") if exact else None,
        "exact_mean_laid": deck.get("exact_laid") if exact else None,
        "sweeps": body["sweeps"], "max_battles": rules.max_battles,
    }
