"""Building rule sets from a variant's defaults, OPTION=VALUE pairs and rule files."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RulesError
from .schema import RuleSet, explain
from .variants import variant as lookup_variant


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`["pickup=table_order", "war_down=1"]` -> {"pickup": "table_order", "war_down": "1"}."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise RulesError(f"`options` wants OPTION=VALUE, got {pair!r}", params=("options",))
        out[name] = value
    return out


def build_rules(variant: str, options: dict[str, Any] | None = None) -> RuleSet:
    """The variant's full rule set with `options` applied; options the variant does not use
    are refused by name rather than silently ignored."""
    spec = lookup_variant(variant)
    options = dict(options or {})
    options.pop("variant", None)
    known = set(RuleSet.model_fields) - {"variant"}
    for name in options:
        if name not in known:
            raise RulesError(f"unknown option {name!r} (options: {', '.join(sorted(known))})")
        if name not in spec.options:
            raise RulesError(f"option {name!r} does not apply to variant {variant!r} "
                             f"(it takes: {', '.join(spec.options)})")
    values = {**spec.defaults, **options, "variant": variant}
    for name in ("players", "jokers", "ace_value", "ranks", "suits", "max_battles", "hand_size"):
        if isinstance(values.get(name), str):
            values[name] = _integer(name, values[name])
    if isinstance(values.get("war_down"), str) and values["war_down"] != "by_rank":
        values["war_down"] = _integer("war_down", values["war_down"], "an integer >= 0 or 'by_rank'")
    try:
        return RuleSet(**values)
    except ValidationError as err:
        raise RulesError(explain(err, f"rule set {variant!r}")) from None


def _integer(name: str, text: str, wanted: str = "an integer") -> int:
    try:
        return int(text)
    except ValueError:
        raise RulesError(f"option {name!r} wants {wanted}, got {text!r}") from None


def load_rules_file(path: str | Path) -> RuleSet:
    """A whole rule set from TOML or JSON: `variant = "classic"` plus any options."""
    path = Path(path)
    try:
        text = path.read_bytes()
    except OSError as err:
        raise RulesError(f"cannot read rule file {str(path)!r}: {err.strerror}") from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise RulesError(f"rule file {str(path)!r} is not valid "
                         f"{'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("variant"), str):
        raise RulesError(f"rule file {str(path)!r} must give `variant` (a name) and options")
    try:
        return build_rules(data["variant"], {k: v for k, v in data.items() if k != "variant"})
    except RulesError as err:
        raise RulesError(f"rule file {str(path)!r}: {err}") from None
