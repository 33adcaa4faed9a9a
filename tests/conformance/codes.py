"""The refusal codes a game's rules can raise, read off its sources.

Each ``RuleViolation(code, ...)``, where ``code`` is a string, a constant of domain/refusals.py, or
a parameter of the function that raises it (then every call of that function gives its argument),
in the game's package and in the shared modules a game's ``decide`` goes through
(domain/rereading.py).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from domain import refusals
from domain.decider import Decider

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
SHARED = (DOMAIN / "rereading.py",)


def package_sources(decider: Decider) -> list[Path]:
    """The modules of the package that holds ``decider.decide`` (domain/<game>/, tests/games/<game>/)."""
    package = decider.decide.__module__.rsplit(".", 1)[0]
    module = importlib.import_module(package)
    assert module.__file__ is not None
    return sorted(Path(module.__file__).parent.glob("*.py"))


def declared_codes_are_raised_codes(decider: Decider) -> None:
    """``about.refusal_codes`` is exactly what the rules raise: complete, nothing extra."""
    assert decider.about is not None, "a game declares its refusal codes in ``about``"
    sources = package_sources(decider)
    text = "".join(path.read_text() for path in sources)
    shared = [path for path in SHARED if f"domain.{path.stem}" in text]  # the ones it goes through
    raised = raised_codes([*sources, *shared])
    declared = set(decider.about.refusal_codes)
    assert raised - declared == set(), "raised but not declared"
    assert declared - raised == set(), "declared but never raised"


def _code(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "refusals":
        value = getattr(refusals, node.attr)
        assert isinstance(value, str)
        return value
    return None


def _called(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def raised_codes(paths: list[Path]) -> set[str]:
    trees = [ast.parse(path.read_text()) for path in paths]
    codes: set[str] = set()
    forwarding: dict[str, int] = {}  # function -> position of the parameter it raises as a code
    unresolved: list[str] = []
    for tree in trees:
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            parameters = [a.arg for a in function.args.args]
            for call in ast.walk(function):
                if not (isinstance(call, ast.Call) and _called(call) == "RuleViolation"):
                    continue
                first = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "code")
                if (code := _code(first)) is not None:
                    codes.add(code)
                elif isinstance(first, ast.Name) and first.id in parameters:
                    forwarding[function.name] = parameters.index(first.id)
                else:
                    unresolved.append(ast.unparse(call))
    for tree in trees:
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and (name := _called(call)) in forwarding:
                argument = call.args[forwarding[name]]
                if (code := _code(argument)) is None:
                    unresolved.append(ast.unparse(call))
                else:
                    codes.add(code)
    assert unresolved == [], "a refusal whose code cannot be read off the source"
    return codes
