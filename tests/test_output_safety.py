"""Output paths that are not regular files are never replaced, and output failures are one line.

Every command's ``--output`` (and ``--plot``, ``--report``, ``--store``) given a FIFO or a
character device made in a temporary folder: the command writes the result into it in place
(a FIFO's reader receives the JSON) or refuses in one line, and afterwards the path is still a
FIFO / character device. The device node (root only: ``os.mknod``) is a copy of ``/dev/null``
(major 1, minor 3), so writing to it discards the data.
"""

import errno
import json
import os
import stat
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dpexact.io
from dpexact.cli.main import app
from dpexact.io import atomic_write_text, check_writable

runner = CliRunner()

#: quick runs of every command that takes --output/-o
COMMANDS = {
    "pmf": ["pmf", "-m", "pf", "-e", "1", "-q", "1,0"],
    "verify": ["verify", "-m", "em", "-e", "1", "--search", "grid", "--n", "2", "--values", "0,1"],
    "optimal": ["optimal", "--n", "2", "--k", "1", "-e", "1"],
    "ldp": ["ldp", "-m", "grr", "-N", "3", "-e", "1"],
    "optimal-ldp": ["optimal-ldp", "-N", "3", "-e", "1"],
    "delta": ["delta", "--gaussian", "1", "-e", "1"],
    "prob": ["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1"],
    "conform": ["conform", "pf", "-e", "1", "--draws", "300"],
    "bench-peers": ["bench-peers", "--name", "noisy_max_v1a"],
    "check": ["check", "--quick", "--claim", "pf.lemma.7"],
}


class FifoReader:
    """Reads a FIFO in a thread until its writer closes it."""

    def __init__(self, path: Path) -> None:
        self.path, self.data = path, None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()

    def finish(self) -> bytes | None:
        self.thread.join(timeout=10)
        if self.thread.is_alive() and stat.S_ISFIFO(os.stat(self.path).st_mode):  # nobody wrote: release the reader
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
            self.thread.join(timeout=10)
        return self.data


def _null_device(path: Path) -> bool:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        return False
    return True


def _is_fifo(p: Path) -> bool:
    return stat.S_ISFIFO(os.lstat(p).st_mode)


