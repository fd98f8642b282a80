"""The safe exact-number parser (dpexact.numbers.parse): grammar, limits, refusals, no code execution."""

import builtins
import time
from fractions import Fraction

import math

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.numbers import parse as P
from dpexact.numbers.backends import MAX_BALL_PREC, MAX_MP_DPS, ExactBackend, get_backend
from dpexact.numbers.parse import parse_real
from dpexact.numbers.real import Real

#: per-string time bound (seconds); the slowest accepted form measured here is ~0.05 s
PER_CASE = 5.0

R = sympy.Rational
ACCEPTED = [
    ("0.1", Fraction(1, 10)),
    ("1/3", Fraction(1, 3)),
    (" 3 / 4 ", Fraction(3, 4)),
    ("-7/-14", Fraction(1, 2)),
    ("1e-3", Fraction(1, 1000)),
    ("1.2E+3", Fraction(1200)),
    ("-1.5e2", Fraction(-150)),
    (".5", Fraction(1, 2)),
    ("5.", Fraction(5)),
    ("1e400", Fraction(10**400)),
    ("1e-1000", Fraction(1, 10**1000)),
    ("2^3*4", Fraction(32)),  # ^ is **, with its precedence
    ("-2**2", Fraction(-4)),
    ("2**-2", Fraction(1, 4)),
    ("(1+2)*(3-5)/4", Fraction(-3, 2)),
    ("4**0.5", Fraction(2)),
    ("sqrt(9/4)", Fraction(3, 2)),
    ("log(1)", Fraction(0)),
    ("exp(0)", Fraction(1)),
    ("exp(log(3))", Fraction(3)),
    ("2*log(3)", 2 * sympy.log(3)),
    ("log(3/2)", sympy.log(R(3, 2))),
    ("log(2)/2", sympy.log(2) / 2),
    ("exp(-1/2)", sympy.exp(R(-1, 2))),
    ("log((3+sqrt(5))/2)", sympy.log((3 + sympy.sqrt(5)) / 2)),
    ("sqrt(8)", 2 * sympy.sqrt(2)),
    ("2**(1/3)", sympy.root(2, 3)),
    ("ln(2)", sympy.log(2)),
    ("pi", sympy.pi),
    ("e", sympy.E),
    ("E**2", sympy.exp(2)),
    ("exp(1000)", sympy.exp(1000)),
    ("log(50)", sympy.log(50)),
    ("1/(1+exp(-1))", 1 / (1 + sympy.exp(-1))),
]

HOSTILE = [
    ("1/0", "division by zero"),
    ("1/(1-1)", "division by zero"),
    ("0**-1", "division by zero"),
    ("[1,2]", "not allowed"),
    ("(1,2)", "not allowed"),
    ("1e1001", "exponent"),
    ("1e999999999", "exponent"),
    ("10**10**10", "exponent"),
    ("9**9**9**9", "exponent"),
    ("2**8192", "bits"),
    ("factorial(10**9)", "factorial"),
    ("__import__('os').system('ls')", "not allowed"),
    ("().__class__.__bases__", "attribute"),
    ("x.real", "attribute"),
    ("lambda: 1", "not allowed"),
    ("[x for x in ()]", "not allowed"),
    ("'1'", "not allowed"),
    ("1 if 1 else 2", "conditional"),
    ("1 < 2", "not allowed"),
    ("1 % 2", "not allowed"),
    ("1 // 2", "FloorDiv"),
    ("1 & 2", "not allowed"),
    ("~1", "not allowed"),
    ("x", "unknown name"),
    ("nan", "unknown name"),
    ("inf", "unknown name"),
    ("oo", "unknown name"),
    ("I", "unknown name"),
    ("Symbol", "unknown name"),
    ("log", "without an argument"),
    ("log(2, 3)", "not allowed"),
    ("log()", "exactly one argument"),
    ("log(x=2)", "not allowed"),
    ("sin(1)", "not allowed"),
    ("0x10", "plain decimal"),
    ("0o7", "plain decimal"),
    ("0b1", "plain decimal"),
    ("1_000", "plain decimal"),
    ("1j", "plain decimal"),
    ("True", "bool"),
    ("None", "NoneType"),
    ("log(0)", "log"),
    ("log(-1)", "log"),
    ("log(1-e)", "log"),
    ("sqrt(-2)", "negative"),
    ("(-8)**(1/3)", "negative"),
    ("2**pi", "rational"),
    ("2**(1/17)", "root"),
    ("1/(log(4)-2*log(2))", "cannot decide"),
    ("exp(10001)", "exp"),
    ("exp(exp(exp(10)))", "exp"),
    ("((3/pi)**10000)**10000", "bits"),
    ("pi**10000", "magnitude"),
    ("9" * 1001, "digits"),
    ("1+" * 1000 + "1", "longer"),
    ("-" * 1500 + "1", "syntax nodes"),
    ("1" + "+1" * 150, "syntax nodes"),
    ("2e", "syntax"),
    ("1.2.3", "syntax"),
    ("", "empty"),
    ("   ", "empty"),
    ("1\n2", "not allowed"),
    ("\x00", "not allowed"),
    ("1\u22122", "not allowed"),  # a Unicode minus is not silently read
]


