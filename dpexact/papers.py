"""The five source papers behind the claim catalogue and the registry's citations, in one place.

The project cites them by short name (``pf Theorem 1``, ``hetsel eq. 4``); this table says which
paper each short name is. Everything that names a paper to a reader — the README and the docs,
``dpexact check -h``, the check summary's header, ``report.md`` and ``dpexact mechanisms --json``
— reads it from here.

Venues: pf appeared at NeurIPS 2020 and hetsel at IEEE SaTML 2025; err and brr are arXiv
preprints (brr's text carries an unfilled PVLDB template header, so no venue is claimed for it);
adp is a set of lecture notes.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

__all__ = ["Paper", "PAPERS", "paper", "citation", "short_citation", "papers_cited", "legend"]


@dataclass(frozen=True)
class Paper:
    """One source paper.

    Attributes:
        short: the short name used in claim ids and citations (``pf``).
        authors: the authors, as printed in the paper.
        title: the title.
        venue: where it appeared (conference, preprint server or course).
        year: the year of that appearance.
        url: a public address of the text ("" where none is recorded).
        surnames: the authors' surnames, for the short form (``McKenna & Sheldon``).
        where: venue and year in a few words (``NeurIPS 2020``).
    """

    short: str
    authors: str
    title: str
    venue: str
    year: int
    url: str = ""
    surnames: str = ""
    where: str = ""

    def as_dict(self) -> dict[str, object]:
        """The record as a JSON-ready dict (with the one-line ``citation``).

        Returns:
            ``short``, ``authors``, ``title``, ``venue``, ``year``, ``url`` and ``citation``.
        """
        return {**asdict(self), "citation": citation(self.short)}


#: the papers in the order the catalogue runs them (``proofs_checks.PAPERS``)
PAPERS: dict[str, Paper] = {p.short: p for p in (
    Paper("pf", "Ryan McKenna and Daniel Sheldon",
          "Permute-and-Flip: A new mechanism for differentially private selection",
          "Advances in Neural Information Processing Systems 33 (NeurIPS 2020)", 2020,
          "https://arxiv.org/abs/2010.12603", "McKenna & Sheldon", "NeurIPS 2020"),
    Paper("adp", "Florian Tramèr",
          "Approximate Differential Privacy",
          "Lecture notes 26-28 of Privacy Enhancing Technologies FS2025, ETH Zürich", 2025, "", "Tramèr", "ETH Zürich lecture notes 2025"),
    Paper("err", "Gonzalo Munilla Garrido and Florian Matthes",
          "Exponential Randomized Response: Boosting Utility in Differentially Private Selection",
          "arXiv preprint", 2022, "", "Munilla Garrido & Matthes", "arXiv 2022"),
    Paper("brr", "Shun Zhang, Hai Zhu, Zhili Chen and Haibo Hu",
          "Bipartite Randomized Response Mechanism for Local Differential Privacy",
          "arXiv preprint arXiv:2504.20926", 2025,
          "https://arxiv.org/abs/2504.20926", "Zhang, Zhu, Chen & Hu", "arXiv 2025"),
    Paper("hetsel", "Daniela Antonova, Allegra Laro, Audra McMillan and Lorenz Wolf",
          "Private Selection with Heterogeneous Sensitivities",
          "IEEE Conference on Secure and Trustworthy Machine Learning (SaTML 2025); arXiv:2501.05309", 2025,
          "https://arxiv.org/abs/2501.05309", "Antonova, Laro, McMillan & Wolf", "IEEE SaTML 2025"),
)}


def paper(short: str) -> Paper:
    """The paper a short name stands for.

    Args:
        short: ``pf``, ``adp``, ``err``, ``brr`` or ``hetsel``.

    Returns:
        Its :class:`Paper` record.

    Raises:
        ValueError: an unknown short name (the message lists the known ones).
    """
    try:
        return PAPERS[short]
    except KeyError:
        raise ValueError(f"unknown paper {short!r}; the papers are {', '.join(PAPERS)}") from None


def citation(short: str) -> str:
    """A full one-line citation: ``authors. *title*. venue, year.``

    Args:
        short: the paper's short name.

    Returns:
        The citation text (plain text, no markup but the title's asterisks).
    """
    p = paper(short)
    return f"{p.authors}. {p.title}. {p.venue}, {p.year}."


_SHORT = re.compile(r"\b(" + "|".join(PAPERS) + r")\b(?= (?:eq|eqs|Theorem|Lemma|Definition|Remark|Appendix|Algorithm|Figure|Proposition|Corollary|§|Section|Table|Fig))")


def papers_cited(citations: list[str] | tuple[str, ...]) -> list[str]:
    """The short names of the source papers that a list of citation strings points into.

    A short name counts when a location follows it (``pf Theorem 1``, ``hetsel eq. 4``,
    ``brr §2.4``), so ``err`` the mechanism name in prose is not taken for the paper.

    Args:
        citations: citation strings such as a registry entry's ``citations``.

    Returns:
        The short names in catalogue order, each once.
    """
    found = {m.group(1) for c in citations for m in _SHORT.finditer(c)}
    return [s for s in PAPERS if s in found]


def short_citation(short: str) -> str:
    """The short form: ``McKenna & Sheldon, Permute-and-Flip: ... (NeurIPS 2020)``.

    Args:
        short: the paper's short name.

    Returns:
        Surnames, title, and venue with year in parentheses.
    """
    p = paper(short)
    return f"{p.surnames}, {p.title} ({p.where})"


def legend(width: int = 80, indent: str = "", papers: list[str] | None = None, short: bool = False) -> list[str]:
    """Every paper's full citation after its short name, wrapped for a terminal.

    Args:
        width: the line length to stay within (words are never cut).
        indent: text before each paper's first line.
        papers: the short names to list (default: all five).
        short: the short form (:func:`short_citation`) instead of the full citation.

    Returns:
        The lines: ``pf      Ryan McKenna and ...`` with continuation lines aligned after the name.
    """
    import textwrap

    lines = []
    for name in PAPERS if papers is None else papers:
        head = f"{indent}{name:<7}"
        lines += textwrap.wrap((short_citation if short else citation)(name), width, initial_indent=head, subsequent_indent=" " * len(head),
                               break_on_hyphens=False)
    return lines
