"""The data contract: pydantic models for the rule set, the event, the game record and the
manifest. The Arrow schemas of the Parquet files and the JSON Schema files in `schemas/` are
both derived from these models, so there is one source of truth.

Run `python -m pipeline.model.schema` to rewrite `schemas/*.schema.json` after changing a model.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, Union, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import brief
from . import event_kinds
from .variants import variant
from .words import plural

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
MAX_DECK = 32_768            # card codes 0 .. 32767
MAX_INT32 = 2**31 - 1        # battles, wars, a war's size
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
Pickup = Literal["shuffled", "table_order", "winner_first", "pooled", "natural", "sorted"]
PICKUPS: tuple[str, ...] = get_args(Pickup)  # the order won cards join a pile (rules 2.4)


class RuleSet(BaseModel):
    """A variant plus every option (docs/rules.md 8). Two games with the same rule set and seed are
    the same game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    variant: str = Field(description="Registered variant name (`war variants`).")
    players: int = Field(2, ge=2, le=8, description="Number of seats, 2..8 (rules 1.4).")
    jokers: int = Field(0, description="0 or 2 Jokers, which beat every other rank (rules 1.1).")
    war_down: Union[int, Literal["by_rank"]] = Field(
        3, description="Cards face down in a war, or `by_rank` (Război, rules 5.1).")
    ace_value: int = Field(11, ge=1, le=MAX_DECK, description="The Ace's value when war size is by rank.")
    war_tiebreak: Literal["repeat", "single_up"] = Field("repeat", description="rules 2.5.")
    shortfall: Literal["last_card_up", "lose"] = Field("last_card_up", description="rules 2.3.")
    pickup: Pickup = Field(
        "shuffled", description="Order in which won cards join the pile (rules 2.4).")
    ranks: int = Field(13, ge=1, le=1000, description="Ranks in the deck (rules 1.2).")
    suits: int = Field(4, ge=1, le=1000, description="Suits in the deck (rules 1.2).")
    win: str = Field("all_cards", pattern=r"^(all_cards|wars:[1-9][0-9]{0,8})$",
                     description="`all_cards`, or `wars:N`: first to win N wars (rules 2.7).")
    max_battles: int = Field(10_000, gt=0, le=MAX_INT32, description="Cap on battles; the game ends `capped`.")
    hand_size: int = Field(0, description="Cards in hand (Arneson's War: 3).")

    @field_validator("jokers", "hand_size")
    @classmethod
    def _one_of(cls, v: int, info) -> int:
        allowed = {"jokers": (0, 2), "hand_size": (0, 3)}[info.field_name]
        if v not in allowed:
            raise ValueError(f"must be {allowed[0]} or {allowed[1]}")
        return v

    @field_validator("war_down")
    @classmethod
    def _war_down(cls, v: int | str) -> int | str:
        if isinstance(v, int) and not 0 <= v <= MAX_DECK:
            raise ValueError(f"must be an integer 0 .. {MAX_DECK} or 'by_rank'")
        return v

    @model_validator(mode="after")
    def _playable(self) -> "RuleSet":
        spec = variant(self.variant)
        if spec.fixed_players is not None and self.players != spec.fixed_players:
            raise ValueError(f"{self.variant} is played by exactly {spec.fixed_players} players")
        deck = self.ranks * self.suits + self.jokers
        if deck < self.players:
            raise ValueError(f"a deck of {plural(deck, 'card')} leaves some of {self.players} players without a card; "
                             f"each needs at least one")
        if (spec.standard_deck or self.war_down == "by_rank") and (self.ranks, self.suits) != (13, 4):
            raise ValueError("war size by rank needs the standard deck (ranks=13, suits=4)")
        return self

    @property
    def wars_to_win(self) -> int | None:
        return int(self.win.split(":")[1]) if self.win.startswith("wars:") else None

    def differences(self) -> dict:
        """The options that differ from the variant's defaults (the variant's own defaults over
        the RuleSet's), as JSON values: what sets this rule set apart from its variant."""
        defaults = {name: field.default for name, field in type(self).model_fields.items()}
        defaults.update(variant(self.variant).defaults)
        return {name: value for name, value in self.model_dump(mode="json").items()
                if name != "variant" and value != defaults.get(name)}

    @property
    def rules_id(self) -> str:
        """A short hash of what sets the rule set apart from its variant's defaults (an id of
        RULES_ID_VERSION), the same on every machine."""
        return _rules_id(self, RULES_ID_VERSION)

    @property
    def label(self) -> str:
        """The rule set as a person reads it: its variant and the options that differ from the
        variant's defaults (`classic pickup=table_order`), which tell apart what the hash of
        `rules_id` hides."""
        return " ".join([self.variant, *(f"{k}={v}" for k, v in self.differences().items())])


# A rules_id's version. Version 1 hashed every option, defaults included, so an option added
# to RuleSet changed every id; version 2 hashes the variant and the options that differ from
# its defaults, so an option added with a default that keeps today's games changes no id.
# A manifest's entry says which version its id is (RuleSetEntry.rules_id_version).
RULES_ID_VERSION = 2
RULES_ID_VERSIONS = (1, 2)
# The options a rule set had while ids were of version 1 (its hash covers these, and any
# option added since that is set away from its default).
VERSION_1_OPTIONS = ("variant", "players", "jokers", "war_down", "ace_value", "war_tiebreak", "shortfall",
                     "pickup", "ranks", "suits", "win", "max_battles", "hand_size")


def rules_id(rules: RuleSet, version: int = RULES_ID_VERSION) -> str:
    """The rule set's id of `version` (RULES_ID_VERSIONS)."""
    return _rules_id(rules, version)


@lru_cache(maxsize=256)
def _rules_id(rules: RuleSet, version: int) -> str:
    """rules_id, hashed once for equal rule sets (a frozen model hashes and compares by its
    fields): the engines ask for it a batch of games at a time."""
    if version == 1:
        changed = rules.differences()
        payload = {name: value for name, value in rules.model_dump(mode="json").items()
                   if name in VERSION_1_OPTIONS or name in changed}
    elif version == 2:
        payload = {"rules_id": 2, "variant": rules.variant, "options": rules.differences()}
    else:
        raise ValueError(f"no rules_id version {version} (versions: {RULES_ID_VERSIONS})")
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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


def json_schemas() -> dict[str, str]:
    """The text of every exported JSON Schema file, by file name."""
    return {f"{name}.schema.json": json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
            for name, model in MODELS.items()}


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
    if loc:
        return f"{what}: {loc}: {msg} (got {brief(e.get('input'))})"
    return f"{what}: {msg}"


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[2] / "schemas"
    target.mkdir(exist_ok=True)
    for fname, text in json_schemas().items():
        (target / fname).write_text(text, encoding="utf-8")
        print(f"wrote {target / fname}")