def _equal(got, expected) -> bool:
    if isinstance(expected, Fraction):
        return isinstance(got, Fraction) and got == expected
    return not isinstance(got, Fraction) and sympy.simplify(got - expected) == 0


@pytest.mark.parametrize("text, expected", ACCEPTED, ids=[t for t, _ in ACCEPTED])
def test_accepted_forms_have_their_exact_value(text, expected):
    t0 = time.perf_counter()
    got = parse_real(text, "epsilon")
    assert time.perf_counter() - t0 < PER_CASE
    assert _equal(got, expected), (text, got, expected)
    assert _equal(Real.of(text).value, expected)


@pytest.mark.parametrize("text, reason", HOSTILE, ids=[repr(t[:30]) for t, _ in HOSTILE])
def test_hostile_forms_are_refused_on_one_line(text, reason):
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as info:
        parse_real(text, "epsilon")
    assert time.perf_counter() - t0 < PER_CASE
    msg = str(info.value)
    assert msg.startswith("epsilon")
    assert reason in msg
    assert "\n" not in msg and len(msg) < 250  # never more than a short excerpt of the input


def test_limits_are_exact_boundaries():
    assert parse_real("1e1000") == Fraction(10**1000)
    assert parse_real("9" * P.MAX_DIGITS) == Fraction(int("9" * P.MAX_DIGITS))
    assert parse_real("2**8191") == Fraction(2**8191)  # 8192 bits: the largest allowed
    assert parse_real("exp(-10000)") == sympy.exp(-10000)
    nested = "(" * 30 + "1" + ")" * 30
    assert parse_real(nested) == 1  # parentheses are not syntax nodes
    deep = "log(" * 20 + "100" + ")" * 20
    with pytest.raises(ValueError, match="log|nesting|syntax"):
        parse_real("log(" * (P.MAX_DEPTH + 1) + "3" + ")" * (P.MAX_DEPTH + 1))
    with pytest.raises(ValueError):
        parse_real(deep)  # log(log(...)) goes below 1, then log of a negative number


def test_decimal_fast_path_has_the_same_limits():
    """A bare decimal or p/q skips the tree walk but not the limits (Fraction('1e999999999') would hang)."""
    for text in ("1e999999999", "-1e-999999999", "1" * 1001 + "/3", "3/" + "1" * 1001):
        with pytest.raises(ValueError):
            parse_real(text)


def test_not_a_string_is_a_type_error():
    with pytest.raises(TypeError):
        parse_real(b"1")  # type: ignore[arg-type]


