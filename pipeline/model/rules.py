"""Building rule sets from a variant's defaults, OPTION=VALUE pairs and rule files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RulesError, brief
from .inputs import KeyTwice, loads_json, loads_toml, not_regular
from .families import registry
from .schema import MAX_DECK, RuleSet, explain
from .variants import VARIANTS
from .variants import variant as lookup_variant


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`["pickup=table_order", "war_down=1"]` -> {"pickup": "table_order", "war_down": "1"}."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise RulesError(f"`options` wants OPTION=VALUE, got {pair!r}", params=("options",))
        if name in out:
            raise RulesError(f"`options` gives {name} twice ({name}={out[name]} and {name}={value}); "
                             f"give it once", params=("options",))
        out[name] = value
    return out


def build_rules(variant: str, options: dict[str, Any] | None = None, typed: bool = False) -> RuleSet:
    """The variant's full rule set with `options` applied; options the variant does not use
    are refused by name rather than silently ignored. A text for an integer option is read as
    its number (OPTION=VALUE on a command line is text), unless `typed`: values that have their
    own types (a rule file's), where an integer option takes an integer or one of its words
    (war_down's `by_rank`), and `"3"` is refused as `2.5` is, not read as a number."""
    spec = lookup_variant(variant)
    options = dict(options or {})
    options.pop("variant", None)
    settable = sorted({o for v in VARIANTS.values() for o in v.options})
    for name, value in options.items():
        if name not in settable:
            if name in RuleSet.model_fields:
                raise RulesError(f"option {name!r} does not apply to any variant: each variant fixes it "
                                 f"(options: {', '.join(settable)})")
            raise RulesError(f"unknown option {name!r} (options: {', '.join(settable)})")
        if name not in spec.options:
            raise RulesError(f"option {name!r} does not apply to variant {variant!r} "
                             f"(it takes: {', '.join(spec.options)})")
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise RulesError(f"option {name!r} wants {_wanted(name)}, got {brief(value)}")
        option = registry().options.get(name)
        if typed and isinstance(value, str) and option is not None and option.integer \
                and value not in option.words:
            raise RulesError(f"option {name!r} wants {_wanted(name)}, got the text {value!r} "
                             f"(a number in a rule file is written without quotes)")
    values = {**spec.defaults, **options, "variant": variant}
    for name, option in registry().options.items():
        if option.integer and isinstance(values.get(name), str) and values[name] not in option.words:
            values[name] = _integer(name, values[name], _wanted(name))
    deck = values.get("ranks", 13) * values.get("suits", 4) + values.get("jokers", 0) \
        if all(isinstance(values.get(k, 0), int) for k in ("ranks", "suits", "jokers")) else 0
    if deck > MAX_DECK:
        raise RulesError(f"a deck of {deck:,} cards (ranks x suits + jokers) is more than card codes "
                         f"hold: at most {MAX_DECK:,} cards")
    try:
        return RuleSet(**values)
    except ValidationError as err:
        raise RulesError(explain(err, f"rule set {variant!r}")) from None


def _wanted(name: str) -> str:
    """What an option's value is, in words: an integer (or one of its words), or a string."""
    option = registry().options.get(name)
    if option is None or not option.integer:
        return "a string"
    if option.words:
        low = "" if option.minimum is None else f" >= {option.minimum}"
        return f"an integer{low} or " + " or ".join(repr(w) for w in option.words)
    return "an integer"


def _integer(name: str, text: str, wanted: str = "an integer") -> int:
    try:
        return int(text)
    except ValueError:
        raise RulesError(f"option {name!r} wants {wanted}, got {text!r}") from None


MAX_NAME = 60  # characters in a rule set's name: it heads charts and table rows


def check_name(name: str, what: str = "`names`", params: tuple[str, ...] = ("names",)) -> str:
    """A rule set's name as given (`war generate --name`, `name` in a rule file), without the
    spaces around it: one line of printable text, 1 to MAX_NAME characters."""
    if not isinstance(name, str):
        raise RulesError(f"{what}: a rule set's name is text, got {brief(name)}", params=params)
    text = name.strip()
    if not 1 <= len(text) <= MAX_NAME or not text.isprintable():
        raise RulesError(f"{what}: a rule set's name is 1 to {MAX_NAME} printable characters on one line, "
                         f"got {name!r}", params=params)
    return text


def load_rules_file(path: str | Path) -> RuleSet:
    """A whole rule set from TOML or JSON: `variant = "classic"` plus any options (and perhaps
    `name`, which names the rule set and is not one of its rules: read_rules_file)."""
    return read_rules_file(path)[0]


def read_rules_file(path: str | Path) -> tuple[RuleSet, str | None]:
    """A rule file's rule set and the name it gives it (`name = "..."`), if any."""
    path = Path(path)
    kind = not_regular(path)
    if kind is not None:
        raise RulesError(f"rule file {str(path)!r} is {kind}, not a file")
    try:
        text = path.read_bytes()
    except OSError as err:
        raise RulesError(f"cannot read rule file {str(path)!r}: {err.strerror}") from None
    try:
        if path.suffix.lower() == ".json":
            data = loads_json(text, unique=True)
        else:
            data = loads_toml(text.decode("utf-8"))
    except KeyTwice as err:
        raise RulesError(f"rule file {str(path)!r} gives {err.key!r} twice; give each key once") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise RulesError(f"rule file {str(path)!r} is not valid "
                         f"{'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("variant"), str):
        raise RulesError(f"rule file {str(path)!r} must give `variant` (a name) and options")
    name = check_name(data["name"], f"rule file {str(path)!r}", ()) if "name" in data else None
    try:
        rules = build_rules(data["variant"], {k: v for k, v in data.items() if k not in ("variant", "name")},
                            typed=True)
    except RulesError as err:
        raise RulesError(f"rule file {str(path)!r}: {err}") from None
    return rules, name
