"""The five source papers are named wherever a reader meets their short names: ``check -h``, the
check summary's header, ``report.md`` and ``mechanisms --json`` all read :mod:`dpexact.papers`,
and the summary fits one screen (60 lines at 80 columns) with the rest behind ``--all``."""

import json
import re

from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.papers import PAPERS, citation, papers_cited
from dpexact.schemas import validate
from proofs_checks.catalogue import Claim, ClaimVerdict, Outcome
from proofs_checks.report import summary_lines, write_report

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_check_help_cites_every_paper_in_full():
    out = _flat(runner.invoke(app, ["check", "-h"], env={"COLUMNS": "80"}).stdout)
    for p in PAPERS.values():
        for part in (p.authors, p.title, str(p.year)):
            assert _flat(part) in out, (p.short, part)


def test_papers_cited_reads_locations_not_prose():
    assert papers_cited(["pf Theorem 1", "hetsel eq. 3", "brr §2.4", "McSherry & Talwar 2007"]) == ["pf", "brr", "hetsel"]
    assert papers_cited(["the err mechanism"]) == []


def _outcomes(n_refuted: int, paper: str = "err") -> list[Outcome]:
    """Records of a run: ``n_refuted`` refuted claims with long statements, and one that holds."""
    def check(quick):  # never called: the summary reads the records
        raise AssertionError

    out = []
    for i in range(n_refuted):
        c = Claim(f"{paper}.text.c{i}", paper, f"statement {i} " + "long words " * 20, "§1", check, expected="refuted",
                  severity="false-statement" if i % 2 else "wrong-number")
        out.append(Outcome(c, ClaimVerdict("refuted", True, "exact", {"smallest": {"q": [1, 0], "eps": "1"}}), 0.1))
    c = Claim(f"{paper}.text.ok", paper, "holds", "§2", check, expected="holds")
    out.append(Outcome(c, ClaimVerdict("holds", True, "exact", {"x": 1}), 0.1))
    return out


def test_summary_names_the_papers_and_fits_one_screen():
    outs = _outcomes(70)
    lines = summary_lines(outs, False, 80, None, "dpexact check: 71 claims", 60)
    assert len(lines) <= 60 and max(len(x) for x in lines) <= 80
    text = _flat("\n".join(lines))
    p = PAPERS["err"]
    assert p.surnames in text and _flat(p.title) in text and p.where in text
    assert PAPERS["pf"].surnames not in text  # only the papers of this run are listed
    assert re.search(r"and \d+ more not listed \(--all lists every claim\)", text)
    # without a budget every refuted claim is listed
    full = "\n".join(summary_lines(outs, False, 80, None, "t", None))
    assert all(f"err.text.c{i}:" in full for i in range(70))


def test_summary_small_run_keeps_its_evidence():
    lines = summary_lines(_outcomes(3), False, 80, None, "t", 60)
    assert len(lines) <= 60 and sum("smallest input" in x for x in lines) == 3
    assert not any("more not listed" in x for x in lines)


def test_report_md_cites_the_papers(tmp_path):
    outs = _outcomes(2, "pf") + _outcomes(1, "brr")
    text = write_report(outs, tmp_path, "0", True).read_text()
    head = text.split("## Refuted claims")[0]
    assert citation("pf") in head and citation("brr") in head and citation("hetsel") not in head


def test_mechanisms_json_carries_the_papers():
    r = runner.invoke(app, ["mechanisms", "--json"])
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    validate("mechanisms", doc)
    assert [p["short"] for p in doc["papers"]] == list(PAPERS)
    assert doc["papers"][0]["citation"] == citation("pf")
    rows = {m["name"]: m for m in doc["mechanisms"]}
    assert rows["pf"]["papers"] == ["pf"] and "hetsel" in rows["gem"]["papers"] and rows["svt1"]["papers"] == []


def test_readme_cites_every_paper_as_the_table_does():
    from pathlib import Path

    readme = _flat((Path(__file__).resolve().parents[1] / "README.md").read_text())
    for p in PAPERS:
        assert _flat(citation(p)) in readme, p
