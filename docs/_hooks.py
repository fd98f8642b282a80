"""MkDocs hooks: pages generated at build time, so that nothing is written twice.

* ``tutorials/<name>.md`` for every notebook in ``notebooks/`` (a jupytext percent script): its
  Markdown cells as text, its code cells as Python blocks (not executed here: the test suite runs
  every notebook, ``tests/test_notebooks.py``);
* ``papers.md``: the five source papers with their full citations, from :mod:`dpexact.papers`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]


#: "]( " in prose that is maths, not a link: ``Pr[M(q)=r](q* − q_r)``, ``N_[0.01,0.7](0.5; 1)``
_MATH_BRACKET = re.compile(r"\]\((?=[^)]*[\s;*])")


def _not_a_link(line: str) -> str:
    """Escape ``](`` outside code spans where the parenthesis holds maths (a space, ``;`` or ``*``)."""
    parts = line.split("`")
    return "`".join(_MATH_BRACKET.sub("]\\(", p) if i % 2 == 0 else p for i, p in enumerate(parts))


def notebook_markdown(path: Path) -> str:
    """A jupytext percent script as Markdown: ``# %% [markdown]`` cells uncommented, code cells fenced."""
    cells: list[tuple[str, list[str]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            cells.append(("markdown" if "[markdown]" in line else "code", []))
        elif cells:
            cells[-1][1].append(line)
    out = [f"<!-- generated from notebooks/{path.name} by docs/_hooks.py -->", ""]
    for kind, lines in cells:
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            continue
        if kind == "markdown":
            out += [_not_a_link(ln[2:] if ln.startswith("# ") else ln.lstrip("#")) for ln in lines] + [""]
        else:
            out += ["```python", *lines, "```", ""]
    out += [f"Run it: `notebooks/{path.name}` ([how](../notebooks.md)).", ""]
    return "\n".join(out)


def papers_markdown() -> str:
    """The papers page, from the one table in :mod:`dpexact.papers`."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from dpexact.papers import PAPERS, citation

    out = ["# The source papers", "",
           "The claim catalogue (`dpexact check`) and the registry's citations name five papers by short name "
           "(`pf Theorem 1`, `hetsel eq. 4`; claim ids start with it). The same table prints in `dpexact check -h`, "
           "the check summary, `report.md` and `dpexact mechanisms --json` (its `papers`); it lives in "
           "`dpexact/papers.py`.", "",
           "| short name | citation |", "|---|---|"]
    for p in PAPERS.values():
        link = f" <{p.url}>" if p.url else ""
        out.append(f"| `{p.short}` | {citation(p.short)}{link} |")
    return "\n".join(out) + "\n"


def on_files(files, config):  # noqa: ANN001 - the MkDocs hook signature
    for nb in sorted((ROOT / "notebooks").glob("*.py")):
        files.append(File.generated(config, f"tutorials/{nb.stem}.md", content=notebook_markdown(nb)))
    files.append(File.generated(config, "papers.md", content=papers_markdown()))
    return files
