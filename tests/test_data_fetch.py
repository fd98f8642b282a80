"""``dpexact data fetch dpbench``: downloads checked against the pinned digests, served here by a
local HTTP server on 127.0.0.1 (no test reaches the internet)."""

import functools
import hashlib
import http.server
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.data import DatasetMissingError, dpbench_path, load_dpbench
from dpexact.data.dpbench import PINNED_SHA256


@pytest.fixture
def server(tmp_path):
    """Serve ``tmp_path / "upstream"`` on 127.0.0.1; yields (folder, base URL)."""
    root = tmp_path / "upstream"
    root.mkdir()
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # no request log on stderr
            pass

    handler = functools.partial(Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_fetch_writes_only_files_with_the_pinned_digest(server, tmp_path):
    root, url = server
    name = "HEPTH.n4096.npy"
    fake = tmp_path / "fake.npy"
    np.save(fake, np.arange(4096.0))
    (root / name).write_bytes(fake.read_bytes())  # not the published file: its digest differs
    target = tmp_path / "data"
    r = CliRunner().invoke(app, ["data", "fetch", "dpbench", "--dir", str(target), "--base-url", url, "--name", "HEPTH"])
    assert r.exit_code == 1 and "differs from the pinned" in r.stderr, r.output
    assert not (target / name).exists() and not any(p.name.endswith(".tmp") for p in target.iterdir())
    # a server missing the files: one-line error, exit 1
    (root / name).unlink()
    r = CliRunner().invoke(app, ["data", "fetch", "dpbench", "--dir", str(target), "--base-url", url])
    assert r.exit_code == 1 and "HTTP 404" in r.stderr and "Traceback" not in r.output


def test_fetch_from_a_mirror_with_the_published_bytes(server, tmp_path, monkeypatch, dpbench_path):
    """A mirror serving the published files (copied from the test machine's DPBench folder, whose
    bytes have the pinned digests): every file is written, SHA256SUMS lists them, the loader reads
    them, and a second fetch downloads nothing."""
    root, url = server
    for n in PINNED_SHA256:
        data = (dpbench_path / n).read_bytes()
        assert hashlib.sha256(data).hexdigest() == PINNED_SHA256[n]
        (root / n).write_bytes(data)
    target = tmp_path / "data"
    r = CliRunner().invoke(app, ["data", "fetch", "dpbench", "--dir", str(target), "--base-url", url])
    assert r.exit_code == 0, r.output
    assert f"export DPEXACT_DPBENCH={target}" in r.stdout
    assert sorted(p.name for p in target.iterdir()) == sorted([*PINNED_SHA256, "SHA256SUMS"])
    sums = (target / "SHA256SUMS").read_text().splitlines()
    assert sorted(sums) == sorted(f"{d}  {n}" for n, d in PINNED_SHA256.items())
    monkeypatch.setenv("DPEXACT_DPBENCH", str(target))
    x = load_dpbench("HEPTH")
    assert np.array_equal(x, np.load(dpbench_path / "HEPTH.n4096.npy").reshape(1024, 4).sum(axis=1))
    from dpexact.data.fetch import fetch_dpbench

    again = fetch_dpbench(target, base_url="http://127.0.0.1:9/")  # present and checked: nothing downloaded
    assert sorted(p.name for p in again) == sorted(PINNED_SHA256)


def test_missing_data_errors_say_how_to_get_the_data(monkeypatch, tmp_path):
    monkeypatch.delenv("DPEXACT_DPBENCH", raising=False)
    with pytest.raises(DatasetMissingError, match="dpexact data fetch dpbench --dir DIR"):
        dpbench_path("HEPTH")
    monkeypatch.setenv("DPEXACT_DPBENCH", str(tmp_path / "nowhere"))
    r = CliRunner().invoke(app, ["bench", "--accuracy"])
    assert r.exit_code != 0 and "dpexact data fetch dpbench" in r.output


def test_fetch_usage_errors(tmp_path):
    r = CliRunner().invoke(app, ["data", "fetch", "nosuch", "--dir", str(tmp_path)])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["data", "fetch", "dpbench", "--dir", str(tmp_path), "--base-url", "file:///etc/"])
    assert r.exit_code == 2 and "http(s)" in r.stderr


def test_a_trickling_server_is_abandoned_at_the_fetch_deadline(tmp_path):
    """A server that sends one byte every 0.2 s never trips the per-read timeout; the deadline ends it."""
    import http.server
    import time

    from dpexact.data.fetch import fetch_dpbench

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(100000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.2)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    name = sorted(PINNED_SHA256)[0].split(".")[0]
    try:
        t0 = time.monotonic()
        with pytest.raises(OSError, match="deadline"):
            fetch_dpbench(tmp_path / "d", [name], base_url=f"http://127.0.0.1:{httpd.server_address[1]}/",
                          timeout=5.0, deadline=1.5)
        assert time.monotonic() - t0 < 10  # the deadline, plus at most one read's wait
        assert not (tmp_path / "d" / f"{name}.n4096.npy").exists()
    finally:
        httpd.shutdown()
        httpd.server_close()
