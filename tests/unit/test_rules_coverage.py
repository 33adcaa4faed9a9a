"""Every rule and decision line of RULES.md names tests that exist (the table: tests/rules_coverage.py
and each game's lines in its folder, domain/<game>/tests/rules.py)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from tests.rules_coverage import rules, sections

ROOT = Path(__file__).resolve().parents[2]
RULES = rules()  # the shared lines and every registered game's (its folder's tests/rules.py)
SECTIONS = sections()


@cache
def _test_functions(path: str) -> frozenset[str]:
    file = ROOT / path
    if not file.is_file():
        return frozenset()
    tree = ast.parse(file.read_text())
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
    )


def test_every_rule_line_names_at_least_one_test() -> None:
    assert [rule.id for rule in RULES if not rule.tests] == []
    assert all(rule.text.strip() for rule in RULES)


def test_every_named_test_exists() -> None:
    missing = [
        (rule.id, ref)
        for rule in RULES
        for ref in rule.tests
        if ref.count("::") != 1 or ref.split("::")[1] not in _test_functions(ref.split("::")[0])
    ]
    assert missing == []


def test_rule_ids_are_unique_and_every_section_of_rules_md_is_covered() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert [s for s in SECTIONS if not any(i.startswith(s) for i in ids)] == []
