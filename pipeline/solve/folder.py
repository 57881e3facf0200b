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
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from ..errors import DatasetError
from ..storage.layout import SOLUTION_MANIFEST as MANIFEST
from ..storage.layout import SOLUTION_VIEWS as VIEWS

FORMAT = "war-solution/1"
QUANTILES = (0.5, 0.9, 0.99)  # the quantiles of N each deal and position keeps, as its columns:
QUANTILE_COLUMNS = tuple(f"battles_q{int(q * 100)}" for q in QUANTILES)  # the least t with P(N <= t) >= q, -1 past the sweeps
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
    if "://" not in str(root) and not Path(root).exists():
        raise DatasetError(f"no solution at {str(root)!r}: the folder does not exist")
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
    for f in files:
        rel = f["path"]
        if not isinstance(rel, str) or PurePosixPath(rel).name != rel or rel.removesuffix(".parquet") not in VIEWS:
            raise DatasetError(f"{str(root)!r}: {MANIFEST} names {rel!r}, not one of a solution's files "
                               f"({', '.join(v + '.parquet' for v in VIEWS)})")
    if "deals.parquet" not in {f["path"] for f in files}:
        raise DatasetError(f"{str(root)!r}: {MANIFEST} lists no deals.parquet")
    return body


Count = Annotated[int, Field(strict=True, ge=0, lt=2**63)]  # a count a reader's int64 holds
Number = Annotated[float, Field(strict=True)]  # an int is a number too; a bool is not
Bound = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]  # an error bound: the checks' tolerance, never below 0 nor infinite


def _fraction_text(value):
    """A "p/q" fraction's text or None. Every way it is not one is a ValueError, which pydantic
    reports as this field's error (a TypeError or ZeroDivisionError would escape it)."""
    if value is not None:
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not a fraction's text such as \"1/3\"")
        try:
            fraction(value)
        except ZeroDivisionError:
            raise ValueError(f"{value!r} has a zero denominator") from None
    return value


FractionText = Annotated[object, AfterValidator(_fraction_text)]


class _Deck(BaseModel):
    """The deck's figures as the deck view reads them: each a number, each exact one "p/q"."""

    model_config = ConfigDict(extra="allow")
    p_win0: Number
    p_win1: Number
    p_draw: Number
    battles: Number
    laid: Number
    over_cap: Number
    battles_bound: Bound
    laid_bound: Bound
    exact_p_win0: FractionText = None
    exact_p_win1: FractionText = None
    exact_battles: FractionText = None
    exact_laid: FractionText = None


class _File(BaseModel):
    model_config = ConfigDict(extra="allow")
    path: object  # checked apart: one of a solution's files
    sha256: Annotated[str, Field(strict=True)]
    rows: Count


class _Shape(BaseModel):
    """What every reader takes a manifest's values as (the writer's other keys are let be)."""

    model_config = ConfigDict(extra="allow")
    cards: Count
    deals: Count
    positions: Count
    sweeps: Count
    bound: Bound
    distribution_bound: Bound | None = None  # on P(capped) and the distribution (else `bound`)
    exact: Annotated[bool, Field(strict=True)]
    deck: _Deck
    files: list[_File]
    quantiles: dict[str, Count | None] = {}
    rules_label: Annotated[str, Field(strict=True)] = ""


def _mistyped(body: dict) -> str | None:
    """What of a manifest is not of the type its readers take it as, in a few words (a manifest
    edited by hand is said in a line, not a traceback); None when all are."""
    try:
        _Shape.model_validate(body)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        if first["type"] == "missing":
            return f"{where} is missing"
        return f"{where} is {first.get('input')!r}: {first['msg'].lower()}"
    return None


def file_paths(root, body: dict) -> dict[str, Path]:
    """Each view's file (deals, positions, distribution), present, a plain file and the one
    solution.json lists (its SHA-256), or a one-line DatasetError naming the first that is not:
    another solution's deals.parquet copied in was answered from, beside this one's figures."""
    out = {}
    for f in body["files"]:
        path = Path(root) / f["path"]
        if path.is_symlink() or not path.is_file():
            raise DatasetError(f"solution {str(root)!r}: {f['path']} is missing or not a plain file "
                               f"(`war validate` says more)")
        if "sha256" in f and sha256(path) != f["sha256"]:
            raise DatasetError(f"solution {str(root)!r}: {f['path']} is not the file its solution.json lists "
                               f"(its SHA-256 differs): damaged or changed since it was written; `war validate` "
                               f"checks the rest")
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


def distribution_bound(body: dict) -> float:
    """The bound on what only the iteration gives (P(capped), the distribution of battles): the
    manifest's distribution_bound, or its `bound` where it has none (written before it had)."""
    value = body.get("distribution_bound")
    return body["bound"] if value is None else value


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
        "distribution_bound": distribution_bound(body),
        "battles_median": quantiles.get("0.5"), "battles_p90": quantiles.get("0.9"),
        "battles_p99": quantiles.get("0.99"), "battles_p999": quantiles.get("0.999"),
        "exact_p_win0": deck.get("exact_p_win0") if exact else None,
        "exact_p_win1": deck.get("exact_p_win1") if exact else None,
        "exact_p_draw": draw,
        "exact_mean_battles": deck.get("exact_battles") if exact else None,
        "exact_mean_laid": deck.get("exact_laid") if exact else None,
        "sweeps": body["sweeps"], "max_battles": rules.max_battles,
    }
