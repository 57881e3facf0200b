"""The data contract: pydantic models for the rule set, the event, the game record and the
manifest. The Arrow schemas of the Parquet files and the JSON Schema files in `schemas/` are
both derived from these models, so there is one source of truth.

Run `python -m pipeline.model.schema` to rewrite `schemas/*.schema.json` after changing a model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ..errors import brief
from . import event_kinds
from .families import registry
from .family import MAX_DECK, MAX_INT32  # noqa: F401  (the bounds of the numbers files hold)
from .rule_set import (  # noqa: F401  (the rule set's names, read from here)
    RULES_ID_VERSION,
    RULES_ID_VERSIONS,
    VERSION_1_OPTIONS,
    RuleSetBase,
    rule_set_model,
    rules_id,
)

SCHEMA_VERSION = 5
# Versions this war reads, and the games columns each version added: a dataset is read, validated
# and appended to in its own version, its games files without the columns of later versions.
READ_VERSIONS = (4, 5)
GAME_COLUMNS_SINCE = {5: ("cards_laid", "cycle_key")}
# 2: positions are compared by ranks (docs/rules.md 2.6), so a game that cycles ends at the first
# repeat of its ranks; every other game is as engine 1 played it.
ENGINE_VERSION = "2"

# The ranges of the numbers a rule set and a manifest may hold: what the files can store (card
# codes are int16, battles and counts int32, game ids int64), so that a number from a rule file
# or a manifest that the data cannot hold is refused where it is read, not where it overflows.
GAME_ID_STRIDE = 1_000_000_000
MAX_ORDINAL = (2**63 - 1) // GAME_ID_STRIDE - 1  # game_id = ordinal x GAME_ID_STRIDE + game_index, an int64


class Arrow:
    """Marks a field with the Arrow type its Parquet column has (`int8`, `list<int16>`...)."""

    def __init__(self, type_: str) -> None:
        self.type = type_

    def __repr__(self) -> str:
        return f"Arrow({self.type!r})"


EVENT_KINDS: tuple[str, ...] = event_kinds.NAMES  # the registry's kinds, in its order (model.event_kinds)

EventKind = Literal[EVENT_KINDS]  # type: ignore[valid-type]
Outcome = Literal["win", "draw", "capped", "cycle"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)  # how a game ends; the compiled engine codes them by position
PICKUPS: tuple[str, ...] = registry().options["pickup"].choices  # the order won cards join a pile (rules 2.4)


# The rule set's model, built from the options every registered family declares (model.rule_set).
RuleSet = rule_set_model(registry().options.values())


# Only exported, to `schemas/event.schema.json` (titled `Event`). In Python an event is an
# `engines.event.Event`, whose fields are these after game_id and seq (tests/test_schema.py).
class EventModel(BaseModel):
    """One event: what happened at one step of one game (a row of the `events` view)."""

    model_config = ConfigDict(title="Event")

    game_id: Annotated[int, Arrow("int64")] = Field(description="The game, unique in the dataset.")
    seq: Annotated[int, Arrow("int32")] = Field(ge=0, description="0, 1, 2... within the game.")
    battle: Annotated[int, Arrow("int32")] = Field(ge=0, description="Battle number; 0 for the deal.")
    kind: Annotated[EventKind, Arrow("dictionary<string>")]
    seat: Annotated[int | None, Arrow("int8")] = Field(None, description="The seat it concerns.")
    cards: Annotated[list[int], Arrow("list<int16>")] = Field(
        default_factory=list, description="Card codes, in the order the kind gives.")
    seats: Annotated[list[int], Arrow("list<int8>")] = Field(
        default_factory=list, description="Seats in a war, or seats stolen from.")
    options: Annotated[list[int], Arrow("list<int16>")] = Field(
        default_factory=list, description="A decision's alternatives.")
    value: Annotated[int | None, Arrow("int32")] = Field(None, description="War depth; battles at the end.")
    note: Annotated[str | None, Arrow("dictionary<string>")] = Field(
        None, description="Outcome at the end; a decision's name.")


class LogRow(BaseModel):
    """One row of `events/` files: the events of one battle of one game, encoded by
    `pipeline.log.codec` (the `events` view of `war query` shows them one row per event)."""

    game_id: Annotated[int, Arrow("int64")] = Field(description="The game, unique in the dataset.")
    seq: Annotated[int, Arrow("int32")] = Field(ge=0, description="The seq of the row's first event.")
    battle: Annotated[int, Arrow("int32")] = Field(ge=0, description="Battle number; 0 for the deal.")
    shape: Annotated[str, Arrow("dictionary<string>")] = Field(
        description="Every event of the battle but its cards, e.g. `play:0#1 play:1#1 collect:1@1,0`.")
    cards: Annotated[list[int], Arrow("list<int16>")] = Field(
        default_factory=list, description="The events' cards and options, but for takes of the whole table; "
                                          "then the table positions of whole-table takes of more than three cards.")


class GameRecord(BaseModel):
    """One row of `games/`: a game's summary, enough for most questions without the events."""

    game_id: Annotated[int, Arrow("int64")]
    game_index: Annotated[int, Arrow("int64")] = Field(description="0-based within its rule set.")
    game_seed: Annotated[int, Arrow("uint64")]
    variant: Annotated[str, Arrow("dictionary<string>")]
    rules_id: Annotated[str, Arrow("dictionary<string>")]
    players: Annotated[int, Arrow("int8")]
    policies: Annotated[list[str], Arrow("list<string>")] = Field(
        default_factory=list, description="Each seat's policy; empty for variants without choices.")
    deal: Annotated[Literal["shuffle", "explicit", "all"], Arrow("dictionary<string>")] = Field(
        description="How the game was dealt: shuffled from its seed, an explicit deal, or deal `game_index` of "
                    "every deal of the deck (`--all-deals`).")
    outcome: Annotated[Outcome, Arrow("dictionary<string>")]
    winner: Annotated[int | None, Arrow("int8")]
    battles: Annotated[int, Arrow("int32")]
    cards_laid: Annotated[int, Arrow("int32")] = Field(
        description="Cards laid on the table in the whole game: played face up, put down face down, forfeited.")
    wars: Annotated[int, Arrow("int32")] = Field(description="Every war; a double war counts 2.")
    war_battles: Annotated[int, Arrow("int32")] = Field(description="Battles with at least one war.")
    max_war_depth: Annotated[int, Arrow("int16")]
    first_battle_war: Annotated[bool, Arrow("bool")]
    war_wins: Annotated[list[int], Arrow("list<int32>")] = Field(
        description="Per seat: battles with a war that the seat won.")
    final_cards: Annotated[list[int], Arrow("list<int16>")] = Field(
        description="Per seat: cards held at the end.")
    cards_set_aside: Annotated[int, Arrow("int16")] = Field(description="Out of play at the end.")
    cycle_length: Annotated[int | None, Arrow("int32")] = Field(
        None, description="For a cycle: battles between the two equal positions.")
    cycle_key: Annotated[int | None, Arrow("int64")] = Field(
        None, description="For a cycle: the same number for every game that falls into the same cycle, by ranks "
                          "(docs/rules.md, \"Cycles\").")
    events: Annotated[int, Arrow("int32")] = Field(description="Events of this game (rows in the `events` view).")