def _is_chr(p: Path) -> bool:
    return stat.S_ISCHR(os.lstat(p).st_mode)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_output_receives_the_result_and_survives(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    res = runner.invoke(app, COMMANDS[command] + ["--output", str(fifo)])
    data = reader.finish()
    assert _is_fifo(fifo), f"{command} replaced the FIFO"
    assert "Traceback" not in res.output and res.exit_code in (0, 1, 3), res.output
    assert data, res.output
    doc = json.loads(data)
    assert doc and (not isinstance(doc, dict) or doc.get("complete", True) is True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # no partial or temporary file beside it


@pytest.mark.parametrize("command", ["pmf", "optimal", "ldp", "delta", "check"])
def test_a_character_device_output_survives(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dev = tmp_path / "null"
    if not _null_device(dev):  # never the system's own /dev/null: a regression would destroy it
        pytest.skip("this process cannot create device nodes (os.mknod); the FIFO tests cover the same path")
    before = os.stat(dev)
    res = runner.invoke(app, COMMANDS[command] + ["--output", str(dev)])
    assert res.exit_code in (0, 1, 3) and "Traceback" not in res.output, res.output
    after = os.lstat(dev)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_sweep_plot_and_output_to_fifo_and_device(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "optimal"\nmechanisms = ["pf"]\nn = [2]\nk = [1]\nepsilon = ["1"]\n')
    plot, out = tmp_path / "plot.fifo", tmp_path / "out.fifo"
    os.mkfifo(plot)
    os.mkfifo(out)
    readers = FifoReader(plot), FifoReader(out)
    res = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "st"), "--workers", "0",
                              "--plot", str(plot), "--output", str(out)])
    png, doc = (r.finish() for r in readers)
    assert res.exit_code == 0, res.output
    assert _is_fifo(plot) and _is_fifo(out)
    assert png.startswith(b"\x89PNG") and json.loads(doc)["points"][0]["status"] == "ok"


@pytest.mark.parametrize("option", ["--store", "--report"])
def test_a_fifo_given_as_a_directory_is_refused_and_survives(option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "d.fifo"
    os.mkfifo(fifo)
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = "1"\nscores = "1,0"\n')
    args = (["sweep", str(spec), "--store", str(fifo), "--workers", "0"] if option == "--store"
            else COMMANDS["check"] + ["--report", str(fifo)])
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and option in res.output and res.output.count("\n") == 1, res.output
    assert _is_fifo(fifo)


def test_store_files_that_are_fifos_are_never_read_nor_replaced(tmp_path):
    from dpexact.sweep import ResultStore, load_spec, run_sweep

    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = "1"\nscores = "1,0"\n')
    s = load_spec(spec)
    store = ResultStore(tmp_path / "st")
    (point,) = s.points(dpexact.__version__)
    fifo = store.path(point.key)
    os.mkfifo(fifo)
    scan = store.scan()
    assert [reason for _, reason in scan.corrupt] == ["not a regular file"] and not scan.rows
    with pytest.raises(ValueError, match="not a regular file; not replaced"):
        run_sweep(s, store, workers=0)
    assert _is_fifo(fifo)


def test_the_writer_never_renames_over_a_device_or_fifo(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    assert atomic_write_text(fifo, "hello") == fifo
    assert reader.finish() == b"hello" and _is_fifo(fifo)
    dev = tmp_path / "null"
    if _null_device(dev):
        atomic_write_text(dev, "x" * 100_000)
        assert _is_chr(dev)
    assert dpexact.io.output_target("/dev/null") == (Path("/dev/null"), "stream")


def test_block_devices_sockets_directories_and_empty_paths_are_refused(tmp_path):
    import socket

    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        with pytest.raises(ValueError, match=r"^--output: .*is a socket"):
            check_writable(sock_path, "--output")
        with pytest.raises(ValueError, match="is a socket"):
            atomic_write_text(sock_path, "x")
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    blk = tmp_path / "blk"
    try:
        os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(7, 250))  # a loop device number; never opened
    except (PermissionError, OSError):
        blk = None
    if blk is not None:
        with pytest.raises(ValueError, match="is a block device"):
            check_writable(blk, "--output")
        with pytest.raises(ValueError, match="is a block device"):
            atomic_write_text(blk, "x")
        assert stat.S_ISBLK(os.lstat(blk).st_mode)
    with pytest.raises(ValueError, match="^-o: empty path"):
        check_writable("", "-o")
    with pytest.raises(ValueError, match="is a directory"):
        check_writable(tmp_path, "--output")


def test_a_link_to_a_file_keeps_the_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


@pytest.mark.parametrize("command", ["pmf", "bench-peers", "check"])
def test_empty_output_is_refused(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, COMMANDS[command] + ["-o", ""])
    assert res.exit_code == 2 and "--output" in res.output and res.output.count("\n") == 1, res.output
    assert list(tmp_path.iterdir()) == []


def test_a_name_too_long_is_refused_before_any_work(tmp_path, monkeypatch):
    import dpexact.utility

    ran = []
    monkeypatch.setattr(dpexact.utility, "expected_error", lambda *a, **k: ran.append(1))
    name = tmp_path / ("x" * 300 + ".json")
    res = runner.invoke(app, COMMANDS["pmf"] + ["-o", str(name)])
    assert res.exit_code == 2 and "file name too long" in res.output and res.output.count("\n") == 1, res.output
    assert not ran
    res = runner.invoke(app, COMMANDS["check"] + ["-o", str(tmp_path / ("y" * 250 + ".json"))])  # FILE.partial too long
    assert res.exit_code == 2 and "file name too long" in res.output, res.output


def test_a_long_name_that_fits_is_written(tmp_path):
    name = tmp_path / ("z" * 250 + ".json")  # 255 bytes: its temporary file needs a shorter name
    atomic_write_text(name, "{}")
    assert name.read_text() == "{}" and len(list(tmp_path.iterdir())) == 1


@pytest.mark.parametrize("command", ["pmf", "optimal", "check"])
def test_a_full_disk_is_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dpexact.io.os, "fsync", full_disk)
    out = tmp_path / "r.json"
    res = runner.invoke(app, COMMANDS[command] + ["-o", str(out)])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 1 and "No space left on device" in res.output, res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    assert lines[-1].startswith("error: --output") and not out.exists()


def test_a_full_device_is_written_in_place_and_reports_the_full_disk(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    full = tmp_path / "full"
    try:  # a copy of /dev/full (1, 7): every write fails with ENOSPC; never the system's own
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except (PermissionError, OSError):
        pytest.skip("this process cannot create device nodes (os.mknod)")
    res = runner.invoke(app, COMMANDS["pmf"] + ["-o", str(full)])
    assert res.exit_code == 1 and "No space left on device" in res.output and "internal error" not in res.output
    assert _is_chr(full) and os.lstat(full).st_rdev == os.makedev(1, 7)


def test_a_full_disk_in_the_sweep_store_is_one_line(tmp_path, monkeypatch):
    spec = tmp_path / "spec.toml"
    spec.write_text('task = "pmf"\nmechanisms = ["pf"]\nepsilon = "1"\nscores = "1,0"\n')

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    res = runner.invoke(app, ["sweep", str(spec), "--store", str(tmp_path / "st"), "--workers", "0"])
    assert res.exit_code == 1 and "No space left on device" in res.output, res.output
    assert "internal error" not in res.output and len([ln for ln in res.output.splitlines() if ln.strip()]) == 1
    assert not [p for p in (tmp_path / "st").iterdir()]  # no temporary file left behind


def test_a_system_error_elsewhere_names_its_cause(monkeypatch):
    import dpexact.utility

    def too_long(*args, **kwargs):
        raise OSError(errno.ENAMETOOLONG, "File name too long", "x" * 300)

    monkeypatch.setattr(dpexact.utility, "expected_error", too_long)
    res = runner.invoke(app, COMMANDS["pmf"])
    assert res.exit_code == 1 and res.output.startswith("error: File name too long: xxx"), res.output
    assert "internal error" not in res.output and res.output.count("\n") == 1
