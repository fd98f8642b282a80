"""A safe parser for exact real numbers written as text: never evaluates code, bounds every cost.

Grammar (the text is tokenised by :func:`ast.parse` and the tree is walked with a whitelist;
nothing is ever passed to ``eval``/``sympify``)::

    expr    := number | constant | func "(" expr ")" | "(" expr ")"
             | ("+" | "-") expr | expr ("+" | "-" | "*" | "/") expr | expr ("**" | "^") expr
    number  := decimal digits with optional fraction and exponent: 3, 0.1, .5, 2.5e-3, 1E6
    constant:= pi | e | E
    func    := log | ln | exp | sqrt

Meaning: decimals are exact (``0.1`` = 1/10, ``1e-3`` = 1/1000), ``/`` is exact division,
``^`` means ``**``; the result is a :class:`fractions.Fraction` when the value is rational and a
sympy expression (``2*log(3)``, ``exp(-1/2)``, ``log((3+sqrt(5))/2)``) otherwise.

Refused, each with a one-line ``ValueError`` naming the argument and what is not allowed:
any other name or function (``factorial``, ``__import__``), attribute access, subscripts,
strings, lists, lambdas, comparisons, keyword arguments; non-decimal literals (``0x10``,
``0b1``, ``1_000``, ``1j``); division by zero; ``log`` of a number <= 0 and ``sqrt`` of a
negative number; non-rational exponents (``2**pi``); and everything over the limits below.
A value whose sign or non-zeroness cannot be decided by interval arithmetic (e.g. a divisor
``log(4) - 2*log(2)``, which is exactly 0) is refused rather than guessed.

Limits (module constants; each is checked *before* the work it bounds):

=======================  =========  ======================================================
``MAX_LENGTH``           2000       characters of text
``MAX_NODES``            200        syntax-tree nodes
``MAX_DEPTH``            32         nesting depth of the syntax tree
``MAX_DIGITS``           1000       digits in one number literal
``MAX_DECIMAL_EXPONENT`` 1000       ``|k|`` in ``…e±k`` (so ``1e400`` is the integer 10^400)
``MAX_BITS``             8192       bits of the numerator/denominator of every rational
                                    intermediate, and ``|value| < 2^8192`` for every
                                    irrational one (so ``10**10**10`` is refused at once)
``MAX_POWER``            10000      ``|n|`` of an integer exponent
``MAX_ROOT``             16         denominator ``q`` of a rational exponent ``p/q``
``MAX_EXP_ARG``          10000      ``|x|`` in ``exp(x)``
=======================  =========  ======================================================

Error messages quote at most a short, escaped excerpt of the text.
"""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from typing import Any

__all__ = [
    "parse_real",
    "excerpt",
    "MAX_LENGTH",
    "MAX_NODES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_DECIMAL_EXPONENT",
    "MAX_BITS",
    "MAX_POWER",
    "MAX_ROOT",
    "MAX_EXP_ARG",
]

MAX_LENGTH = 2000
MAX_NODES = 200
MAX_DEPTH = 32
MAX_DIGITS = 1000
MAX_DECIMAL_EXPONENT = 1000
MAX_BITS = 8192
MAX_POWER = 10_000
MAX_ROOT = 16
MAX_EXP_ARG = 10_000

#: rational bases up to this many bits are handed to sympy's own root simplification
#: (``sqrt(8)`` -> ``2*sqrt(2)``); larger ones cost seconds there (1.4 s for 1000 digits)
#: and are kept as an unevaluated power after an exact perfect-power test.
_SYMPY_ROOT_BITS = 332

#: interval precisions (bits) tried in turn to decide a sign or a magnitude
_PRECISIONS = (128, 1024, 4096)

_ALLOWED_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.+-*/^() \t")
_NUMBER = re.compile(r"^[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$")
_RATIO = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)$")
_FUNCS = ("log", "ln", "exp", "sqrt")
_CONSTS = ("pi", "e", "E")
_NODE_NAMES = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscripts",
    ast.List: "lists",
    ast.Tuple: "tuples",
    ast.Set: "sets",
    ast.Dict: "dicts",
    ast.Lambda: "lambda",
    ast.Compare: "comparisons",
    ast.BoolOp: "boolean operators",
    ast.IfExp: "conditional expressions",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.NamedExpr: "assignment expressions",
    ast.JoinedStr: "strings",
    ast.Starred: "starred arguments",
}


