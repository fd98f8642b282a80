"""HiGHS never writes to the console: stdout is the commands' output, stderr their messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import highspy
import pytest

BANNER = "Running HiGHS"


def test_constructor_banner_reaches_neither_stdout_nor_stderr(monkeypatch, capfd):
    """highspy >= 1.16 prints its header from the constructor, to C-level stdout; simulated here."""
    from dpexact.highs import silent_highs

    real = highspy.Highs

    class BannerAtConstruction(real):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            os.write(1, f"{BANNER} 1.16.0 (git hash: test): Copyright\n".encode())
            super().__init__()

    monkeypatch.setattr(highspy, "Highs", BannerAtConstruction)
    print("before", flush=True)
    h = silent_highs()
    print("after", flush=True)
    out, err = capfd.readouterr()
    assert out == "before\nafter\n"
    assert BANNER not in err
    options = h.getOptions()
    assert options.output_flag is False and options.log_to_console is False


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dpexact", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "80"})


@pytest.mark.parametrize("args", [("optimal-ldp", "-N", "3", "-e", "1"), ("optimal", "-n", "2", "--k", "2", "-e", "1")])
def test_commands_that_solve_an_lp_print_no_highs_line(args):
    text = _run(*args)
    assert text.returncode == 0, text.stderr
    assert BANNER not in text.stdout and BANNER not in text.stderr
    js = _run(*args, "--json")
    assert js.returncode == 0, js.stderr
    assert BANNER not in js.stderr
    doc = json.loads(js.stdout)  # the whole of stdout is one JSON document
    assert doc["command"] == args[0]
