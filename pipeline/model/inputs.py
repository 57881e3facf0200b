"""Reading what a user or a dataset hands over (rule files, deals, manifests, journals): regular
files only, JSON and TOML nested at most MAX_DEPTH deep, and lines split at newlines only.

Why each: a FIFO in place of a file blocks whoever opens it until something writes to it, and a
device may never end; JSON or TOML nested thousands deep makes Python's parsers recurse until a
RecursionError (and a shallower nesting still makes every later repr and check recurse with
it); and str.splitlines also splits at U+2028, U+0085 and other Unicode line breaks, which JSON
allows unescaped inside a string, so a valid JSON Lines file read with it fails.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

MAX_DEPTH = 32  # arrays and objects in arrays and objects: a deal is 3 deep, a plan 5


class TooDeep(ValueError):
    """JSON or TOML nested deeper than MAX_DEPTH (a ValueError, as any other bad JSON is)."""


class KeyTwice(ValueError):
    """A JSON object that gives one key twice (a ValueError, as any other bad JSON is): `key`.
    json.loads keeps the last of them without a word, where TOML refuses the text."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} given twice")
        self.key = key


def _once(pairs: list) -> dict:
    """An object's key-value pairs as a dict, refusing (KeyTwice) a key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise KeyTwice(key)
            seen.add(key)
    return out


def not_regular(path) -> str | None:
    """What a local `path` is when it is not a regular file (or a link to one): "a folder",
    "a FIFO", "a device", "a socket"; None for a regular file, a path that does not exist (its
    reader says so its own way) and a location on remote storage, which holds only objects."""
    if not isinstance(path, (str, Path)):
        return None
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split at "\\n" only (a "\\r" before it dropped), never
    at the Unicode line breaks JSON allows inside strings; no last empty line."""
    out = text.split("\n")
    if out and out[-1] == "":
        out.pop()
    return [line[:-1] if line.endswith("\r") else line for line in out]


def depth(data, limit: int = MAX_DEPTH) -> int:
    """How deep `data` (parsed JSON or TOML) nests its lists and dicts, counted up to limit + 1
    without recursion."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if not isinstance(value, list):
            continue
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((item, level + 1) for item in value if isinstance(item, (list, dict)))
    return deepest


def _bounded(data, limit: int | None):
    if limit is not None and depth(data, limit) > limit:
        raise TooDeep(f"nested deeper than {limit} levels")
    return data


def loads_json(text: str | bytes, limit: int | None = MAX_DEPTH, unique: bool = False):
    """json.loads, refusing (TooDeep, a ValueError) a text nested deeper than `limit` levels, or
    deeper than Python's parser can go. `limit` None checks only the latter: for a manifest,
    whose pydantic model bounds its shape, and whose walk would cost as much as its parse.
    `unique`: an object that gives a key twice is refused too (KeyTwice, a ValueError), as TOML
    refuses it: for a file a person writes (a rule file), not for the files war writes, whose
    every object would then cost a call in Python."""
    try:
        data = json.loads(text, object_pairs_hook=_once) if unique else json.loads(text)
    except RecursionError:
        raise TooDeep(f"nested deeper than {limit or 'Python reads'} levels") from None
    if limit is not None and _opened(text) <= limit:
        return data  # cannot nest deeper than it opens arrays and objects: no walk needed
    return _bounded(data, limit)


def _opened(text: str | bytes) -> int:
    """How many arrays and objects `text` opens at most (strings' brackets counted too): a
    bound on its depth that costs two scans in C, where the walk of `depth` costs a deal line
    as much as its parse."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def loads_toml(text: str, limit: int = MAX_DEPTH):
    """tomllib.loads, refusing (TooDeep, a ValueError) a text nested deeper than `limit`."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise TooDeep(f"nested deeper than {limit} levels") from None
    return _bounded(data, limit)
