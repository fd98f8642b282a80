"""The documentation: the site builds with warnings as errors, every Python block of the pages
(and of the README) runs, every ``dpexact`` command line in them parses against the real command
line, and every public function's docstring has its Args / Returns sections.

A block preceded by ``<!-- not run: REASON -->`` is skipped by name and reason (a cluster, a
package that is not a dependency); the generated tutorials are the notebooks, which
``tests/test_notebooks.py`` executes."""

import inspect
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]
FENCE = re.compile(r"(?P<before>(?:<!-- not run: [^>]+-->\n)?)```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)


def blocks(page: Path, lang: str) -> list[str]:
    """The runnable ``lang`` blocks of ``page`` (a block marked ``not run`` must give its reason)."""
    out = []
    for m in FENCE.finditer(page.read_text(encoding="utf-8")):
        if m["lang"] != lang:
            continue
        if m["before"]:
            assert len(m["before"]) > len("<!-- not run:  -->\n") + 5, f"{page.name}: a 'not run' mark needs a reason"
            continue
        out.append(m["body"])
    return out


def test_site_builds_strict(tmp_path):
    """``mkdocs build --strict`` from the repository's mkdocs.yml, into a temporary folder (never with
    ``-q``: mkdocs 1.6 then stops counting the warnings that --strict turns into errors)."""
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    site = tmp_path / "site"
    for page in (REPO / "docs").glob("*.md"):  # every page appears without a navigation list
        assert (site / page.stem / "index.html").is_file() or page.stem == "index", page.name
    assert (site / "tutorials" / "getting_started" / "index.html").is_file()
    api = (site / "api" / "functions" / "index.html").read_text()
    assert "dpexact.verification.router.verify" in api and "Returns" in api
    papers = (site / "papers" / "index.html").read_text()
    from dpexact.papers import PAPERS

    assert all(p.title in papers for p in PAPERS.values())


def test_strict_build_fails_on_a_broken_link(tmp_path):
    """The strictness the CI build relies on: a link to a missing page fails the build."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n\n[missing](nowhere.md)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nvalidation:\n  links:\n    not_found: warn\n")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0 and "nowhere.md" in r.stdout + r.stderr


def test_notebook_pages_keep_maths_out_of_links():
    sys.path.insert(0, str(REPO / "docs"))
    try:
        from _hooks import notebook_markdown
    finally:
        sys.path.remove(str(REPO / "docs"))
    md = notebook_markdown(REPO / "notebooks" / "pf.py")
    assert "```python" in md and "Pr[M(q)=r]\\(q* − q_r)" in md


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")], ids=lambda p: str(p.relative_to(REPO)))
def test_python_blocks_run(page, tmp_path):
    """Each page's Python blocks, in order, in one fresh interpreter from the repository root."""
    code = "\n\n".join(blocks(page, "python"))
    script = tmp_path / "page.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO), "PATH": "", "HOME": str(tmp_path)})
    assert r.returncode == 0, f"{page.name}:\n{r.stderr[-2000:]}"


def _command_lines(page: Path) -> list[list[str]]:
    out = []
    for body in blocks(page, "bash") + blocks(page, "sh"):
        for line in body.splitlines():
            line = line.strip()
            for prefix in ("dpexact ", "python -m dpexact "):
                if line.startswith(prefix):
                    out.append(shlex.split(line[len(prefix):], comments=True))
            if " && dpexact " in line:  # the quickstart line
                out.append(shlex.split(line.split(" && dpexact ", 1)[1], comments=True))
    return out


def parse(args: list[str]) -> None:
    """Parse a command line against the real CLI without running it (click's make_context)."""
    from dpexact.cli.main import app

    cmd = typer.main.get_command(app)
    ctx = None
    name = "dpexact"
    while True:
        ctx = cmd.make_context(name, list(args), parent=ctx, resilient_parsing=False)
        if not isinstance(cmd, TyperGroup):
            return
        rest = list(getattr(ctx, "protected_args", None) or getattr(ctx, "_protected_args", [])) + list(ctx.args)
        assert rest, f"no command in {args}"
        sub = cmd.get_command(ctx, rest[0])
        assert sub is not None, f"unknown command {rest[0]!r}"
        cmd, name, args = sub, rest[0], rest[1:]


COMMANDS = [(p, c) for p in PAGES for c in _command_lines(p)]


@pytest.mark.parametrize("page,args", COMMANDS, ids=[f"{p.name}:{' '.join(c)[:50]}" for p, c in COMMANDS])
def test_command_lines_parse(page, args):
    parse(args)


def test_parse_rejects_a_misspelt_option():
    with pytest.raises(Exception, match="No such option: --epsilom"):
        parse(["verify", "-m", "pf", "--epsilom", "1"])
    with pytest.raises(AssertionError):
        parse(["verfy", "-m", "pf"])


# --- docstrings of the public API ------------------------------------------------------------------

def missing_sections(fn) -> list[str]:
    """The Google-style sections a public function's docstring lacks: ``Args:`` when it takes
    parameters, ``Returns:`` always (``Returns:\\n    None.`` for a procedure)."""
    doc = inspect.getdoc(fn) or ""
    params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
    need = (["Args:"] if params else []) + ["Returns:"]
    return [s for s in need if not re.search(rf"^{s}\s*$", doc, re.M)]


def public_functions() -> dict[str, object]:
    import dpexact
    import dpexact.api
    import dpexact.papers
    import dpexact.protocols
    from dpexact.mechanisms import registry

    out = {}
    for mod, names in ((dpexact, dpexact.__all__), (dpexact.api, dpexact.api.__all__), (dpexact.papers, dpexact.papers.__all__),
                       (dpexact.protocols, dpexact.protocols.__all__), (registry, ["available", "mechanism", "register"])):
        for n in names:
            obj = getattr(mod, n)
            if inspect.isfunction(obj):
                out[f"{mod.__name__}.{n}"] = obj
    return out


def test_every_public_function_has_args_and_returns():
    funcs = public_functions()
    assert {"dpexact.verify", "dpexact.define_mechanism", "dpexact.api.pmf", "dpexact.papers.citation"} <= set(funcs)
    bad = {name: missing_sections(f) for name, f in funcs.items() if missing_sections(f)}
    assert bad == {}


def test_the_docstring_check_can_fail():
    def undocumented(x):
        """Does something."""

    def procedure():
        """Does something.

        Returns:
            None.
        """

    assert missing_sections(undocumented) == ["Args:", "Returns:"] and missing_sections(procedure) == []