class CountRow(BaseModel):
    """One row of `counts/` files (`--log counts`): how many deals of a rule set's enumeration give
    games of this kind, and the first of them; every column an exact question counts over."""

    outcome: Annotated[Outcome, Arrow("dictionary<string>")]
    winner: Annotated[int | None, Arrow("int8")]
    first_of_class: Annotated[bool | None, Arrow("bool")] = Field(
        description="Two seats: whether the deals are the first of their class (a deal and the deal with the "
                    "seats' piles swapped); null for more seats.")
    battles: Annotated[int, Arrow("int32")]
    cards_laid: Annotated[int, Arrow("int32")]
    cycle_length: Annotated[int | None, Arrow("int32")]
    cycle_key: Annotated[int | None, Arrow("int64")]
    games: Annotated[int, Arrow("int64")] = Field(ge=1, description="How many deals give such a game.")
    first_deal: Annotated[int, Arrow("int64")] = Field(ge=0, description="The least of those deals' numbers.")


class CountShard(BaseModel):
    """One row of a `counts/` shards file: a range of deals counted in one piece, and a digest of
    its counts (engines.compiled.tally.digest), which validation plays again and compares."""

    first_deal: Annotated[int, Arrow("int64")]
    deals: Annotated[int, Arrow("int64")]
    digest: Annotated[int, Arrow("int64")]


