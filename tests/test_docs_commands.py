"""Every shell block of the documentation runs (docs/*.md and README.md): each command of a
``bash`` / ``sh`` / ``console`` block is executed, in order, in a fresh directory that holds links
to the repository's ``examples/``, ``benchmarks/`` and ``notebooks/`` and the page's files
(a ``toml`` block whose first line is ``# NAME.toml`` is written there as ``NAME.toml``), with
``dpexact`` and ``python`` meaning this interpreter on this checkout.

Each command must end with the exit status its comment states (``# private:`` 0, ``# violated`` /
``# refuted`` 1, ``# undecided`` / ``# private-within-scope`` 3, docs/cli.md), else with 0, 1 or 3 (an answer: never a usage error, 2), and
print no traceback and no internal error.

A command that cannot run here is named, with its reason, in an HTML comment above its block:
``<!-- not run in tests: `PREFIX` — REASON -->`` (one per prefix; a prefix must match a command of
the block). Those are the only commands not run: :data:`NOT_RUN` lists them, and
``test_not_run_commands_are_the_listed_exceptions`` fails when the pages and the list disagree.
Blocks of 20 CPU seconds or more carry the ``slow`` mark (:data:`SLOW`, measured seconds), so the
default run keeps the quick ones and ``-m slow`` runs the rest; none is left out of both."""

from __future__ import annotations

import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]
SHELL = ("bash", "sh", "console")
FENCE = re.compile(r"(?P<marks>(?:<!--[^\n]*-->\n)*)```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
MARK = re.compile(r"<!-- not run in tests: `(?P<prefix>[^`]+)` — (?P<reason>[^>]{10,}?) -->")
TOML_NAME = re.compile(r"#\s*(?P<name>[\w.-]+\.toml)\b")
STATUS = {"private": 0, "private-within-scope": 3, "violated": 1, "refuted": 1, "undecided": 3}  # docs/cli.md
CPU_LIMIT = 900  # CPU seconds per process (ulimit -t): a runaway command is stopped whatever the load
WALL_LIMIT = {False: 1800, True: 7200}  # wall seconds per block (quick, slow): a hung one fails

#: the commands the pages exempt (page, prefix) — the pages' HTML comments must say the same
NOT_RUN = {
    ("README.md", "python3.11 -m venv"), ("README.md", ". .venv/bin/activate"), ("README.md", "pip install"),
    ("README.md", "python -m pytest"),
    ("index.md", "python3.11 -m venv"), ("index.md", ". .venv/bin/activate"), ("index.md", "pip install"),
    ("index.md", "python -m pytest"),
    ("tests.md", "python -m pytest"),
    ("sweeps.md", "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=3 dask scheduler"), ("sweeps.md", "dask worker"),
    ("sweeps.md", "dpexact sweep spec.toml --store results --scheduler"),
}

#: blocks of 20 CPU seconds or more (page, first command): CPU seconds of all their processes, measured
#: on the shared 2-core machine (load 12-14) on 2026-12-06; the other blocks take 2-11 s each
SLOW = {
    ("accounting.md", "python -m dpexact account spec.toml -d 1e-5 --json"): 61,
    ("index.md", "dpexact check --quick --report report --output report/claims.json"): 52,
    ("README.md", "dpexact check --quick --report report --output report/claims.json"): 52,
    ("README.md", "dpexact check --quick"): 119,
    ("peers.md", "dpexact verify -m svt4 -e 1/10 --n 10 -p threshold=1 -p cutoff=1"): 32,
    ("sweeps.md", "dpexact sweep spec.toml --store results --json"): 21,
    ("own-mechanism.md", "mkdir -p mine && cp examples/geometric_noisy_max.py mine/"): 20,
}


class Block:
    """One shell block: its commands (``&&``-joined parts kept together), what is exempt, and the
    files the page defines above it."""

    def __init__(self, page: Path, index: int, lang: str, body: str, marks: str, files: dict[str, str]):
        self.page, self.index, self.files = page, index, dict(files)
        self.exempt = {m["prefix"]: m["reason"] for m in MARK.finditer(marks)}
        assert marks.count("not run in tests") == len(self.exempt), f"{page.name}: a malformed 'not run in tests' mark"
        self.commands: list[str] = []  # what runs
        self.skipped: list[tuple[str, str]] = []  # (prefix, command part) not run
        lines = body.splitlines()
        if lang == "console":  # "$ cmd" lines are commands, the rest is output
            lines = [ln[2:] for ln in lines if ln.startswith("$ ")]
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" && ")]
            kept = []
            for part in parts:
                prefix = next((p for p in self.exempt if part.startswith(p)), None)
                if prefix is None:
                    kept.append(part)
                else:
                    self.skipped.append((prefix, part))
            if kept:
                self.commands.append(" && ".join(kept))
        unused = set(self.exempt) - {p for p, _ in self.skipped}
        assert not unused, f"{page.name}: 'not run in tests' marks match no command: {sorted(unused)}"

    @property
    def id(self) -> str:
        first = self.commands[0] if self.commands else (self.skipped[0][1] if self.skipped else "")
        return f"{self.page.name}#{self.index}:{first[:60]}"

    def key(self) -> tuple[str, str]:
        return self.page.name, _strip_comment(self.commands[0]) if self.commands else ""


