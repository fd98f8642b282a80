"""``dpexact data fetch dpbench [--dir D]``: the data sets the papers' experiments use, downloaded
from their public upstream and checked against the digests pinned in the package
(:mod:`dpexact.data.fetch`)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Optional

import typer

from .common import EXIT_FAIL, EXIT_USAGE

__all__ = ["register"]

data_app = typer.Typer(help="Data sets of the papers' experiments (never part of the repository).", no_args_is_help=True,
                       rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]})


@data_app.command("fetch")
def fetch_cmd(
    dataset: str = typer.Argument(..., metavar="DATASET", help="dpbench (the DPBench 1-D histograms, Hay et al. 2016)"),
    directory: Optional[Path] = typer.Option(None, "--dir", help="target folder (default: $DPEXACT_DPBENCH, else ~/.cache/dpexact/dpbench)"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="a mirror of the upstream folder (default: dpcomp_core on GitHub at the pinned commit)"),
    name: Optional[list[str]] = typer.Option(None, "--name", help="only this histogram, e.g. HEPTH (repeatable; default: all seven)"),
) -> None:
    """Download a data set and check every file against its pinned SHA-256; prints the folder to use."""
    from ..data import DPBENCH_ENV, DatasetIntegrityError
    from ..data.fetch import DPBENCH_UPSTREAM, fetch_dpbench

    if dataset != "dpbench":
        typer.echo(f"error: DATASET must be dpbench, got {dataset[:40]!r}", err=True)
        raise typer.Exit(code=EXIT_USAGE)
    env = os.environ.get(DPBENCH_ENV)
    folder = directory if directory is not None else Path(env) if env else Path.home() / ".cache" / "dpexact" / "dpbench"
    try:
        paths = fetch_dpbench(folder, name or None, base_url=base_url or DPBENCH_UPSTREAM, echo=typer.echo)
    except ValueError as exc:
        if isinstance(exc, DatasetIntegrityError):
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=EXIT_FAIL)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=EXIT_USAGE)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:  # the --dir the user typed: a usage error
            typer.echo(f"error: --dir: file name too long: {str(folder)[:80]}...", err=True)
            raise typer.Exit(code=EXIT_USAGE)
        offline = (f"; offline: copy the <NAME>.n4096.npy files (any machine's fetched folder) into a folder and "
                   f"set {DPBENCH_ENV}=DIR (read files are checked against the pinned SHA-256), or --base-url a mirror"
                   if str(exc).startswith("cannot download") else "")
        typer.echo(f"error: {exc}{offline}", err=True)
        raise typer.Exit(code=EXIT_FAIL)
    typer.echo(f"{len(paths)} files in {folder}; use them with: export {DPBENCH_ENV}={folder}")


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")