class DataFile(BaseModel):
    path: str = Field(description="Relative to the dataset folder, `/`-separated.")
    table: Literal["games", "events", "deals", "seeds", "counts", "count_shards"]
    rule_set: int = Field(ge=0, le=MAX_ORDINAL)
    first_game: int = Field(ge=0, lt=GAME_ID_STRIDE)
    games: int = Field(ge=0, le=GAME_ID_STRIDE)
    rows: int = Field(ge=0, lt=2**63)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class RuleSetEntry(BaseModel):
    ordinal: int = Field(ge=0, le=MAX_ORDINAL, description="game_id = ordinal * 1e9 + game_index.")
    rules_id: str
    rules_id_version: int = Field(1, ge=0, le=MAX_INT32, description="The version of `rules_id` (1 in manifests written before "
                                                 "versions were recorded).")
    rules: RuleSet
    policies: list[str] = Field(default_factory=list)
    seed: int = Field(ge=0, lt=2**64)
    games: int = Field(ge=0, le=GAME_ID_STRIDE)
    shard_size: int = Field(ge=1, le=2**62, description="Games a part file; deals a shard under `--log counts`.")
    deals: str | None = Field(None, description="Explicit deals file in the dataset, if any.")
    all_deals: bool = Field(False, description="Game i plays deal i of every deal of the deck (model.all_deals).")
    seeds: str | None = Field(None, description="A file of each game's own seed and the game it came from, where "
                                                "the games were taken from another dataset (`--from`).")
    log: Literal["events", "games", "counts"] = Field(
        "events", description="What was stored: the event log and the games table, the games table alone, or "
                              "(every deal) the counts of its games by kind.")
    keep: str | None = Field(None, description="`--log counts`: the condition over the counts' columns that chose "
                                               "the games whose rows it keeps (the first 100,000 deals).")
    deal_range: list[int] | None = Field(None, min_length=2, max_length=2, description=(
        "`--log counts`: the deals counted, [first, stop) of the deck's enumeration (the whole, or a slice "
        "of it that other slices complete)."))
    name: str | None = Field(None, description="The name the user gave the rule set (`war generate --name`, or "
                                               "`name` in a rule file); not part of the rules nor of `rules_id`.")
    engine_version: str | None = Field(None, description="The engine that played this rule set's games where it "
                                                         "is not the manifest's (a rule set kept by an append of "
                                                         "a newer war).")
    source: str | None = Field(None, description="Where its games were taken from (`war generate --from`): the "
                                                 "dataset as given then; each game's own game there is in `seeds`.")

    @property
    def label(self) -> str:
        """The name the user gave, else the rule set's own label (RuleSet.label)."""
        return self.name or self.rules.label


