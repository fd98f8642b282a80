"""The ``dpexact`` command line (typer). Subcommands live in sibling modules that expose
``register(app)``; this module only assembles them. Every subcommand is built on the
mechanism registry (:func:`dpexact.mechanism`).

Adding a command (the pattern every command follows):

1. Write ``dpexact/cli/<name>.py`` with ``def register(app): @app.command("<name>") def ...``.
   Keep its top-level imports to the standard library, ``typer`` and ``.common``: import
   everything else (numpy, the mechanisms, the verifiers) inside the command's function, so that
   ``dpexact --version`` and ``dpexact -h`` never pay for it (``benchmarks/cli_startup.py``).
2. Append ``"dpexact.cli.<name>"`` to :data:`SUBCOMMAND_MODULES`.
3. Optionally place the name in :data:`COMMAND_ORDER` (the order ``-h`` lists commands in); a
   command not placed there is listed after the placed ones, alphabetically.
"""

from __future__ import annotations

import errno
import importlib
import sys
from typing import Any, Optional

import typer
from typer.core import TyperGroup

from .. import __version__
from .coercion import install as _install_light_coercion
from .common import EXIT_USAGE, emit_json, flush_notes, output_option, prepare_output

_install_light_coercion()  # plain option values without pydantic (cli/coercion.py)

#: exceptions that mean "bad input" when they reach the command line: exit status 2
USER_ERRORS = (ValueError, TypeError, OverflowError, ZeroDivisionError)


def one_line(message: object, limit: int = 400) -> str:
    """A message on one line, at most ``limit`` characters (errors never dump long text)."""
    s = " ".join(str(message).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _is_cli_control(exc: BaseException) -> bool:
    """typer/click's own exits, aborts and usage errors: they print their own message."""
    if isinstance(exc, (typer.Exit, typer.Abort)):
        return True
    return any(c.__name__ == "ClickException" for c in type(exc).__mro__)


_ARGV = "dpexact.argv"


def _user_typed_too_long_name(exc: BaseException, argv: "tuple[str, ...]") -> bool:
    """An ``ENAMETOOLONG`` about a name the user typed (an argument holding a component longer than any
    file system allows, 255 bytes): bad input. The same error about a name the program made is the system's."""
    if not (isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG):
        return False
    name = str(exc.filename or "")
    return any(len(a) > 255 and (a in name or name in a) for a in argv)


class _Group(TyperGroup):
    """Every subcommand runs under one handler: no Python traceback ever reaches the user.

    Bad input (``USER_ERRORS``, and a file name longer than the system allows) prints
    ``error: <message>`` and exits with status 2; an ``OSError`` from the system (disk full)
    prints its cause and exits with status 1; any other exception is a defect, reported on one line *with its type* and exit
    status 1.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands in :data:`COMMAND_ORDER` (the main job first), then any other alphabetically."""
        names = list(super().list_commands(ctx))
        return sorted(names, key=lambda n: (COMMAND_ORDER.index(n) if n in COMMAND_ORDER else len(COMMAND_ORDER), n))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_ARGV] = tuple(args)  # what the user typed: tells a too-long name of theirs from a system error
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            out = super().invoke(ctx)
            flush_notes()
            return out
        except Exception as exc:
            # deprecation notes follow an answer (any exit but a usage error, which stays one line)
            flush_notes(printed=isinstance(exc, typer.Exit) and exc.exit_code != EXIT_USAGE)
            if _is_cli_control(exc):
                raise
            if isinstance(exc, USER_ERRORS):
                typer.echo(f"error: {one_line(exc)}", err=True)
                raise typer.Exit(code=2) from None
            if _user_typed_too_long_name(exc, ctx.meta.get(_ARGV, ())):  # a path the user typed: a usage error
                name = str(exc.filename or "")
                typer.echo(f"error: file name too long: {one_line(name[:80] + ('...' if len(name) > 80 else ''))}", err=True)
                raise typer.Exit(code=2) from None
            if isinstance(exc, OSError) and exc.strerror:  # the system refused (disk full): say what
                where = f": {exc.filename}" if exc.filename else ""
                typer.echo(f"error: {one_line(exc.strerror + where)}", err=True)
                raise typer.Exit(code=1) from None
            typer.echo(f"error: internal error ({type(exc).__name__}): {one_line(exc)}", err=True)
            raise typer.Exit(code=1) from None


