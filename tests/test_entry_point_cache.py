"""The family group's entry points are read from war's cache while nothing installed changes,
and read again by importlib.metadata when a package appears, changes or goes."""

from __future__ import annotations

import sys

import pytest

from pipeline.model import entry_point_cache as cache

GROUP = "war.test_cache_group"


def installed(site, name: str, points: dict[str, str]) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()),
                                           encoding="utf-8")


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setenv("WAR_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "war_cached_mod.py").write_text("class Thing:\n    VALUE = 7\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    return folder


def scans(monkeypatch) -> list[str]:
    """Count importlib.metadata's scans of the group from here on."""
    import importlib.metadata as metadata

    seen: list[str] = []
    real = metadata.entry_points

    def counted(**kwargs):
        seen.append(kwargs.get("group"))
        return real(**kwargs)

    monkeypatch.setattr(metadata, "entry_points", counted)
    return seen


def test_kept_while_nothing_changes_and_read_again_when_a_package_changes(site, monkeypatch):
    installed(site, "war_cached_a", {"b": "war_cached_mod:Thing.VALUE", "a": "war_cached_mod:Thing"})
    seen = scans(monkeypatch)
    first = cache.points(GROUP)
    assert [p.name for p in first] == ["a", "b"] and first[1].load() == 7 and first[0].load().VALUE == 7
    assert cache.points(GROUP) == first and len(seen) == 1  # the second from the cache
    installed(site, "war_cached_a", {"a": "war_cached_mod:Thing", "c": "war_cached_mod"})  # edited in place
    again = cache.points(GROUP)
    assert [p.name for p in again] == ["a", "c"] and len(seen) == 2
    assert again[1].load() is sys.modules["war_cached_mod"]
    installed(site, "war_cached_z", {"z": "war_cached_mod:Thing"})  # a new package
    assert [p.name for p in cache.points(GROUP)] == ["a", "c", "z"] and len(seen) == 3
    for n in range(cache.KEPT + 2):  # each install leaves a stale file: the newest KEPT stay
        installed(site, f"war_cached_n{n}", {f"n{n}": "war_cached_mod"})
        cache.points(GROUP)
    assert len(list((site.parent / "cache" / "entry_points").glob(f"{GROUP}.*.json"))) == cache.KEPT
    assert len(cache.points(GROUP)) == 3 + cache.KEPT + 2 and len(seen) == 3 + cache.KEPT + 2


def test_a_damaged_or_unwritable_cache_is_no_cache(site, monkeypatch, tmp_path):
    installed(site, "war_cached_a", {"a": "war_cached_mod:Thing"})
    kept = cache.points(GROUP)
    [kept_file] = (tmp_path / "cache" / "entry_points").glob(f"{GROUP}.*.json")
    kept_file.write_text("{not json", encoding="utf-8")
    assert cache.points(GROUP) == kept
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv("WAR_CACHE_DIR", str(blocked))
    assert cache.points(GROUP) == kept
