"""A finished dataset, on disk or on remote storage: its manifest, its files, and the way to one
game's rows."""

from __future__ import annotations

import hashlib
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..errors import DatasetError, DealError, GameNotFound, OutsideDataset
from ..model.all_deals import MAX_DEALS, MOST_COUNTED_DEALS, enumerated_deal, too_many_deals
from ..model.deal import Deal, check_deal
from ..model.families import registry
from ..model.inputs import lines as split_lines
from ..model.inputs import loads_json, not_regular
from ..model.rng import game_seed
from ..model.schema import (
    GAME_ID_STRIDE,
    READ_VERSIONS,
    SCHEMA_VERSION,
    DataFile,
    Manifest,
    RuleSetEntry,
    explain,
    rules_id_problem,
)
from .files import sha256_file
from .journal import being_written
from .layout import MANIFEST, REPORT_DIR, WORK_DIR  # noqa: F401  (a dataset's names, also said from here)
from .location import StorePath, location

def part_path(table: str, variant: str, part: int) -> str:
    return f"{table}/variant={variant}/part-{part:05d}.parquet"


def split_game_id(game_id: int) -> tuple[int, int]:
    return divmod(game_id, GAME_ID_STRIDE)


def outside(root, rel: str, folders: dict | None = None) -> str | None:
    """Why the manifest path `rel` leads outside the dataset at `root`, or None when it stays in.
    A manifest is data anyone may hand over, so its paths are checked before anything is read
    by them: no absolute path, no `..`, and, on local disk, no symbolic link leading out.
    `folders` keeps the folders resolved so far, for the next path of the same dataset. In
    strings (os.path), not pathlib: a million games list 1,000 paths, and pathlib's objects took
    a query or a replay 0.1 s of CPU to check them."""
    if not rel or "\0" in rel or "\\" in rel:
        return "not a plain relative path"
    if rel.startswith("/") or (len(rel) > 1 and rel[0].isalpha() and rel[1] == ":"):
        return "an absolute path"
    if ".." in rel.split("/"):
        return "a path that climbs out with .."
    if isinstance(root, Path):
        folders = {} if folders is None else folders
        base = folders.get(root)
        if base is None:
            base = folders[root] = str(root.resolve())
        target = _resolved(os.path.join(base, posixpath.normpath(rel)), folders)
        if not (target == base or target.startswith(base.rstrip("/") + "/")):
            return "through a symbolic link"
    return None


def _resolved(path: str, folders: dict) -> str:
    """os.path.realpath(path), with its folder resolved once for all the files in it: a dataset
    of 500,000 games lists 500 files in two folders, and resolving each path whole took a replay
    0.15 s."""
    parent, name = os.path.split(path)
    folder = folders.get(parent)
    if folder is None:
        folder = folders[parent] = os.path.realpath(parent)
    target = os.path.join(folder, name)
    return os.path.realpath(target) if os.path.islink(target) else target


def entry_problem(entry: RuleSetEntry) -> str | None:
    """What makes a manifest's rule set one no war wrote nor can play, said by every reader
    (Dataset.open) and by `war validate` as a problem of manifest.json; None when nothing does:
    `all_deals` for a deck of more deals than war enumerates (the limit and words `war generate
    --all-deals` refuses it with; a counts rule set's limit is `--log counts`'), or `policies`
    for a variant without decisions (a hand-edited manifest, not a flag the user gave)."""
    if entry.all_deals:
        too_many = too_many_deals(entry.rules, MOST_COUNTED_DEALS if entry.log == "counts" else MAX_DEALS)
        if too_many is not None:
            return (f"rule set {entry.ordinal}: all_deals says its games play every deal of its deck, but "
                    f"{too_many} (the most war enumerates)")
    if entry.policies:
        reg = registry()
        if entry.rules.variant in reg.variants and not reg.family(entry.rules.variant).decision_names:
            return (f"rule set {entry.ordinal}: variant {entry.rules.variant!r} has no decisions, but the "
                    f"manifest lists policies for it ({', '.join(map(str, entry.policies))})")
    return None