def _strip_comment(cmd: str) -> str:
    """The command without its trailing ``# comment`` (a ``#`` after a blank, outside quotes)."""
    quote = None
    for i, ch in enumerate(cmd):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and cmd[i - 1] in " \t":
            return cmd[:i].rstrip()
    return cmd.rstrip()


def _expected_status(cmd: str) -> int | None:
    """The exit status the command's comment states (``None``: any answer, 0, 1 or 3)."""
    comment = cmd[len(_strip_comment(cmd)):].strip()
    m = re.match(r"#\s*([a-z-]+)", comment)
    return STATUS.get(m[1]) if m else None


def collect() -> list[Block]:
    out = []
    for page in PAGES:
        files: dict[str, str] = {}
        for i, m in enumerate(FENCE.finditer(page.read_text(encoding="utf-8"))):
            if m["lang"] == "toml":
                first = m["body"].splitlines()[0] if m["body"] else ""
                name = TOML_NAME.match(first.strip())
                if name:
                    files[name["name"]] = m["body"]
            elif m["lang"] in SHELL or (m["lang"] == "" and re.search(r"^\s*(python -m )?dpexact ", m["body"], re.M)):
                assert m["lang"] in SHELL, f"{page.name}: a block of dpexact commands needs a language (```bash)"
                out.append(Block(page, i, m["lang"], m["body"], m["marks"], files))
    return out


BLOCKS = collect()
RUN = [b for b in BLOCKS if b.commands]


def _params():
    for b in RUN:
        marks = [pytest.mark.slow] if b.key() in SLOW else []
        yield pytest.param(b, id=b.id, marks=marks)


def test_not_run_commands_are_the_listed_exceptions():
    found = {(b.page.name, p) for b in BLOCKS for p, _ in b.skipped}
    assert found == NOT_RUN
    assert set(SLOW) <= {b.key() for b in RUN}  # every slow mark names a block that runs
    assert len(RUN) >= 10 and sum(len(b.commands) for b in RUN) >= 35  # the collector sees the pages' commands


def test_the_collector_reads_marks_files_and_statuses(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```toml\n# spec.toml — x\na = 1\n```\n\n<!-- not run in tests: `pip install` — needs the network -->\n"
                    "```bash\npip install x && dpexact mechanisms   # private: comment\n```\n")
    m = list(FENCE.finditer(page.read_text()))[1]
    b = Block(page, 1, "bash", m["body"], m["marks"], {"spec.toml": "a = 1\n"})
    assert b.commands == ["dpexact mechanisms   # private: comment"] and b.skipped == [("pip install", "pip install x")]
    assert _expected_status(b.commands[0]) == 0 and _strip_comment(b.commands[0]) == "dpexact mechanisms"
    assert _expected_status("dpexact verify -m svt4 -e 1   # violated, re-checked") == 1
    assert _expected_status("dpexact verify -m x.py:y -e 1   # private-within-scope: a box") == 3
    assert _expected_status('dpexact pmf -e "2*log(3)" -q 1 # an exact law') is None
    with pytest.raises(AssertionError, match="match no command"):
        Block(page, 1, "bash", "dpexact mechanisms\n", m["marks"], {})


def _script(block: Block, rcfile: Path) -> str:
    lines = [f"ulimit -t {CPU_LIMIT}",
             f'dpexact() {{ "{sys.executable}" -m dpexact "$@"; }}',
             f'python() {{ "{sys.executable}" "$@"; }}',
             f'python3.11() {{ "{sys.executable}" "$@"; }}']
    for cmd in block.commands:
        lines.append(_strip_comment(cmd))
        lines.append(f'echo "$?" >> "{rcfile}"')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("block", list(_params()))
def test_shell_block_runs(block: Block, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name in ("examples", "benchmarks", "notebooks"):
        (work / name).symlink_to(REPO / name)
    for name, text in block.files.items():
        (work / name).write_text(text)
    rcfile = tmp_path / "rc"
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
           "MPLBACKEND": "Agg", "DPEXACT_TEST_DOCS": "1"}
    for keep in ("DPEXACT_DPBENCH", "LANG", "LC_ALL"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    t0, c0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(["bash", "-c", _script(block, rcfile)], cwd=work, capture_output=True, text=True,
                       env=env, timeout=WALL_LIMIT[block.key() in SLOW])
    took = time.monotonic() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    codes = [int(v) for v in rcfile.read_text().split()] if rcfile.exists() else []
    assert len(codes) == len(block.commands), f"stopped after {len(codes)} commands:\n{r.stderr[-3000:]}"
    for cmd, code in zip(block.commands, codes):
        want = _expected_status(cmd)
        ok = code == want if want is not None else code in (0, 1, 3)
        assert ok, f"{cmd!r} exited {code} (expected {want if want is not None else '0, 1 or 3'}):\n{r.stderr[-3000:]}"
    assert "Traceback (most recent call last)" not in r.stderr and "internal error" not in r.stderr, r.stderr[-3000:]
    print(f"{block.id}: {len(block.commands)} commands, {took:.1f} s wall, {cpu:.1f} s CPU")
