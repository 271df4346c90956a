#!/usr/bin/env python3
"""Measure lorebook's import graph against its layers: circles, upward imports, sizes.

Usage: ``.venv/bin/python scripts/layers.py [--strict]``

The layers, low to high, are :data:`LAYERS`; each may import only itself and the layers
below it. The graph is the one Python runs: every ``import`` and ``from ... import`` of a
``lorebook`` module anywhere in a module (at the top or inside a function), and
``import_module``/``__import__`` of a constant name; imports under ``if TYPE_CHECKING:``
do not count, since they never run.

It prints the circles (strongly connected groups of modules, with the imports that close
them), the imports that run up from a lower layer, the modules over 500 lines and the lines in
the core's pipeline packages (:data:`PIPELINE_PACKAGES`). It exits 1 when it finds a circle or
an upward import that :data:`KNOWN_CIRCLES` and :data:`KNOWN_UPWARD` do not list, a module no
layer owns, or pipeline packages over :data:`PIPELINE_LINES_ALLOWED` lines;
``tests/core/test_layers.py`` runs it with the test suite. ``--strict`` also fails on entries
of those lists that no longer occur (so the lists only shrink) and on pipeline packages over
the target, :data:`MAX_PIPELINE_LINES`.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "core" / "src"
PACKAGE = "lorebook"
MAX_LINES = 500

# Low to high. A module belongs to the layer of the longest name here that is it or one of
# its packages (``lorebook.kb`` owns ``lorebook.kb.notes``; ``lorebook`` owns only its
# ``__init__``); every module must have one.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "model: data model, errors, hook specs, plugin manager, secret scanner",
        (
            "lorebook",
            "lorebook.models",
            "lorebook.errors",
            "lorebook.constants",
            "lorebook.bounds",
            "lorebook.slug",
            "lorebook.safeopen",
            "lorebook.statefile",
            "lorebook.appendlog",
            "lorebook.detached",
            "lorebook.events",
            "lorebook.harness",
            "lorebook.providers",
            "lorebook.store",
            "lorebook.hookspecs",
            "lorebook.plugins",
            "lorebook.hookplugins",
            "lorebook.hookconfig",
            "lorebook.hookinput",
            "lorebook.fastpath.finder",
            "lorebook.installhint",
            # the common English words that comparing texts ignores: data, standard library
            "lorebook.stopwords",
            # git's merge-conflict marker lines in a text: standard library
            "lorebook.mergemarks",
            # whether one text already says another (served text says nothing twice)
            "lorebook.saying",
            # the secret scanner: detect-secrets and its own modules, nothing else of ours;
            # capture redacts with it, curation and recall refuse what it flags
            "lorebook.secrets",
        ),
    ),
    (
        "kb: the knowledge base on disk (notes, paths, YAML, lint)",
        (
            "lorebook.kb",
            "lorebook.config",
            "lorebook.datafile",
            "lorebook.gitmerge",
            "lorebook.fastpath.launcher",
            # the launcher's side of the warm process and what doctor reads of it: standard
            # library and the model only, so doctor asks without importing the server
            "lorebook.fastpath.client",
            "lorebook.fastpath.status",
            "lorebook.pointer",
            "lorebook.skills",
            "lorebook.precommit",
            # whether what a note rests on changed: notes and the repository's files
            "lorebook.validity",
            # the building blocks of host plugins: standard library, events and kb files
            "lorebook.hostkit",
        ),
    ),
    (
        "recall: the index and ranking",
        (
            "lorebook.recall",
            "lorebook.reviewstate",
            # ``lorebook note add``'s writer: it reads the index as its catalog of the notes
            # (reconciling it first) and renders only what the note changes, so it sits
            # above the index; nothing below the command line imports it
            "lorebook.kb.incremental",
        ),
    ),
    (
        "capture and serving",
        (
            "lorebook.capture",
            "lorebook.inject",
            # what session start tells the person through the model, beside what inject serves
            "lorebook.nudges",
            # what the hook path writes and the follow-up after a capture reads; the
            # ``lorebook stats`` report built on them is a feature
            "lorebook.stats.timing",
            "lorebook.stats.usage",
            "lorebook.stats.injections",
            "lorebook.stats.attribution",
            "lorebook.stats.follow",
            "lorebook.stats.tally",
            "lorebook.stats.store",
        ),
    ),
    (
        "extraction and curation",
        (
            "lorebook.extract",
            "lorebook.curate",
            "lorebook.premises",
            "lorebook.review",
            "lorebook.review_groups",
        ),
    ),
    (
        "features built on them",
        (
            "lorebook.builtin",
            # the built-in extractors: plugins on the extraction contract (extract.base)
            "lorebook.extractors",
            # the built-in LLM curators: plugins on the curation contract (curate.base)
            "lorebook.curators",
            "lorebook.bootstrap",
            "lorebook.harvest",
            "lorebook.pack",
            "lorebook.stats",
            "lorebook.evaluation",
            "lorebook.importers",
            "lorebook.mcp_server",
            "lorebook.mcp_config",
            # reshapes nodes/: reads open conflicts and kind folders as curation does,
            # may ask a curator for the plan, and syncs the index after its renames
            "lorebook.rebalance",
            # harvest's memory layouts (bootstrap and evaluation parts)
            "lorebook.hostkit.memory",
            "lorebook.testing",
            "lorebook.doctor",
            "lorebook.checks",
            "lorebook.status",
            "lorebook.initialize",
            "lorebook.migrate",
            "lorebook.mark",
            "lorebook.canary",
            "lorebook.review_tui",
        ),
    ),
    (
        "entry points: the command line and the hook process",
        (
            "lorebook.cli",
            # the built-in plugins adding the features' commands (register_commands)
            "lorebook.builtin.commands",
            "lorebook.__main__",
            "lorebook.hook",
            "lorebook.fastpath",
        ),
    ),
)

# The core's pipeline packages (the layers below the features), whose lines are counted.
PIPELINE_LAYERS = 5

# The pipeline stages and the knowledge base they share: the contracts and the machinery
# that runs them. Implementations live outside them: the built-in extractors
# (lorebook.extractors), the secret scanner (lorebook.secrets), the features. Issue 31 asks
# for a small core: these packages together under MAX_PIPELINE_LINES lines.
PIPELINE_PACKAGES: tuple[str, ...] = (
    "lorebook.kb",
    "lorebook.recall",
    "lorebook.capture",
    "lorebook.inject",
    "lorebook.extract",
    "lorebook.curate",
)
MAX_PIPELINE_LINES = 15_000
# Until the packages are under the target, the measure fails above this ceiling, so they
# shrink and never grow (15,149 lines when it was set); --strict fails above the target.
# Lower it as they shrink; once they are under the target, set it to MAX_PIPELINE_LINES.
PIPELINE_LINES_ALLOWED = MAX_PIPELINE_LINES

# Imports that run up today, importer -> imported. Shrink these lists; never grow them without
# a comment saying why the import cannot go down.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset(
    {
        # a note written, archived or moved updates the index at once (kb -> recall.sync): the
        # markdown store and the lifecycle writers are called from every layer above the kb
        # (kb.personal's store included), and the prompt hook of another process ranks from
        # the index, so the writer, not each caller, keeps it current
        ("lorebook.kb.store", "lorebook.recall.sync"),
        ("lorebook.kb.lifecycle", "lorebook.recall.sync"),
    }
)

# Circles today, each as the set of modules in it. A circle passes while its modules are a
# subset of one of these.
KNOWN_CIRCLES: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class Import:
    """One runtime import of a lorebook module by another."""

    importer: str
    imported: str
    path: Path
    line: int

    def where(self, root: Path) -> str:
        """``path:line`` relative to ``root`` when it can be."""
        try:
            shown = self.path.relative_to(root)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


@dataclass
class Graph:
    """The modules of a package, their files and the imports between them."""

    files: dict[str, Path] = field(default_factory=dict)
    imports: dict[str, dict[str, Import]] = field(default_factory=dict)


def module_files(source: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``source``, by dotted name."""
    files: dict[str, Path] = {}
    for path in sorted((source / package).rglob("*.py")):
        parts = list(path.relative_to(source).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_imports(node: ast.AST) -> Iterator[ast.stmt | ast.Call]:
    """Import statements and constant ``import_module``/``__import__`` calls that can run."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _runtime_imports_of(other)
            continue
        yield from _runtime_imports_of(child)


def _runtime_imports_of(node: ast.AST) -> Iterator[ast.stmt | ast.Call]:
    if isinstance(node, ast.Import | ast.ImportFrom | ast.Call) and (
        not isinstance(node, ast.Call) or _dynamic_name(node) is not None
    ):
        yield node
    yield from _runtime_imports(node)


def _dynamic_name(call: ast.Call) -> str | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name not in {"import_module", "__import__"} or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _targets(node: ast.stmt | ast.Call, module: str, is_package: bool) -> list[str]:
    """Dotted names a statement imports (a ``from`` name may be a module or an attribute)."""
    if isinstance(node, ast.Call):
        name = _dynamic_name(node)
        return [name] if name else []
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, base] if base else parts)
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def build_graph(source: Path, package: str = PACKAGE) -> Graph:
    """Parse every module of ``package`` and collect its runtime imports of the package."""
    graph = Graph(files=module_files(source, package))
    for module, path in graph.files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found: dict[str, Import] = {}
        for node in _runtime_imports(tree):
            names = _targets(node, module, path.name == "__init__.py")
            # ``from a import b`` imports the module a.b when there is one, else a.
            resolved = [name for name in names[:-1] if name in graph.files] or names[-1:]
            if isinstance(node, ast.Import | ast.Call):
                resolved = names
            for name in resolved:
                target = _owning_module(name, graph.files)
                if target and target not in {module, package} and target not in found:
                    found[target] = Import(module, target, path, node.lineno)
        graph.imports[module] = found
    return graph


def _owning_module(name: str, files: Mapping[str, Path]) -> str | None:
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name or None


def layer_of(module: str, layers: Sequence[tuple[str, Sequence[str]]] = LAYERS) -> int | None:
    """Index of the layer that owns ``module`` (longest matching name), or None."""
    best: tuple[int, int] | None = None
    for index, (_name, prefixes) in enumerate(layers):
        for prefix in prefixes:
            # a top-level name (the package itself) owns only itself
            owns = module == prefix or ("." in prefix and module.startswith(prefix + "."))
            if owns and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def circles(graph: Graph) -> list[list[str]]:
    """Groups of two or more modules that import one another (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep import chain cannot hit the recursion limit.
        work: list[tuple[str, Iterator[str]]] = [(start, iter(graph.imports.get(start, {})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.imports.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for module in graph.files:
        if module not in index:
            visit(module)
    return sorted(found)


def upward(
    graph: Graph, layers: Sequence[tuple[str, Sequence[str]]] = LAYERS
) -> list[tuple[Import, int, int]]:
    """Imports from a module to one in a higher layer, with both layers' indexes."""
    found: list[tuple[Import, int, int]] = []
    for module, imports in graph.imports.items():
        low = layer_of(module, layers)
        for imp in imports.values():
            high = layer_of(imp.imported, layers)
            if low is not None and high is not None and high > low:
                found.append((imp, low, high))
    return sorted(found, key=lambda item: (item[0].importer, item[0].imported))


def line_count(path: Path) -> int:
    """Physical lines of a file."""
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


@dataclass
class Report:
    """What one measurement found, and what of it is new."""

    lines: list[str] = field(default_factory=list)
    new: int = 0
    stale: int = 0


def measure(
    source: Path = SOURCE,
    package: str = PACKAGE,
    layers: Sequence[tuple[str, Sequence[str]]] = LAYERS,
    known_upward: Iterable[tuple[str, str]] = KNOWN_UPWARD,
    known_circles: Iterable[frozenset[str]] = KNOWN_CIRCLES,
    pipeline_packages: Sequence[str] = PIPELINE_PACKAGES,
    pipeline_limits: tuple[int, int] = (MAX_PIPELINE_LINES, PIPELINE_LINES_ALLOWED),
) -> Report:
    """Measure ``package`` under ``source`` and describe it, marking what the lists lack."""
    graph = build_graph(source, package)
    root = ROOT if source.resolve().is_relative_to(ROOT) else source
    report = Report()
    say = report.lines.append
    allowed_up = set(known_upward)
    allowed_circles = list(known_circles)

    orphans = [module for module in graph.files if layer_of(module, layers) is None]
    for module in orphans:
        say(f"NEW   {module} belongs to no layer: add it to LAYERS in scripts/layers.py")
    report.new += len(orphans)

    found_circles = circles(graph)
    say(f"circles: {len(found_circles)}")
    for group in found_circles:
        members = set(group)
        known = any(members <= allowed for allowed in allowed_circles)
        report.new += not known
        say(f"{'known' if known else 'NEW  '} circle of {len(group)}: {', '.join(group)}")
        for module in group:
            for imp in graph.imports[module].values():
                if imp.imported in members:
                    say(f"        {imp.where(root)} {imp.importer} -> {imp.imported}")
    for allowed in allowed_circles:
        if not any(set(group) & allowed for group in found_circles):
            report.stale += 1
            say(f"gone  circle {', '.join(sorted(allowed))}: remove it from KNOWN_CIRCLES")

    found_up = upward(graph, layers)
    say(f"upward imports: {len(found_up)}")
    seen = set()
    for imp, low, high in found_up:
        pair = (imp.importer, imp.imported)
        seen.add(pair)
        known = pair in allowed_up
        report.new += not known
        say(
            f"{'known' if known else 'NEW  '} {imp.where(root)} {imp.importer} (layer {low + 1})"
            f" -> {imp.imported} (layer {high + 1})"
        )
    for pair in sorted(allowed_up - seen):
        report.stale += 1
        say(f"gone  {pair[0]} -> {pair[1]}: remove it from KNOWN_UPWARD")

    sizes = {module: line_count(path) for module, path in graph.files.items()}
    big = sorted((count, module) for module, count in sizes.items() if count > MAX_LINES)
    say(f"modules over {MAX_LINES} lines: {len(big)}")
    for count, module in reversed(big):
        say(f"        {count:5d} {module}")
    pipeline = sum(
        count
        for module, count in sizes.items()
        if (layer := layer_of(module, layers)) is not None and layer < PIPELINE_LAYERS
    )
    say(
        f"lines: {sum(sizes.values())} in {len(sizes)} modules, {pipeline} in the pipeline"
        f" layers 1-{PIPELINE_LAYERS}"
    )
    _measure_packages(report, sizes, pipeline_packages, pipeline_limits)
    per_layer = [0] * len(layers)
    for module, count in sizes.items():
        layer = layer_of(module, layers)
        if layer is not None:
            per_layer[layer] += count
    say("layers (low to high), lines in each:")
    for number, (name, _prefixes) in enumerate(layers, start=1):
        say(f"  {number}. {per_layer[number - 1]:6d}  {name}")
    return report


def _measure_packages(
    report: Report, sizes: Mapping[str, int], packages: Sequence[str], limits: tuple[int, int]
) -> None:
    """Say the lines of each pipeline package and their total, against the target and ceiling."""
    target, allowed = limits
    each = {
        package: sum(
            count
            for module, count in sizes.items()
            if module == package or module.startswith(package + ".")
        )
        for package in packages
    }
    total = sum(each.values())
    shown = ", ".join(f"{package.rpartition('.')[2]} {count}" for package, count in each.items())
    report.lines.append(f"pipeline packages: {total} lines ({shown}); target under {target}")
    if total > max(target, allowed):
        report.new += 1
        report.lines.append(
            f"NEW   the pipeline packages hold {total} lines, over the {max(target, allowed)}"
            " allowed: move an implementation out of them (docs/architecture.md)"
        )
    elif total > target:
        report.stale += 1
        report.lines.append(
            f"over  the pipeline packages hold {total} lines, {total - target} over the target:"
            " move an implementation out, then lower PIPELINE_LINES_ALLOWED"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the measurement; 1 if something is new (or, with --strict, gone)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--strict", action="store_true", help="also fail on known entries that no longer occur"
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=SOURCE,
        help="the folder that holds the lorebook package (default: core/src)",
    )
    args = parser.parse_args(argv)
    report = measure(args.source)
    print("\n".join(report.lines))
    if report.new:
        print(f"{report.new} new: see the lines marked NEW", file=sys.stderr)
        return 1
    if args.strict and report.stale:
        print(
            f"{report.stale} known entries no longer occur or a target is not met:"
            " see the lines marked 'gone' or 'over'",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