def rules_id_problem(entry: RuleSetEntry) -> str | None:
    """What is wrong with a manifest entry's rules_id: not its rules' id of the version it gives
    (a manifest edited by hand, or re-signed after a change of its rules). `war validate` says it
    as a problem; every reader refuses the dataset with the same words (storage.dataset)."""
    if entry.rules_id_version not in RULES_ID_VERSIONS:
        return (f"rule set {entry.ordinal}: unknown rules_id version {entry.rules_id_version} "
                f"(this war knows {', '.join(map(str, RULES_ID_VERSIONS))})")
    expected = rules_id(entry.rules, entry.rules_id_version)
    if entry.rules_id != expected:
        return (f"rule set {entry.ordinal}: rules_id {entry.rules_id} is not its rules' id "
                f"(version {entry.rules_id_version}: {expected})")
    return None


class Manifest(BaseModel):
    """`manifest.json`: written last and atomically; a dataset without it is unfinished."""

    schema_version: int = Field(SCHEMA_VERSION, ge=0, le=MAX_INT32)
    engine_version: str = ENGINE_VERSION
    master_seed: int = Field(ge=0, lt=2**64)
    rule_sets: list[RuleSetEntry]
    files: list[DataFile]


MODELS = {"rule_set": RuleSet, "event": EventModel, "log_row": LogRow, "game": GameRecord, "count": CountRow,
          "count_shard": CountShard, "manifest": Manifest}


def arrow_fields(model: type[BaseModel]) -> list[tuple[str, str, bool]]:
    """(name, arrow type, nullable) for every field, from the Arrow markers."""
    out = []
    for name, info in model.model_fields.items():
        marks = [m for m in info.metadata if isinstance(m, Arrow)]
        if not marks:
            raise TypeError(f"{model.__name__}.{name} has no Arrow type")
        nullable = type(None) in get_args(info.annotation)
        out.append((name, marks[0].type, nullable))
    return out


def models(outside: bool = True) -> dict[str, type[BaseModel]]:
    """MODELS of every registered family, or (`outside=False`) of the built-in families alone:
    the models whose fields list the families' options and kinds, made again for those."""
    if outside:
        return MODELS
    rule_set = rule_set_model(registry(outside=False).options.values())
    kinds = tuple(registry(outside=False).kinds)
    event = create_model("EventModel", __base__=EventModel, __doc__=EventModel.__doc__,
                         kind=(Annotated[Literal[kinds], Arrow("dictionary<string>")], ...))  # type: ignore[valid-type]
    entry = create_model("RuleSetEntry", __base__=RuleSetEntry, __doc__=RuleSetEntry.__doc__, rules=(rule_set, ...))
    manifest = create_model("Manifest", __base__=Manifest, __doc__=Manifest.__doc__, rule_sets=(list[entry], ...))
    return {**MODELS, "rule_set": rule_set, "event": event, "manifest": manifest}


def json_schemas(outside: bool = True) -> dict[str, str]:
    """The text of every exported JSON Schema file, by file name (`outside=False`: of the
    built-in families alone, as `schemas/` holds them)."""
    return {f"{name}.schema.json": json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
            for name, model in models(outside).items()}


def schemas_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    for candidate in (package.parent / "schemas", package / "_schemas"):
        if candidate.is_dir():
            return candidate
    return package.parent / "schemas"


def explain(err: ValidationError, what: str) -> str:
    """One line naming the first bad field of a pydantic error."""
    e = err.errors()[0]
    loc = ".".join(str(p) for p in e["loc"])
    if e["type"] == "extra_forbidden":
        return f"{what}: unknown option {loc!r}"
    msg = re.sub(r"^(Value error|Assertion failed), ", "", e["msg"])
    if loc and isinstance(e.get("input"), dict):  # a whole object: the message says what is wrong with it
        return f"{what}: {loc}: {msg}"
    if loc:
        return f"{what}: {loc}: {msg} (got {brief(e.get('input'))})"
    return f"{what}: {msg}"


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[2] / "schemas"
    target.mkdir(exist_ok=True)
    for fname, text in json_schemas(outside=False).items():
        (target / fname).write_text(text, encoding="utf-8")
        print(f"wrote {target / fname}")