@pytest.fixture
def no_eval(monkeypatch):
    """Make every code-evaluating path fail loudly: the parser must not use any of them."""

    def refuse(*args, **kwargs):
        raise AssertionError("code evaluation attempted")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    real_sympify = sympy.sympify

    def sympify(a, *args, **kwargs):
        if isinstance(a, str):
            refuse()
        return real_sympify(a, *args, **kwargs)

    monkeypatch.setattr(sympy, "sympify", sympify)
    monkeypatch.setattr(sympy, "parse_expr", refuse)
    import sys

    import sympy.parsing.sympy_parser as sympy_parser

    monkeypatch.setattr(sys.modules["sympy.core.sympify"], "sympify", sympify)
    monkeypatch.setattr(sympy_parser, "parse_expr", refuse)
    monkeypatch.setattr(sympy_parser, "eval_expr", refuse)


@pytest.mark.parametrize("text, expected", ACCEPTED[:25])
def test_parser_never_evaluates_code(no_eval, text, expected):
    assert _equal(parse_real(text), expected)


GADGETS = [
    "__import__('os').system('touch {s}')",
    "__import__(\"os\").system(\"touch {s}\")",
    "exec(\"open('{s}', 'w')\")",
    "eval(\"open('{s}', 'w')\")",
    "open('{s}', 'w')",
    "().__class__.__bases__[0].__subclasses__()",
    "().__class__.__base__.__subclasses__()[0].__init__.__globals__['sys'].modules['os'].system('touch {s}')",
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0](['touch', '{s}'])",
    "Function('f')(1)",
    "(lambda: __import__('os').system('touch {s}'))()",
    "1; __import__('os').system('touch {s}')",
    "__builtins__",
    "globals()",
    "breakpoint()",
]


@pytest.mark.parametrize("gadget", GADGETS)
def test_gadgets_never_create_the_sentinel(tmp_path, gadget):
    sentinel = tmp_path / "SENTINEL"
    text = gadget.format(s=sentinel)
    with pytest.raises(ValueError):
        parse_real(text, "epsilon")
    with pytest.raises(ValueError):
        dpexact.mechanism("em", epsilon=text)
    with pytest.raises(ValueError):
        dpexact.mechanism("em", epsilon=1).pmf(["1", text])
    with pytest.raises(ValueError):
        dpexact.mechanism("em", epsilon=1).pmf(["1", text], backend="exact")
    with pytest.raises(ValueError):
        dpexact.mechanism("gem", epsilon=1, sensitivities=["1", text])
    assert not sentinel.exists()


# -- hypothesis: random text never runs code and never hangs --------------------------------
TOKENS = ["0", "1", "2", "9", "99999", ".", "e", "E", "e9", "e-9", "+", "-", "*", "/", "**", "^", "(", ")",
          "log(", "exp(", "sqrt(", "ln(", "pi", "x", "os", "_", "__import__", "('os')", ".system", "[", "]",
          ",", "'", "\"", "lambda", ":", " ", "0x", "j", "1e999", "10**10", "factorial(", "__class__",
          "open(", "SENTINEL", ";", "=", "%", "//", "<", "\\", "\n", "\u2212", "ε"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=30).map("".join))
def test_random_token_strings_are_safe(tmp_path_factory, text):
    _check_safe(text.replace("SENTINEL", "touch_me"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_random_text_is_safe(text):
    _check_safe(text)


def _check_safe(text: str) -> None:
    import os

    t0 = time.perf_counter()
    try:
        v = parse_real(text, "value")
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 300
    else:  # accepted: a finite real number
        r = Real(v)
        assert r.to_arb(64).is_finite()
    assert time.perf_counter() - t0 < PER_CASE
    assert not os.path.exists("touch_me")


# -- hypothesis: rational expressions against Fraction arithmetic (independent oracle) ---------
@st.composite
def rational_expr(draw, depth=0):
    """(text, value or None for 'division by zero') built with Python's Fraction arithmetic."""
    if depth >= 3 or draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "dec", "sci"]))
        if kind == "int":
            n = draw(st.integers(0, 10**6))
            return str(n), Fraction(n)
        if kind == "dec":
            a, b = draw(st.integers(0, 999)), draw(st.integers(0, 999))
            return f"{a}.{b:03d}", Fraction(a) + Fraction(b, 1000)
        m, k = draw(st.integers(1, 99)), draw(st.integers(-20, 20))
        return f"{m}e{k}", Fraction(m) * Fraction(10) ** k
    op = draw(st.sampled_from(["+", "-", "*", "/", "**", "neg"]))
    a, va = draw(rational_expr(depth + 1))
    if op == "neg":
        return f"-({a})", None if va is None else -va
    if op == "**":
        k = draw(st.integers(-3, 3))
        if va is None or (va == 0 and k < 0):
            return f"({a})**({k})", None
        return f"({a})**({k})", va**k
    b, vb = draw(rational_expr(depth + 1))
    text = f"({a}){op}({b})"
    if va is None or vb is None:
        return text, None
    if op == "+":
        return text, va + vb
    if op == "-":
        return text, va - vb
    if op == "*":
        return text, va * vb
    return text, None if vb == 0 else va / vb


