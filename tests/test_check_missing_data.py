"""`dpexact check` without the DPBench data: the claims that need it are inconclusive, not differences.

Exit codes (README): 0 every verdict as recorded, 1 a verdict differs (or a check crashed), 3 none
differs but a claim could not run because its data set is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

CATALOGUE = '''
from dpexact.data import load_dpbench
from proofs_checks import claim, Verdict


@claim("mine.text.needs-data", "A statement about HEPTH.", "mine §1", expected="holds")
def needs_data(quick):
    load_dpbench("HEPTH")  # raises DatasetMissingError without the data
    return Verdict("holds", True, "HEPTH", {{}})


@claim("mine.text.plain", "1 + 1 = 2.", "mine §2", expected="holds")
def plain(quick):
    return Verdict("{plain}", True, "integers", {{}})
'''


def _check(tmp_path, plain: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"claims_{plain}.py"
    path.write_text(textwrap.dedent(CATALOGUE.format(plain=plain)))
    env = {**os.environ, "DPEXACT_DPBENCH": str(tmp_path / "absent")}
    return subprocess.run([sys.executable, "-m", "dpexact", "check", "--catalogue", str(path), *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


@pytest.mark.parametrize("as_json", [False, True])
def test_missing_data_alone_is_inconclusive_exit_3_with_how_to_get_it(tmp_path, as_json):
    run = _check(tmp_path, "holds", *(["--json"] if as_json else []))
    assert run.returncode == 3, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    notes = [line for line in run.stderr.splitlines() if "dpexact data fetch dpbench" in line]
    assert len(notes) == 1 and "DPEXACT_DPBENCH" in notes[0]
    if as_json:
        verdicts = {c["id"]: c["verdict"] for c in json.loads(run.stdout)["claims"]}
        assert verdicts == {"mine.text.needs-data": "inconclusive", "mine.text.plain": "holds"}


def test_a_real_difference_still_exits_1(tmp_path):
    run = _check(tmp_path, "refuted")
    assert run.returncode == 1, run.stdout + run.stderr


def test_refutation_mode_unchanged(tmp_path):
    assert _check(tmp_path, "holds", "--fail-on", "refutation").returncode == 3
    assert _check(tmp_path, "refuted", "--fail-on", "refutation").returncode == 1


def test_paper_claims_without_dpbench_exit_3(tmp_path):
    """Two pf claims: one on HEPTH (needs the data), one on synthetic scores."""
    env = {**os.environ, "DPEXACT_DPBENCH": str(tmp_path / "absent")}
    run = subprocess.run([sys.executable, "-m", "dpexact", "check", "--quick", "--claim", "pf.text.hepth-mode-ratio",
                          "--claim", "pf.text.fig1b-ratio-limit-p-to-*", "--json"],
                         capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert run.returncode == 3, run.stderr
    verdicts = {c["id"]: c["verdict"] for c in json.loads(run.stdout)["claims"]}
    assert len(verdicts) == 2 and verdicts.pop("pf.text.hepth-mode-ratio") == "inconclusive"
    assert list(verdicts.values()) == ["holds"]


def test_missing_data_only_on_inconclusive():
    from proofs_checks.catalogue import ClaimVerdict

    with pytest.raises(ValueError, match="only for an inconclusive"):
        ClaimVerdict("holds", True, "x", {}, missing_data="HEPTH missing")
