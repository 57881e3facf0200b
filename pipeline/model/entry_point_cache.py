"""The entry points of a group, read once per change of what is installed, not once per command.

importlib.metadata's import and its scan of every distribution cost each `war` command about
0.1 s of CPU, a fifth of a one-game query. What it found is kept in war's per-user cache
(places.user_cache), keyed by the stat of every distribution's entry_points.txt on sys.path (and
of every file on sys.path, a zip): installing, removing, upgrading or editing a package, or a
new folder on PYTHONPATH, gives a new key and so a fresh scan by importlib.metadata. A cache that
cannot be read or written is no cache; nothing is refused for it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from dataclasses import dataclass

from ..places import keep, prune, user_cache

VERSION = 1


@dataclass(frozen=True)
class Point:
    """One entry point as importlib.metadata names it: `name = module:attr`."""

    name: str
    value: str
    module: str
    attr: str

    def load(self):
        """What importlib.metadata's EntryPoint.load gives: the module imported, then the attribute."""
        value = importlib.import_module(self.module)
        for part in self.attr.split(".") if self.attr else ():
            value = getattr(value, part)
        return value


def stamp() -> str:
    """The key of what is installed: every sys.path entry and the stat of each distribution's
    entry_points.txt in it (its name, its time and size), in order."""
    digest = hashlib.sha256(f"{VERSION}\0{sys.version}\0".encode())
    for entry in sys.path:
        place = entry or "."
        digest.update(os.fsencode(place) + b"\0")
        try:
            with os.scandir(place) as found:
                infos = sorted(e.name for e in found if e.name.endswith((".dist-info", ".egg-info")))
        except NotADirectoryError:  # a zip on sys.path: its own stat
            infos = [""]
        except OSError:
            continue
        for name in infos:
            try:
                st = os.stat(os.path.join(place, name, "entry_points.txt") if name else place)
            except OSError:
                digest.update(os.fsencode(name) + b"\0-\0")
                continue
            digest.update(os.fsencode(name) + f"\0{st.st_mtime_ns}\0{st.st_size}\0".encode())
    return digest.hexdigest()


KEPT = 8  # files kept a group: `war` and `python -c` see different sys.path[0]s, so different keys


def _file(group: str, key: str):
    return user_cache() / "entry_points" / f"{group}.{key[:20]}.json"


def points(group: str, key: str | None = None) -> list[Point]:
    """The entry points of `group`, sorted by name: from the cache when nothing installed has
    changed since they were read, else from importlib.metadata (and kept). `key`: stamp(), when
    the caller has it already."""
    key = key or stamp()
    path = _file(group, key)
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        if kept.get("stamp") == key:
            return [Point(*p) for p in kept["points"]]
    except (OSError, ValueError, TypeError, KeyError):
        pass
    from importlib.metadata import entry_points

    found = sorted((Point(ep.name, ep.value, ep.module, ep.attr or "") for ep in entry_points(group=group)),
                   key=lambda p: p.name)
    if keep(path, json.dumps({"stamp": key, "points": [[p.name, p.value, p.module, p.attr] for p in found]}).encode()):
        prune(path.parent, f"{group}.*.json", KEPT)  # each install or removal of a package leaves one stale
    return found
