"""A YAML loader that remembers the line of every mapping and string."""
from pathlib import Path

import yaml

from .errors import SpecError


class Located(dict):
    """A mapping with the line it started on and the line of each key."""
    line = 0
    key_lines: dict


class LocatedStr(str):
    line = 0


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # libyaml's parser where PyYAML has it: 3x faster
    pass


def _mapping(loader, node):
    loader.flatten_mapping(node)
    m = Located()
    m.line = node.start_mark.line + 1
    m.key_lines = {}
    for knode, vnode in node.value:
        key = loader.construct_object(knode, deep=True)
        if key in m:
            raise SpecError(loader.name, knode.start_mark.line + 1, f"duplicate key '{key}'")
        m[key] = loader.construct_object(vnode, deep=True)
        m.key_lines[key] = knode.start_mark.line + 1
    return m


def _string(loader, node):
    s = LocatedStr(loader.construct_scalar(node))
    s.line = node.start_mark.line + 1
    return s


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor("tag:yaml.org,2002:str", _string)


def load(path, shown=None):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    loader = _Loader(text)
    loader.name = shown or str(path)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise SpecError(shown or path, mark.line + 1 if mark else 1, f"invalid YAML: {e.problem or e}") from None
    finally:
        loader.dispose()


def sources(path):
    """The YAML files of a declaration folder (ops/, derivatives/: one file per
    family, in name order) or a single file, each with the name errors show
    (`ops/pointwise.yaml`)."""
    path = Path(path)
    if path.is_dir():
        return [(p, f"{path.name}/{p.name}") for p in sorted(path.glob("*.yaml"))]
    return [(path, path.name)]


def load_entries(path, what):
    """[(entry, shown file name)] over every file of `path`; each file is a list of entries."""
    out = []
    for p, shown in sources(path):
        data = load(p, shown)
        if data is None:
            continue
        if not isinstance(data, list):
            raise SpecError(shown, 1, f"{shown} must be a list of {what}")
        out.extend((e, shown) for e in data)
    return out