app = typer.Typer(
    cls=_Group,
    help="dpexact: exact, certified analysis of differentially private mechanisms (selection, LDP, sparse vector, your own).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # help strings are printed literally: "dpexact[hipo]" or "ball[:bits]" are not rich markup
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="print the dpexact version and exit"),
) -> None:
    """dpexact: exact, certified analysis of differentially private mechanisms (selection, LDP, sparse vector, your own)."""


#: the order ``dpexact -h`` lists commands in: the main job, the laws, the verdicts, the LP, your own
#: mechanism, batches, evidence and files, benchmarks; commands not listed follow alphabetically
COMMAND_ORDER: list[str] = [
    "check", "pmf", "prob", "verify", "delta", "optimal", "ldp", "optimal-ldp", "mechanisms", "conform",
    "sweep", "replay", "schema", "data", "bench", "bench-peers", "bench-verifier", "version",
]

#: sibling modules that add subcommands (each defines ``register(app)``)
SUBCOMMAND_MODULES: list[str] = [
    "dpexact.cli.bench",
    "dpexact.cli.ldp",
    "dpexact.cli.check",
    "dpexact.cli.verify",
    "dpexact.cli.optimal",
    "dpexact.cli.mechanisms",
    "dpexact.cli.conform",
    "dpexact.cli.delta",
    "dpexact.cli.curve",
    "dpexact.cli.account",
    "dpexact.cli.peers",
    "dpexact.cli.sweep",
    "dpexact.cli.prob",
    "dpexact.cli.schema",
    "dpexact.cli.replay",
    "dpexact.cli.data",
    "dpexact.cli.audit",
]


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``--param name=value``: ``a,b,c`` -> list of strings; ``true``/``false`` -> bool; else string.

    Values stay strings so that mechanisms parse numbers exactly (``0.1`` means 1/10) with the
    safe grammar of :mod:`dpexact.numbers.parse`. A name given twice is an error.
    """
    from ..numbers.parse import excerpt

    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"--param expects name=value, got {excerpt(item)}")
        if not name.isidentifier():
            raise ValueError(f"--param: {excerpt(name)} is not a parameter name")
        if name in out:
            raise ValueError(f"--param {name} is given twice")
        value = value.strip()
        if value.lower() in ("true", "false"):
            out[name] = value.lower() == "true"
        elif "," in value:
            items_ = [v.strip() for v in value.split(",")]
            if any(not v for v in items_):
                raise ValueError(f"--param {name}: empty entry in the list {excerpt(value)}")
            out[name] = items_
        else:
            out[name] = value
    return out


def merge_params(options: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The dedicated options (``-e``, ``--sensitivity``, ``--monotone``) plus ``--param`` values;
    a parameter given both ways is an error, never a silent override."""
    clash = sorted(set(options) & set(extra))
    if clash:
        flag = {"epsilon": "--epsilon", "sensitivity": "--sensitivity", "monotone": "--monotone"}
        raise ValueError(f"--param {clash[0]} conflicts with {flag.get(clash[0], clash[0])}: give it once")
    return {**options, **extra}


def parse_scores(text: str, option: str = "--scores") -> list[str]:
    """Comma-separated numbers kept as strings (parsed exactly later); empty entries are refused."""
    from ..numbers.parse import excerpt

    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise ValueError(f"{option} must be a comma-separated list of numbers, got {excerpt(text)}")
    return items


def dedicated_params(epsilon: str | None, sensitivity: str | None, monotone: bool) -> dict[str, Any]:
    """``-e`` (when given), ``--sensitivity`` (when given; default Δ = 1) and ``--monotone`` (when set)."""
    out: dict[str, Any] = {} if epsilon is None else {"epsilon": epsilon}
    if sensitivity is not None:
        out["sensitivity"] = sensitivity
    if monotone:
        out["monotone"] = True
    return out


def fail(message: str) -> None:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code=2)


