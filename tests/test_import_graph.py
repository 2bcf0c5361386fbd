"""python/loom's own modules import each other without a cycle, and none reaches a loom module
from inside a function (the way cycles used to be dodged), except the few listed below with
their reason. Static: the sources are parsed, nothing is imported. Generated modules (_ops,
_nodes, _C, _autograd, _dtype once generated) are not in the tree and count as leaves."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "python" / "loom"

# (module, imported module): why the import stays inside a function
LOCAL_ALLOWED = {}


# modules that use loom as its users do (`import loom`): run as scripts, imported by nothing in loom
CLIENTS = ("loom.__main__", "loom.examples")


def _module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_package(path):
    return path.name == "__init__.py"


def _targets(node, mod, is_pkg, modules):
    """The loom modules an import statement binds (a package's submodule when it names one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name == "loom" or a.name.startswith("loom.")]
    if node.level:
        base = mod.split(".")
        base = base[:len(base) - node.level + (1 if is_pkg else 0)]
        pkg = ".".join(base + ([node.module] if node.module else []))
    else:
        pkg = node.module or ""
    if pkg != "loom" and not pkg.startswith("loom."):
        return []
    out = []
    for a in node.names:
        sub = f"{pkg}.{a.name}"
        out.append(sub if sub in modules or (a.name.startswith("_") and sub.count(".") == 1) else pkg)
    return out


def _scan():
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    edges, local = {m: set() for m in files}, []
    for mod, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        fn_nodes = set()
        for f in ast.walk(tree):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fn_nodes.update(id(n) for n in ast.walk(f) if n is not f)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for t in _targets(node, mod, _is_package(path), files):
                if t == mod:
                    continue
                if id(node) in fn_nodes:
                    local.append((mod, t, node.lineno))
                else:
                    edges[mod].add(t)
    return files, edges, local


def _cycle(edges):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if n not in edges:
                continue
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                c = visit(n)
                if c:
                    return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            c = visit(m)
            if c:
                return c
    return None


def _without_package_parents(edges):
    """A module importing its own package's face is a cycle only through that face: loom's
    subpackages must not do it, which test_no_face_imports checks on its own."""
    return {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in edges.items()}


def test_module_graph_is_acyclic():
    _, edges, _ = _scan()
    assert _cycle(_without_package_parents(edges)) is None


def test_no_face_imports():
    """Subpackages and private modules import the modules they use, not the package `loom`
    (which is still initialising when they load)."""
    _, edges, _ = _scan()
    bad = sorted(m for m, ts in edges.items() if m != "loom" and "loom" in ts and not m.startswith(CLIENTS))
    assert bad == []


def test_no_cycle_dodging_local_imports():
    _, _, local = _scan()
    bad = sorted({f"{m}:{line} imports {t}" for m, t, line in local if (m, t) not in LOCAL_ALLOWED})
    assert bad == []


def test_the_scan_sees_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    files, edges, _ = _scan()
    assert "loom._tensor" in files and "loom._C" in edges["loom._tensor"]
