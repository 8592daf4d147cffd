"""The core reads no clock and touches nothing outside: checked on the source itself.

import-linter forbids the I/O modules (`time`, `socket`, ...); this also catches what it cannot
see: `datetime.now()`, `open()`, randomness and environment reads inside allowed modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import studio.controller
import studio.messages

FORBIDDEN_CALLS = {"now", "utcnow", "today", "open", "getenv", "urandom", "print", "input"}
FORBIDDEN_IMPORTS = {"os", "random", "secrets", "io", "pathlib", "logging", "uuid"}
SOURCES = sorted(
    path
    for package in (studio.controller, studio.messages)
    for path in Path(package.__file__).parent.glob("*.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_core_module_reads_no_clock_and_does_no_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}()"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for module in names:
                root = (module or "").split(".")[0]
                assert root not in FORBIDDEN_IMPORTS, f"{path.name}:{node.lineno} imports {module}"
