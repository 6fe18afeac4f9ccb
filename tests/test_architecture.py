"""The layout's rules, checked on the source: imports go one way (no cycles, counting imports
made inside functions), each sub-package imports only what docs/design.md allows it, module names
are unique, package roots stay small, and nothing outside algorithms/ probes a loss with `hasattr`."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("algorithms", "benchmarks", "harness", "sweeps")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The project's modules that `path` imports anywhere in its body (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {t for t in targets if t in known}
    return found - {name}


def import_graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    known = {module_name(p) for p in files}
    return {module_name(p): imported_modules(p, known) for p in files}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_imports_go_one_way():
    graph = import_graph()
    assert "harness.rollout.engine" in graph["harness.rollout.vllm_backend"]  # the graph sees real imports
    assert find_cycle(graph) is None


def test_no_hasattr_on_losses_outside_algorithms():
    offenders = []
    for pkg in ("benchmarks", "harness", "sweeps"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "hasattr":
                    text = ast.unparse(node)
                    if "loss" in text.lower():
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {text}")
    assert offenders == []


def test_layers():
    """harness.common is the base layer (imports nothing of the project); algorithms imports nothing
    of the project; benchmarks imports nothing of harness but harness.common."""
    graph = import_graph()
    for module, targets in graph.items():
        project = {t for t in targets if t.split(".")[0] in PACKAGES}
        if module.startswith("harness.common"):
            assert all(t.startswith("harness.common") for t in project), (module, project)
        elif module.startswith("algorithms"):
            assert all(t.startswith("algorithms") for t in project), (module, project)
        elif module.startswith("benchmarks"):
            allowed = ("benchmarks", "harness.common")
            assert all(t.startswith(allowed) or t == "harness" for t in project), (module, project)


# What each sub-package may import of the project (prefixes; a module may always import its own folder).
# The order matters: the first prefix that a module's name starts with gives its rule.
PACKAGE_RULES = (
    ("harness.common", ("harness.common",)),
    ("harness.profiles", ("harness.common",)),  # the registries every layer reads: no config, no report
    ("harness.config_fields", ("harness.common",)),
    ("harness.rollout", ("harness.common", "harness.rollout")),
    (
        "harness.reports.stats",
        (
            "harness.common",
            "harness.reports.stats",
            "harness.reports.paper_numbers",
            "harness.tracking",
            "harness.profiles",
        ),
    ),
    (
        "harness.training",
        (
            "algorithms",
            "benchmarks",
            "harness.common",
            "harness.rollout",
            "harness.training",
            "harness.schema",
            "harness.dataclass_config",
            "harness.config_fields",
            "harness.tracking",
            "harness.models",
            "harness.tasks",
            "harness.evaluate",
        ),
    ),
    ("benchmarks.sandbox", ("benchmarks.sandbox",)),
    ("benchmarks.grading", ("benchmarks.grading", "benchmarks.benchmark_registry", "harness.common")),
    ("benchmarks", ("benchmarks", "harness.common")),
    ("algorithms.corrections", ("algorithms.corrections",)),  # each correction: its folder's registry and ratios only
    ("algorithms", ("algorithms",)),
)


def test_package_rules():
    """rollout imports nothing of training, training nothing of reports, the statistics nothing that renders,
    the sandbox nothing outside itself, algorithms nothing of the project (its corrections nothing outside their
    folder)."""
    broken = []
    for module, targets in import_graph().items():
        rule = next((allowed for prefix, allowed in PACKAGE_RULES if _within(module, prefix)), None)
        if rule is None:
            continue
        project = {t for t in targets if t.split(".")[0] in PACKAGES and t != "harness"}
        broken += [f"{module} -> {t}" for t in sorted(project) if not any(_within(t, allowed) for allowed in rule)]
    assert broken == []


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_the_rules_see_a_forbidden_import():
    graph = import_graph()
    assert "harness.training.rl_module" in graph["harness.training.train"]
    assert not any(_within(t, "harness.reports") for t in graph["harness.training.train"])


def test_no_two_modules_share_a_name():
    seen: dict[str, list[str]] = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if path.name != "__init__.py":
                seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_package_roots_stay_small():
    """The roots of harness/ and benchmarks/ keep a handful of modules; concerns live in folders."""
    for pkg in ("harness", "benchmarks"):
        modules = sorted(p.name for p in (ROOT / pkg).glob("*.py") if p.name != "__init__.py")
        assert len(modules) <= 12, (pkg, modules)


def test_every_folder_is_a_package_that_says_what_lives_there():
    for pkg in PACKAGES:
        for folder in [ROOT / pkg, *(p for p in (ROOT / pkg).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__" or not any(folder.glob("*.py")):
                continue
            init = folder / "__init__.py"
            assert init.is_file(), folder
            assert ast.get_docstring(ast.parse(init.read_text())), f"{init} has no docstring"
