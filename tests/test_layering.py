"""Import boundaries a reviewer relies on, held by a test.

- `impl` never imports `models` or `conformance`: conformance means something
  only while the model and the implementation are written apart.
- The kernel's faces (explorer, z3, diagram) do not import one another, and
  only `smt.py` imports z3.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = path.parent.relative_to(ROOT).parts
                package = package[: len(package) - node.level + 1]
                base = ".".join((*package, base)) if base else ".".join(package)
            names.add(base)
    return names


def test_impl_stands_alone() -> None:
    for path in (ROOT / "impl").rglob("*.py"):
        bad = {n for n in imports(path) if n.split(".")[0] in ("models", "conformance")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_engines_do_not_import_each_other() -> None:
    kernel = ROOT / "models" / "kernel"
    forbidden = {
        "explore": {"smt", "diagram"},
        "smt": {"explore", "oracle", "diagram"},
        "diagram": {"smt"},
        # check-trace steps the compiled rows itself (fast), never the Machine or z3.
        "tracecheck": {"smt", "oracle", "explore", "diagram"},
        "itf": {"smt", "oracle", "explore", "diagram"},
    }
    for module, others in forbidden.items():
        seen = imports(kernel / f"{module}.py")
        bad = seen & {f"models.kernel.{o}" for o in others}
        assert not bad, f"{module}.py imports {bad}"


def test_only_smt_imports_z3() -> None:
    for path in ROOT.glob("models/**/*.py"):
        if path.name != "smt.py":
            assert "z3" not in {n.split(".")[0] for n in imports(path)}, path
