"""Every edge builds its services through the composition root (services/composition.py).

An edge that wired a service by hand chose its own providers and answered otherwise than
``jarvis-memory serve``: the CLI's recall once ran without the embedding model the server
used. The REST app, the MCP servers, the CLI, the docs generator, the evaluations and the
benchmarks may not construct these services (tests/test_edges_agree.py checks that they
then answer alike); the service classes' own tests may.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDGES = ("api", "bench", "docsgen", "evals")
BUILT_BY_THE_ROOT = frozenset(
    {
        "RecallService",
        "MemoryService",
        "ContextService",
        "MessageScoringService",
        "build_embeddings",
        "PersonEraser",
        "PersonExporter",
        "PersonImporter",
    }
)


def _constructions(path: Path, root: Path = ROOT) -> list[str]:
    """``name:line`` of every call of a root-built constructor in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name in BUILT_BY_THE_ROOT:
            found.append(f"{path.relative_to(root)}:{node.lineno} {name}(...)")
    return found


def test_no_edge_constructs_a_service_the_composition_root_builds() -> None:
    files = [p for edge in EDGES for p in sorted((ROOT / edge).rglob("*.py"))]
    assert len(files) > 50  # the edges were found
    by_hand = [c for path in files for c in _constructions(path)]
    assert by_hand == [], "build these through services.composition.Services"


def test_the_check_finds_a_construction(tmp_path: Path) -> None:
    sample = tmp_path / "edge.py"
    sample.write_text(
        "def f(s, a, b, c):\n    return RecallService(s, a, b, c), x.build_embeddings(a)\n"
    )
    assert _constructions(sample, tmp_path) == [
        "edge.py:2 RecallService(...)",
        "edge.py:2 build_embeddings(...)",
    ]
