"""Atomic writes: the target is the old or the new complete file, never a mix."""

import json
import os

import pytest

from dpexact.io import atomic_write_json, atomic_write_text, check_writable, check_writable_dir


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    p = tmp_path / "r.json"
    atomic_write_json(p, {"a": 1})
    atomic_write_json(p, {"a": 2})
    assert json.loads(p.read_text()) == {"a": 2}
    assert os.listdir(tmp_path) == ["r.json"]
    assert p.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    p = tmp_path / "r.json"
    atomic_write_text(p, "old complete")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(p, "new")
    assert p.read_text() == "old complete"
    assert os.listdir(tmp_path) == ["r.json"]


def test_unserialisable_object_writes_nothing(tmp_path):
    p = tmp_path / "r.json"
    with pytest.raises(TypeError):
        atomic_write_json(p, {"x": object()})
    assert not p.exists()


def test_check_writable_names_the_problem(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match=r"^out: .*f is a file, not a directory"):
        check_writable(tmp_path / "f" / "x.json", "out")
    with pytest.raises(ValueError, match="is a directory"):
        check_writable(tmp_path, "out")
    # a missing directory is refused, not created (a typo must not create a tree)
    with pytest.raises(ValueError, match="new/deeper does not exist"):
        check_writable(tmp_path / "new" / "deeper" / "x.json")
    assert not (tmp_path / "new").exists()
    (tmp_path / "new").mkdir()
    assert check_writable(tmp_path / "new" / "x.json") == tmp_path / "new" / "x.json"
    assert check_writable_dir(tmp_path / "d2").is_dir()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
