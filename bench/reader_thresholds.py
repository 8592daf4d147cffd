"""Counts the hand-set thresholds on the card-reading side, per module.

    python bench/reader_thresholds.py

A threshold is a module-level upper-case name bound to a number (each number of a tuple counts),
a numeric field default of a tuning dataclass, or a numeric literal other than 0, 1 and 2
anywhere in a comparison (`covered >= 0.85 * area` counts its 0.85). The modules are those that
decide a code at read time with the learned reader, the only one left: `recognizer.py` (the
outline and paper rules), `classify.py` (the reader) and `tuning.py`, the one table where every
threshold is meant to live. The network's input features (`index_model.window_tensor`) are left
out: they are the model's input, the same at training and at reading, not a rule on its answer.
Run on the code before the template reader was removed, the same count gave 60 with the
template reader (`classify.py` 19, `recognizer.py` 9, `face_ink.py` 12, `glyphs.py` 20) and 15
with the learned one (`recognizer.py` 9, `tuning.py` 6).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READERS = {
    "learned": (
        "drivers/camera/recognizer.py",
        "drivers/camera/classify.py",
        "drivers/camera/tuning.py",
    ),
}


def _numeric(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    return False


def _size(node: ast.AST) -> int:
    """How many numbers a numeric constant holds (a tuple of bars is that many thresholds)."""
    return len(node.elts) if isinstance(node, ast.Tuple) else 1


def count(path: Path) -> tuple[int, int]:
    """(named, inline) thresholds of one module."""
    tree = ast.parse(path.read_text())
    named = 0
    for node in tree.body:
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id.isupper() and _numeric(value):
            named += _size(value)
        if isinstance(node, ast.ClassDef) and "Tuning" in node.name:
            named += sum(
                1
                for item in node.body
                if isinstance(item, ast.AnnAssign) and item.value and _numeric(item.value)
                for _ in range(_size(item.value))
            )
    inline = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                inline += sum(
                    1
                    for part in ast.walk(side)
                    if isinstance(part, ast.Constant)
                    and _numeric(part)
                    and part.value not in (0, 1, 2)
                )
    return named, inline


def main() -> None:
    for reader, modules in READERS.items():
        total = 0
        for module in modules:
            named, inline = count(ROOT / module)
            total += named + inline
            print(f"  {reader:9s} {module:34s} named {named:3d}  inline {inline:3d}")
        print(f"{reader}: {total} thresholds decide a code at read time")


if __name__ == "__main__":
    main()
