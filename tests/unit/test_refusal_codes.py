"""Each game declares every refusal code its rules can raise, no more (domain/<game>/about.py):
the OpenAPI document lists them as the enum of a refused command's ``code``.

The codes are read off the sources: each ``RuleViolation(code, ...)``, where ``code`` is a string,
a constant of domain/refusals.py, or a parameter of the function that raises it (then every call
of that function gives its argument), in the game's package and in the shared modules a game's
``decide`` goes through (domain/rereading.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from domain import refusals, registry

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
SHARED = (DOMAIN / "rereading.py",)


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


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_a_game_declares_exactly_the_codes_its_rules_raise(kind: str) -> None:
    decider = registry.games()[kind]
    assert decider.about is not None
    package = sorted((DOMAIN / kind).glob("*.py"))
    assert set(decider.about.refusal_codes) == raised_codes([*package, *SHARED])


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_a_game_s_races_are_refusals_it_declares(kind: str) -> None:
    about = registry.games()[kind].about
    assert about is not None
    assert about.race_codes <= about.refusal_codes