@settings(max_examples=300, deadline=None)
@given(rational_expr())
def test_rational_expressions_match_fraction_arithmetic(case):
    text, value = case
    if value is None:
        with pytest.raises(ValueError, match="division by zero"):
            parse_real(text)
    else:
        assert parse_real(text) == value


# -- other entry points ---------------------------------------------------------------------
def test_precision_caps():
    assert get_backend(f"mp:{MAX_MP_DPS}").dps == MAX_MP_DPS
    assert get_backend(f"ball:{MAX_BALL_PREC}").prec == MAX_BALL_PREC
    for spec in (f"mp:{MAX_MP_DPS + 1}", f"ball:{MAX_BALL_PREC + 1}", "mp:10000000", "ball:100000000",
                 "mp:0x10", "ball:1e3", "ball:-5", "mp:", "ball:12345678901234567890", "mp:__import__('os')"):
        with pytest.raises(ValueError) as info:
            get_backend(spec)
        assert "\n" not in str(info.value)


def test_exact_field_never_parses_text():
    with pytest.raises(TypeError):
        ExactBackend.field(["1/3"])
    kind, vals = ExactBackend.field([sympy.Rational(1, 3), Fraction(1, 2), 2])
    assert kind == "fmpq" and [str(v) for v in vals] == ["1/3", "1/2", "2"]


def test_float_conversion_rounds_out_of_range_values_to_infinity():
    """IEEE round-to-nearest: beyond float64's range is ±inf (never NaN); callers that need a
    finite float (scores, parameters) refuse it with a message naming the argument."""
    assert Real.of("1e400").to_float() == math.inf
    assert Real.of("-exp(1000)").to_float() == -math.inf
    assert Real.of("exp(700)").to_float() == pytest.approx(float(sympy.exp(700).evalf(30)), rel=1e-15)


def test_float_scores_out_of_range_name_the_entry():
    with pytest.raises(ValueError, match=r"scores\[1\].*float64"):
        dpexact.mechanism("em", epsilon=1).pmf(["0", "1e400"])
    with pytest.raises(ValueError, match=r"scores\[0\]"):
        dpexact.mechanism("em", epsilon=1).pmf(["0x10", "0"])


def test_neighbourhood_spec_is_parsed_safely():
    from dpexact.verification.neighbourhoods import parse_neighbourhood

    m = dpexact.mechanism("em", epsilon=1)
    assert parse_neighbourhood("box:1/2", m).sensitivity == Fraction(1, 2)
    for spec in ("box:__import__('os')", "box:", "box:1,,2", "default:3", "replace:x", "box:0x10", "nope"):
        with pytest.raises(ValueError) as info:
            parse_neighbourhood(spec, m)
        assert "\n" not in str(info.value)


def test_gem_requires_sensitivities():
    with pytest.raises(ValueError, match="sensitivities is required"):
        dpexact.mechanism("gem", epsilon=1)
    with pytest.raises(ValueError, match="sensitivities is required"):
        dpexact.mechanism("mgem", epsilon=1)