@app.command()
def pmf(
    mechanism: str = typer.Option(..., "--mechanism", "-m", help="registry name (pf, em, rnm-exp; see `dpexact mechanisms`) or PATH.py:OBJECT or module:OBJECT (naming a file or module imports (runs) it: use code you trust)"),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε, exact: 0.1, 1/3, 2*log(3)"),
    scores: str = typer.Option(..., "--scores", "-q", help="comma-separated scores, e.g. 3,2,0"),
    sensitivity: Optional[str] = typer.Option(None, "--sensitivity", help="Δ (default 1)"),
    monotone: bool = typer.Option(False, "--monotone", help="monotone quality (ε/Δ exponent, pf Remark 1)"),
    backend: str = typer.Option("float", "--backend", "-b", help="float | mp[:digits] | ball[:bits] | exact"),
    method: Optional[str] = typer.Option(None, "--method", help="algorithm (mechanism-specific)"),
    param: Optional[list[str]] = typer.Option(None, "--param", "-p", help="mechanism parameter name=value"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    output: Optional[str] = output_option(),
) -> None:
    """Probability mass function of a mechanism on one score vector."""
    from ..mechanisms.registry import mechanism as build
    from ..protocols import Mechanism
    from ..utility import expected_error
    from ..verification.kinds import kind_of

    target = prepare_output(output)
    q = parse_scores(scores)
    params = merge_params(dedicated_params(epsilon, sensitivity, monotone), parse_params(param))
    try:
        mech = build(mechanism, **params)
        if not isinstance(mech, Mechanism) or not kind_of(mech).selection:
            _pmf_outputs(mechanism, mech, q, backend, method, as_json, target)
            return
        ee = expected_error(mech, q, backend=backend, method=method)
    except (ValueError, TypeError) as exc:
        fail(str(exc))
        return
    if as_json or target is not None:
        from ..utility.summary import pmf_record

        emit_json(pmf_record(mechanism, mech, q, ee), as_json, target, command="pmf")
        if as_json:
            return
    p = ee.details["pmf"]
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{mechanism} on {len(q)} scores — backend {p.backend}, method {p.method}")
    t.add_column("r", justify="right")
    t.add_column("score")
    t.add_column("Pr[M(q)=r]")
    for i, (s, v) in enumerate(zip(q, p.values)):
        t.add_row(str(i), s, _format_value(v))
    c = Console(markup=False, highlight=False)  # scores and names are printed literally
    c.print(t)
    c.print(f"expected error {ee.as_float:.17g} (± {ee.error_bound:.3g}, {p.error_kind})")


def _pmf_outputs(name: str, mech: object, q: list[str], backend: str, method: Optional[str], as_json: bool,
                 target: Any = None) -> None:
    """A finite-output mechanism (sparse-vector patterns, ...): its outputs with their probabilities."""
    from ..protocols import Mechanism

    if not isinstance(mech, Mechanism):  # no pmf over a finite output set (dpexact.protocols)
        raise ValueError(f"mechanism {name!r} releases real values: it has no pmf (its law of output sets: "
                         "`dpexact prob --box`)")
    from ..schemas.numbers import with_exact

    p = mech.pmf(q, backend, method)
    outs = [str(o) for o in mech.outputs(len(q))]
    if as_json or target is not None:
        emit_json({"mechanism": name, "params": mech.params(), "backend": p.backend, "scores": q,
                   "outputs": outs, "probabilities": [float(v) for v in p.to_float()],
                   "probabilities_exact": p.exact_strings(), "exact": p.exact_strings(), "method": p.method, "error_kind": p.error_kind,
                   **with_exact("pmf_rel_error", p.rel_error)}, as_json, target, command="pmf", default=str)
        if as_json:
            return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{name} on {len(q)} queries — backend {p.backend}, method {p.method}")
    t.add_column("output")
    t.add_column("Pr[M(q)=output]")
    for o, v in zip(outs, p.values):
        t.add_row(o, _format_value(v))
    Console().print(t)


def _format_value(v: Any) -> str:
    """Show a ball with its own radius (not rounded to the 53-bit display context)."""
    if type(v).__name__ == "arb":
        return v.str(20, radius=True)
    if type(v).__name__ == "mpf":
        import mpmath

        return mpmath.nstr(v, 25)
    return str(v)


@app.command()
def version() -> None:
    """Print the dpexact version."""
    typer.echo(__version__)


def _register_subcommands() -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_subcommands()


def run() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