class _Refused(ValueError):
    """Internal: a refusal reason, turned into the public one-line message by :func:`parse_real`."""


class _Undecided(Exception):
    """Internal: the interval precision did not decide a sign; retry at a higher precision."""


def excerpt(text: str, width: int = 40) -> str:
    """A short, escaped quotation of user text for error messages (never the whole input)."""
    s = text if len(text) <= width else text[:width] + "..."
    return repr(s)


def parse_real(text: str, name: str = "value") -> Any:
    """Parse ``text`` exactly: a :class:`~fractions.Fraction` if rational, else a sympy expression.

    Raises ``ValueError`` (one line, naming ``name``) for anything outside the grammar or the
    limits of this module; ``TypeError`` if ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string, got {type(text).__name__}")
    s = text.strip()
    if not s:
        raise ValueError(f"{name} is an empty string")
    try:
        return _parse(s)
    except _Refused as exc:
        raise ValueError(f"{name}: {exc} in {excerpt(s)}") from None


def _parse(s: str) -> Any:
    if len(s) > MAX_LENGTH:
        raise _Refused(f"text longer than {MAX_LENGTH} characters")
    bad = next((c for c in s if c not in _ALLOWED_CHARS), None)
    if bad is not None:
        raise _Refused(f"character {bad!r} is not allowed")
    m = _RATIO.match(s)
    if m:  # fast path for "p/q"
        num, den = _literal(m.group(1)), _literal(m.group(2))
        if den == 0:
            raise _Refused("division by zero")
        return _check_rational(num / den)
    if _NUMBER.match(s):  # fast path for a single decimal
        return _literal(s)
    s = s.replace("^", "**")
    try:
        tree = ast.parse(s, mode="eval")
    except SyntaxError:
        raise _Refused("invalid syntax") from None
    except (RecursionError, MemoryError, ValueError):
        raise _Refused("expression too deeply nested or too large") from None
    count = 0
    for _ in ast.walk(tree):
        count += 1
        if count > MAX_NODES:
            raise _Refused(f"more than {MAX_NODES} syntax nodes")
    last: Exception | None = None
    for prec in _PRECISIONS:
        try:
            value, _ball = _Walker(s, prec).eval(tree.body, 1)
            return value
        except _Undecided as exc:
            last = exc
    raise _Refused(str(last))


def _literal(text: str) -> Fraction:
    """An exact decimal literal (the text of one token), within the digit and exponent limits."""
    m = _NUMBER.match(text)
    if not m:
        raise _Refused(f"number {excerpt(text, 20)} is not a plain decimal (no 0x/0o/0b, '_' separators or complex)")
    whole, frac, lead_frac, exp = m.groups()
    digits = len(whole or "") + len(frac or "") + len(lead_frac or "")
    if digits > MAX_DIGITS:
        raise _Refused(f"number with more than {MAX_DIGITS} digits")
    k = 0
    if exp is not None:
        if len(exp.lstrip("+-").lstrip("0")) > 6 or abs(int(exp)) > MAX_DECIMAL_EXPONENT:
            raise _Refused(f"decimal exponent beyond ±{MAX_DECIMAL_EXPONENT}")
        k = int(exp)
    frac = frac or lead_frac or ""
    value = Fraction(int((whole or "0") + frac), 10 ** len(frac))
    value = value * 10**k if k >= 0 else value / 10 ** (-k)
    return _check_rational(-value if text.startswith("-") else value)


def _coefficient_bits(expr: Any) -> int:
    """Largest numerator/denominator bit length of the rationals inside a sympy expression (>= 1)."""
    import sympy

    bits = 1
    for r in expr.atoms(sympy.Rational):
        bits = max(bits, int(r.p).bit_length(), int(r.q).bit_length())
    return bits


def _check_rational(x: Fraction) -> Fraction:
    if x.numerator.bit_length() > MAX_BITS or x.denominator.bit_length() > MAX_BITS:
        raise _Refused(f"a rational with more than {MAX_BITS} bits in numerator or denominator")
    return x


class _Walker:
    """Evaluates a whitelisted tree into (exact value, arb ball at ``prec`` bits) pairs."""

    def __init__(self, text: str, prec: int) -> None:
        self.text = text
        self.prec = prec

    # -- helpers -----------------------------------------------------------------------------
    def ball(self, x: Fraction) -> Any:
        from flint import arb, fmpq

        return arb(fmpq(x.numerator, x.denominator))

    def sign(self, ball: Any, what: str) -> int:
        if ball > 0:
            return 1
        if ball < 0:
            return -1
        raise _Undecided(f"cannot decide the sign of {what}")

    def checked(self, value: Any, ball: Any) -> tuple[Any, Any]:
        """Rationals to Fraction (bit limit); irrationals within the magnitude and coefficient limits."""
        from flint import arb

        if isinstance(value, Fraction):
            return _check_rational(value), ball
        if value.is_Rational:
            return _check_rational(Fraction(int(value.p), int(value.q))), ball
        if not ball.is_finite() or ball.abs_upper() >= arb(2) ** MAX_BITS:
            raise _Refused(f"a value of magnitude 2^{MAX_BITS} or more")
        if _coefficient_bits(value) > MAX_BITS:
            raise _Refused(f"a rational coefficient with more than {MAX_BITS} bits")
        return value, ball

    @staticmethod
    def sym(x: Any) -> Any:
        import sympy

        return sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x

    # -- the walk ------------------------------------------------------------------------------
    def eval(self, node: ast.AST, depth: int) -> tuple[Any, Any]:
        if depth > MAX_DEPTH:
            raise _Refused(f"nesting deeper than {MAX_DEPTH}")
        from flint import ctx

        old = ctx.prec
        ctx.prec = self.prec
        try:
            return self._eval(node, depth)
        finally:
            ctx.prec = old

    def _eval(self, node: ast.AST, depth: int) -> tuple[Any, Any]:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float, complex)):
                raise _Refused(f"{type(node.value).__name__} literals are not allowed")
            text = self.text[node.col_offset : node.end_col_offset]
            x = _literal(text)
            return x, self.ball(x)
        if isinstance(node, ast.Name):
            return self.constant(node.id)
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise _Refused(f"operator {type(node.op).__name__} is not allowed")
            v, b = self.eval(node.operand, depth + 1)
            return (-v, -b) if isinstance(node.op, ast.USub) else (v, b)
        if isinstance(node, ast.BinOp):
            return self.binop(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        what = _NODE_NAMES.get(type(node), type(node).__name__)
        raise _Refused(f"{what} not allowed")

    def constant(self, ident: str) -> tuple[Any, Any]:
        import sympy
        from flint import arb

        if ident == "pi":
            return sympy.pi, arb.pi()
        if ident in ("e", "E"):
            return sympy.E, arb(1).exp()
        if ident in _FUNCS:
            raise _Refused(f"function {ident} used without an argument")
        raise _Refused(f"unknown name {excerpt(ident, 20)} (allowed: {', '.join(_CONSTS)}, {', '.join(_FUNCS)})")

    def binop(self, node: ast.BinOp, depth: int) -> tuple[Any, Any]:
        op = node.op
        if not isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            raise _Refused(f"operator {type(op).__name__} is not allowed (use + - * / ** ^)")
        a, ab = self.eval(node.left, depth + 1)
        b, bb = self.eval(node.right, depth + 1)
        if isinstance(op, ast.Pow):
            return self.power(a, ab, b, bb)
        rational = isinstance(a, Fraction) and isinstance(b, Fraction)
        if isinstance(op, ast.Div):
            if rational:
                if b == 0:
                    raise _Refused("division by zero")
            elif isinstance(b, Fraction):
                if b == 0:
                    raise _Refused("division by zero")
            else:
                self.sign(bb, "a divisor (it may be zero)")
        x, y = (a, b) if rational else (self.sym(a), self.sym(b))
        if isinstance(op, ast.Add):
            return self.checked(x + y, ab + bb)
        if isinstance(op, ast.Sub):
            return self.checked(x - y, ab - bb)
        if isinstance(op, ast.Mult):
            return self.checked(x * y, ab * bb)
        return self.checked(x / y, ab / bb)

    def power(self, a: Any, ab: Any, b: Any, bb: Any) -> tuple[Any, Any]:
        import sympy

        if not isinstance(b, Fraction):
            raise _Refused("a power exponent must be a rational number")
        if abs(b.numerator) > MAX_POWER:
            raise _Refused(f"a power exponent beyond ±{MAX_POWER}")
        if b.denominator > MAX_ROOT:
            raise _Refused(f"a root of order above {MAX_ROOT}")
        if b.denominator == 1:
            k = b.numerator
            if isinstance(a, Fraction):
                if a == 0 and k < 0:
                    raise _Refused("division by zero")
                bits = max(a.numerator.bit_length(), a.denominator.bit_length())
                if (bits - 1) * abs(k) > MAX_BITS:  # a^k has more than (bits-1)*|k| bits
                    raise _Refused(f"a power with more than {MAX_BITS} bits")
                x = a**k
                return self.checked(x, self.ball(x))
            if (_coefficient_bits(a) - 1) * abs(k) > MAX_BITS:
                raise _Refused(f"a power with more than {MAX_BITS} bits")
            if k < 0:
                self.sign(ab, "a base raised to a negative power (it may be zero)")
            return self.checked(sympy.Pow(a, k), ab**k)
        # rational exponent p/q, q > 1: the base must be positive
        if isinstance(a, Fraction):
            if a < 0:
                raise _Refused("a fractional power of a negative number")
            if a == 0:
                if b < 0:
                    raise _Refused("division by zero")
                return Fraction(0), self.ball(Fraction(0))
        elif self.sign(ab, "the base of a fractional power") < 0:
            raise _Refused("a fractional power of a negative number")
        if not isinstance(a, Fraction) and (_coefficient_bits(a) - 1) * abs(b.numerator) > MAX_BITS:
            raise _Refused(f"a power with more than {MAX_BITS} bits")
        ball = (ab.log() * self.ball(b)).exp()
        if isinstance(a, Fraction):
            return self.checked(self.rational_root(a, b), ball)
        return self.checked(sympy.Pow(a, self.sym(b)), ball)

    def rational_root(self, a: Fraction, b: Fraction) -> Any:
        """``a**(p/q)`` for a rational a > 0: sympy's simplification when cheap, else an exact
        perfect-power test and an unevaluated power."""
        import sympy

        p, q = b.numerator, b.denominator
        if max(a.numerator.bit_length(), a.denominator.bit_length()) <= _SYMPY_ROOT_BITS:
            return sympy.Pow(self.sym(a), sympy.Rational(p, q))
        rn, exact_n = sympy.integer_nthroot(a.numerator, q)
        rd, exact_d = sympy.integer_nthroot(a.denominator, q)
        if exact_n and exact_d:
            x = Fraction(rn, rd) ** p
            return _check_rational(x)
        return sympy.Pow(self.sym(a), sympy.Rational(p, q), evaluate=False)

    def call(self, node: ast.Call, depth: int) -> tuple[Any, Any]:
        import sympy

        if not isinstance(node.func, ast.Name):
            raise _Refused("calls of anything but log, ln, exp, sqrt are not allowed")
        fname = node.func.id
        if fname not in _FUNCS:
            raise _Refused(f"function {excerpt(fname, 20)} not allowed (allowed: {', '.join(_FUNCS)})")
        if node.keywords or len(node.args) != 1:
            raise _Refused(f"{fname} takes exactly one argument")
        x, xb = self.eval(node.args[0], depth + 1)
        if fname in ("log", "ln"):
            if isinstance(x, Fraction):
                if x <= 0:
                    raise _Refused("log of a number <= 0")
                if x == 1:
                    return Fraction(0), self.ball(Fraction(0))
            elif self.sign(xb, "the argument of log") <= 0:
                raise _Refused("log of a number <= 0")
            return self.checked(sympy.log(self.sym(x)), xb.log())
        if fname == "exp":
            from flint import arb

            if not abs(xb).upper() <= arb(MAX_EXP_ARG):
                raise _Refused(f"exp of an argument beyond ±{MAX_EXP_ARG}")
            if isinstance(x, Fraction) and x == 0:
                return Fraction(1), self.ball(Fraction(1))
            return self.checked(sympy.exp(self.sym(x)), xb.exp())
        # sqrt
        return self.power(x, xb, Fraction(1, 2), self.ball(Fraction(1, 2)))
