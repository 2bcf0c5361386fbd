"""PyTorch's function-schema grammar (a practical subset), parsed into frozen
dataclasses: `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`."""
import ast
import re
from dataclasses import dataclass
from typing import Optional

BASE_TYPES = ("Tensor", "Scalar", "int", "float", "bool", "ScalarType", "Device", "MemoryFormat", "str")
LISTABLE = ("Tensor", "int")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_TYPE = re.compile(r"^(?P<base>[A-Za-z]+)(?P<alias>\([a-z](?P<bang>!)?\))?"
                   r"(?P<list>\[(?P<size>\d*)\])?(?P<opt>\?)?$")
MISSING = object()


class SchemaError(ValueError):
    pass


@dataclass(frozen=True)
class Type:
    base: str
    optional: bool = False
    is_list: bool = False
    size: Optional[int] = None    # int[2]
    alias: Optional[str] = None   # Tensor(a) / Tensor(a!)
    mutable: bool = False

    @classmethod
    def parse(cls, text):
        m = _TYPE.match(text)
        if not m:
            raise SchemaError(f"cannot parse type '{text}'")
        base = m["base"]
        if base not in BASE_TYPES:
            raise SchemaError(f"unknown type '{base}' (known: {', '.join(BASE_TYPES)})")
        if m["alias"] and base != "Tensor":
            raise SchemaError(f"only Tensor takes an alias annotation, not '{base}'")
        if m["list"] and base not in LISTABLE:
            raise SchemaError(f"'{base}[]' is not supported (lists of: {', '.join(LISTABLE)})")
        alias = m["alias"][1] if m["alias"] else None
        return cls(base, bool(m["opt"]), bool(m["list"]), int(m["size"]) if m["size"] else None,
                   alias, bool(m["bang"]))

    def __str__(self):
        s = self.base
        if self.alias:
            s += f"({self.alias}{'!' if self.mutable else ''})"
        if self.is_list:
            s += f"[{self.size or ''}]"
        return s + ("?" if self.optional else "")

    @property
    def is_tensor(self):
        return self.base == "Tensor" and not self.is_list


@dataclass(frozen=True)
class Arg:
    name: str
    type: Type
    default: object = MISSING
    kwonly: bool = False

    @property
    def has_default(self):
        return self.default is not MISSING


@dataclass(frozen=True)
class Return:
    name: Optional[str]
    type: Type


@dataclass(frozen=True)
class Schema:
    name: str
    overload: str
    args: tuple
    returns: tuple

    @property
    def full_name(self):
        return f"{self.name}.{self.overload}" if self.overload else self.name

    def arg(self, name):
        return next((a for a in self.args if a.name == name), None)

    @property
    def tensor_args(self):
        return [a for a in self.args if a.type.base == "Tensor"]

    @property
    def mutates(self):
        return [a for a in self.args if a.type.mutable]

    @property
    def returns_self_alias(self):
        """A return annotated with self's alias (Tensor(a)) may be self itself."""
        first = self.args[0] if self.args else None
        ret = self.returns[0] if len(self.returns) == 1 else None
        return (first is not None and first.name == "self" and bool(first.type.alias) and ret is not None
                and ret.type.alias == first.type.alias and not ret.type.mutable)

    @classmethod
    def parse(cls, text):
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z0-9_]+))?\s*\((.*)\)\s*->\s*(.+?)\s*$", text, re.S)
        if not m:
            raise SchemaError("expected 'name[.overload](args) -> returns'")
        name, overload, args_text, ret_text = m.groups()
        if not _NAME.match(name):
            raise SchemaError(f"operator name '{name}' must be lower_snake_case")
        args = _parse_args(args_text)
        returns = _parse_returns(ret_text)
        return cls(name, overload or "", args, returns)


def _split(text):
    """Split on commas that are not inside brackets or parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _parse_default(text, typ):
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise SchemaError(f"cannot parse default value '{text}'") from None
    if value is None:
        if not typ.optional:
            raise SchemaError(f"default None needs an optional type ('{typ}?')")
        return None
    ok = {
        "Tensor": False,
        "int": isinstance(value, (int, list, tuple)) and not isinstance(value, bool),
        "float": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "Scalar": isinstance(value, (int, float, bool)),
        "ScalarType": False,
        "Device": False,
        "MemoryFormat": False,
        "str": isinstance(value, str),
    }[typ.base]
    if typ.is_list and typ.base == "int":
        ok = isinstance(value, (list, tuple, int)) and not isinstance(value, bool)
        value = [value] if isinstance(value, int) else list(value)
    elif typ.base == "int" and isinstance(value, (list, tuple)):
        ok = False
    if not ok:
        raise SchemaError(f"default {text} does not fit type '{typ}'")
    return value


def _parse_args(text):
    args, kwonly, seen = [], False, set()
    for part in _split(text):
        if part == "*":
            if kwonly:
                raise SchemaError("'*' appears twice")
            kwonly = True
            continue
        m = re.match(r"^(\S+)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(.+))?$", part)
        if not m:
            raise SchemaError(f"cannot parse argument '{part}' (expected 'Type name[=default]')")
        typ = Type.parse(m[1])
        name = m[2]
        if not _NAME.match(name):
            raise SchemaError(f"argument name '{name}' must be lower_snake_case")
        if name in seen:
            raise SchemaError(f"argument '{name}' appears twice")
        seen.add(name)
        default = _parse_default(m[3], typ) if m[3] is not None else MISSING
        if not kwonly and args and args[-1].has_default and default is MISSING and not args[-1].kwonly:
            raise SchemaError(f"argument '{name}' without a default follows one with a default")
        args.append(Arg(name, typ, default, kwonly))
    return tuple(args)


def _parse_returns(text):
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        parts = _split(text[1:-1])
        if not parts:
            raise SchemaError("an empty return tuple is not supported")
    else:
        parts = [text]
    rets = []
    for part in parts:
        bits = part.split()
        if len(bits) > 2:
            raise SchemaError(f"cannot parse return '{part}'")
        typ = Type.parse(bits[0])
        if typ.base != "Tensor" or typ.is_list or typ.optional:
            raise SchemaError(f"returns must be Tensors, not '{typ}'")
        rets.append(Return(bits[1] if len(bits) == 2 else None, typ))
    return tuple(rets)