@dataclass
class Dataset:
    root: Path | StorePath
    manifest: Manifest

    @classmethod
    def open(cls, root: str | Path, check_paths: bool = True) -> "Dataset":
        """The finished dataset at `root`. A manifest naming a file outside the dataset raises
        OutsideDataset, and one naming a file twice, giving a rule set an id that is not its
        rules' or a rule set no war can play (entry_problem) a DatasetError, unless `check_paths`
        is False (validation, which reports each such problem by name and reads none of those
        paths)."""
        root = location(root)
        if not root.exists():
            raise DatasetError(f"no dataset at {str(root)!r}: the folder does not exist")
        if not root.is_dir():
            raise DatasetError(f"{str(root)!r} is a file, not a dataset folder")
        path = root / MANIFEST
        if not path.exists():
            if (root / WORK_DIR).exists():
                writer = being_written(root)
                if writer is not None:
                    raise DatasetError(f"{str(root)!r} is being written by {writer} (war generate); "
                                       f"try again when it finishes")
                raise DatasetError(f"dataset {str(root)!r} is unfinished (no manifest.json; "
                                   f"generating it again with `resume` finishes it)", params=("resume",))
            if (root / "solution.json").exists():  # a reader of games given a solution (war.validate, not validate_solution)
                raise DatasetError(f"{str(root)!r} is a solution of war solve, not a dataset of games: "
                                   f"this reads games (a solution is read by `war query`, `war report`, `war serve`, "
                                   f"`war validate` and war.validate_solution)")
            raise DatasetError(f"{str(root)!r} is not a dataset: it has no manifest.json (nor solution.json, a solution of war solve)")
        kind = not_regular(path)
        if kind is not None:
            raise DatasetError(f"{str(path)!r} is {kind}, not a file")
        try:
            data = loads_json(path.read_text(encoding="utf-8"), limit=None)
        except (OSError, ValueError) as err:
            raise DatasetError(f"cannot read {str(path)!r}: {err}") from None
        try:
            manifest = Manifest.model_validate(data)
        except ValidationError as err:
            raise DatasetError(explain(err, f"manifest {str(path)!r}")) from None
        if manifest.schema_version not in READ_VERSIONS:
            raise DatasetError(f"{str(path)!r} has schema version {manifest.schema_version}; "
                               f"this war reads versions {READ_VERSIONS[0]} to {SCHEMA_VERSION}: generate the dataset again "
                               f"(its rule sets and seed give the same games)")
        ds = cls(root, manifest)
        if check_paths:
            for rel, why in ds.outside_paths().items():
                raise OutsideDataset(rel, why)
            listed: set[str] = set()
            for f in manifest.files:
                if f.path in listed:
                    raise DatasetError(f"manifest.json lists {f.path!r} twice, so its rows would be read twice; "
                                       f"`war validate` names every problem of the manifest")
                listed.add(f.path)
            for entry in manifest.rule_sets:  # every reader names a rule set by its id, and plays it
                problem = rules_id_problem(entry) or entry_problem(entry)
                if problem is not None:
                    raise DatasetError(f"manifest.json: {problem}; `war validate` names every problem of the "
                                       f"manifest")
        return ds

    def outside_paths(self) -> dict[str, str]:
        """Every path in the manifest (data files and deals files) that leads outside the
        dataset, with the reason."""
        paths = [f.path for f in self.manifest.files] + [e.deals for e in self.manifest.rule_sets if e.deals]
        found, folders = {}, {}
        for rel in paths:
            why = outside(self.root, rel, folders)
            if why:
                found[rel] = why
        return found

    def files(self, table: str) -> list[DataFile]:
        return [f for f in self.manifest.files if f.table == table]

    def rule_set(self, ordinal: int) -> RuleSetEntry:
        for entry in self.manifest.rule_sets:
            if entry.ordinal == ordinal:
                return entry
        raise KeyError(ordinal)

    def locate(self, game_id: int) -> tuple[RuleSetEntry, DataFile, DataFile | None]:
        """The rule set of a game and the games and events files that hold it (no events file
        where the rule set stores the games table alone)."""
        ordinal, index = split_game_id(game_id)
        entry = next((e for e in self.manifest.rule_sets if e.ordinal == ordinal), None)
        if game_id < 0 or entry is None or index >= entry.games:
            sizes = ", ".join(f"{e.ordinal * GAME_ID_STRIDE}..{e.ordinal * GAME_ID_STRIDE + e.games - 1}"
                              for e in self.manifest.rule_sets if e.games > 0)
            counted = [str(e.ordinal) for e in self.manifest.rule_sets if e.log == "counts" and e.games == 0]
            said = f"game ids: {sizes}" if sizes else "it has no games"
            if counted:  # a rule set of counts alone (--log counts) has no games rows
                said += (f"; rule set{'s' * (len(counted) > 1)} {', '.join(counted)} store"
                         f"{'s' * (len(counted) == 1)} counts of {'its' if len(counted) == 1 else 'their'} deals "
                         f"(--log counts), no games rows")
            raise GameNotFound(f"dataset {str(self.root)!r} has no game {game_id} ({said})")
        found = {}
        for f in self.manifest.files:
            if f.rule_set == ordinal and f.first_game <= index < f.first_game + f.games and f.table in ("games", "events"):
                found[f.table] = f
        if "games" not in found or ("events" not in found and entry.log == "events"):
            raise DatasetError(f"manifest lists no file for game {game_id}")
        return entry, found["games"], found.get("events")

    def game_seed(self, entry: RuleSetEntry, index: int) -> int:
        """Game `index`'s seed (game_seeds)."""
        return self.game_seeds(entry, [index])[0]

    def game_seeds(self, entry: RuleSetEntry, indexes) -> list[int]:
        """The seeds of these games of a rule set: their own where the games were taken from
        another dataset, else the master seed's (docs/rules.md, Randomness)."""
        if entry.seeds is None:
            return [game_seed(self.manifest.master_seed, i) for i in indexes]
        lines = self._lines(entry.seeds, "seeds")
        try:
            return [int(loads_json(lines[i])["seed"]) for i in indexes]
        except (IndexError, ValueError, KeyError, TypeError) as err:
            raise DatasetError(f"cannot read the seeds of {entry.seeds}: {err}") from None

    def lineage(self, entry: RuleSetEntry, indexes) -> list[tuple[int | None, int | None]]:
        """Where each of these games of a rule set comes from: (its game_id in the dataset it was
        taken from, `war generate --from`, else None; its deal_index, the number of its deal among
        every deal of its deck, where it played one of `--all-deals` here or there, else None)."""
        if entry.seeds is None:
            return [(None, i if entry.all_deals else None) for i in indexes]
        lines = self._lines(entry.seeds, "seeds")
        try:
            taken = [loads_json(lines[i]) for i in indexes]
            return [(None if t.get("from") is None else int(t["from"]),
                     None if t.get("deal_index") is None else int(t["deal_index"])) for t in taken]
        except (IndexError, ValueError, KeyError, TypeError, AttributeError) as err:
            raise DatasetError(f"cannot read the seeds of {entry.seeds}: {err}") from None

    def deal(self, entry: RuleSetEntry, index: int) -> Deal | None:
        """The deal game `index` of a rule set played when it was not shuffled from its seed
        (deals_of); None when it was."""
        return self.deals_of(entry, [index])[0] if entry.all_deals or entry.deals else None

    def deals_of(self, entry: RuleSetEntry, indexes) -> list[Deal]:
        """The deals of these games of a rule set that does not shuffle its own: deal i of the
        deck's enumeration, or line i of the explicit deals file."""
        if entry.all_deals and not entry.deals:  # a counts rule set's kept games list their deals
            return [enumerated_deal(entry.rules, i) for i in indexes]
        lines = self._lines(entry.deals, "deals")
        try:
            return [check_deal(entry.rules, data["piles"], data.get("set_aside"), f"{entry.deals} line {i + 1}")
                    for i in indexes for data in [loads_json(lines[i])]]
        except (IndexError, ValueError, KeyError, TypeError, DealError) as err:
            raise DatasetError(f"cannot read the deals of {entry.deals}: {err}") from None

    def not_listed(self, rel: str) -> DatasetError:
        """The error of a data file `rel` that is not the file the manifest lists (its SHA-256
        differs), as every reader says it."""
        return DatasetError(f"{str(self.root)!r}: {rel} is not the file its manifest lists (its SHA-256 differs): "
                            f"damaged or changed since it was written; `war validate` checks the rest")

    def check_file(self, listed: DataFile) -> None:
        """Refuse a local data file that is not the one its manifest entry `listed` names (one
        on remote storage is read as it is: hashing it would fetch it whole)."""
        if not isinstance(self.root, StorePath) and sha256_file(self.root / listed.path) != listed.sha256:
            raise self.not_listed(listed.path)

    def _lines(self, rel: str, what: str) -> list[str]:
        kind = not_regular(self.root / rel)
        if kind is not None:
            raise DatasetError(f"cannot read the {what} file {rel}: it is {kind}, not a file")
        try:
            data = (self.root / rel).read_bytes()
            listed = next((f for f in self.manifest.files if f.path == rel), None)
            if listed is not None and hashlib.sha256(data).hexdigest() != listed.sha256:
                raise self.not_listed(rel)  # a seeds or deals file swapped in: another dataset's lineage and deals
            return split_lines(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise DatasetError(f"cannot read the {what} file {rel}: {err}") from None
