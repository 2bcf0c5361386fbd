"""dtypes.yaml parsed into one frozen table: every dtype fact the generator
emits (C enum, itemsizes, names, LM_DISPATCH, casts, the promotion lattice, the
range checks of Python numbers, the Python dtype objects, ops/'s dtype sets)
is read from here, so a dtype is added in one place."""
from dataclasses import dataclass
from pathlib import Path

from . import yamlload
from .errors import SpecError, did_you_mean

PATH = Path(__file__).resolve().parent.parent / "dtypes.yaml"
CATEGORIES = ("bool", "integral", "floating", "complex")   # promotion raises along this order
KEYS = ("name", "torch", "c", "cuda", "category", "bits", "signed", "numpy", "dlpack", "aliases", "sets", "max", "compute", "digits",
        "barebones")


@dataclass(frozen=True)
class DType:
    name: str
    code: int
    torch: str   # PyTorch's ScalarType name (Float, Long, ...), as its messages say it
    c: str
    cuda: str
    category: str
    bits: int
    signed: bool
    numpy: str
    dlpack: tuple
    aliases: tuple
    sets: tuple
    line: int
    max: str = ""   # floating: the largest finite value, a C literal ("" for the widest: any Python float fits)
    compute: str = ""   # the dtype kernels compute in ("": itself); float16/bfloat16 compute in float32
    digits: int = 0     # floating: significand bits (FLT_MANT_DIG)
    barebones: bool = False   # PyTorch's barebones unsigned types: in no set but their own, promoted only with floats

    @property
    def work(self):
        """The dtype kernels compute in: itself, or (a storage-only dtype) its `compute` dtype."""
        return self.compute or self.name

    @property
    def stored(self):
        """Storage-only: kept in memory as `c` (a struct), computed in `compute`."""
        return bool(self.compute)

    @property
    def enum(self):
        return "LM_" + self.name.upper()

    @property
    def itemsize(self):
        return self.bits // 8

    @property
    def rank(self):
        return CATEGORIES.index(self.category)

    def limits(self):
        """(lowest, highest) as C expressions: what max/min reductions start from."""
        if self.category == "bool":
            return ("0", "1")
        if self.category == "integral":
            return (f"INT{self.bits}_MIN", f"INT{self.bits}_MAX") if self.signed else ("0", f"UINT{self.bits}_MAX")
        return ("-INFINITY", "INFINITY")

    def range(self):
        """(lo, hi) of the values a Python number may take to be written into this
        integral dtype, as C double literals (hi exclusive for 64 bits)."""
        if self.category != "integral":
            return None
        if self.signed:
            return (f"-0x1p{self.bits - 1}", f"0x1p{self.bits - 1}")
        return ("0", f"0x1p{self.bits}")


@dataclass(frozen=True)
class DTypeTable:
    dtypes: tuple
    path: str

    @property
    def names(self):
        return tuple(d.name for d in self.dtypes)

    @property
    def plain(self):
        """The real dtypes kernels compute in directly (every one but the storage-only, the
        complex and the barebones): what LM_DISPATCH and the per-type helpers cover."""
        return tuple(d for d in self.dtypes if not d.stored and d.category != "complex" and not d.barebones)

    @property
    def complex(self):
        return tuple(d for d in self.dtypes if d.category == "complex")

    def __getitem__(self, name):
        return next(d for d in self.dtypes if d.name == name)

    def sets(self):
        """The named `dtypes:` sets of ops/: `all` (neither complex nor barebones) plus each row's
        `sets`, in table order."""
        out = {"all": tuple(d.name for d in self.dtypes if d.category != "complex" and not d.barebones)}
        for d in self.dtypes:
            for s in d.sets:
                out.setdefault(s, ())
                out[s] += (d.name,)
        cx = out.get("complex", ())
        for base in ("all", "floating", "numeric"):
            out[base + "_and_complex"] = out.get(base, ()) + cx
        return out

    def to_real(self, name):
        """The real dtype of a complex one's parts (itself for the rest): abs, real, imag."""
        d = self[name]
        return self._pick("floating", d.bits // 2) if d.category == "complex" else d.name

    def promote(self, a, b):
        """PyTorch's promoteTypes over the table: the higher category wins; inside a
        category the wider type; a signed/unsigned integral pair needs a signed type
        wider than the unsigned one; two floating types of one width and different
        formats (float16, bfloat16) meet at the next wider float. A barebones unsigned dtype
        meets only a floating one (which wins): None for any other pair, which PyTorch refuses."""
        a, b = self[a], self[b]
        if a.name == b.name:
            return a.name
        if a.barebones or b.barebones:
            return next((d.name for d in (a, b) if d.category == "floating"), None)
        if a.rank != b.rank:
            hi, lo = (a, b) if a.rank > b.rank else (b, a)
            if hi.category == "complex" and lo.category == "floating" and lo.bits * 2 > hi.bits:
                return self._pick("complex", lo.bits * 2)
            return hi.name
        if a.category == "integral" and a.signed != b.signed:
            s, u = (a, b) if a.signed else (b, a)
            return s.name if s.bits > u.bits else self._pick("integral", u.bits * 2, signed=True)
        if a.bits == b.bits:   # same width, different formats
            return self._pick(a.category, a.bits * 2)
        return (a if a.bits > b.bits else b).name

    def _pick(self, category, bits, signed=None):
        for d in sorted(self.dtypes, key=lambda d: d.bits):
            if d.category == category and d.bits >= bits and (signed is None or d.signed == signed):
                return d.name
        raise SpecError(self.path, 1, f"no {category} dtype of {bits} bits or more for the promotion lattice")

    def refused_message(self):
        """PyTorch's message for a pair promote() refuses, a printf format of the two ScalarType names."""
        names = ", ".join(d.name for d in self.dtypes if d.barebones)
        return f"Promotion for {names} types is not supported, attempted to promote %s and %s"

    def promotion_table(self):
        """Codes of promote(a, b), -1 where the pair is refused."""
        return [[self[p].code if (p := self.promote(a.name, b.name)) else -1 for b in self.dtypes] for a in self.dtypes]

    def to_complex(self, name):
        """The complex dtype a floating one becomes next to a complex operand (-1: none)."""
        d = self[name]
        if d.category != "floating":
            return -1
        try:
            return self[self._pick("complex", d.bits * 2)].code
        except SpecError:
            return -1


def _row(entry, code, shown):
    line = getattr(entry, "line", 1)

    def err(msg, key=None):
        raise SpecError(shown, getattr(entry, "key_lines", {}).get(key, line) if key else line, msg)

    if not isinstance(entry, dict):
        err("each dtype is a mapping with a 'name'")
    for k in entry:
        if k not in KEYS:
            err(f"unknown key '{k}'{did_you_mean(str(k), KEYS)}", k)
    for k in ("name", "torch", "c", "cuda", "category", "bits", "numpy", "dlpack"):
        if k not in entry:
            err(f"missing '{k}'")
    if entry["category"] not in CATEGORIES:
        err(f"category is one of {', '.join(CATEGORIES)}", "category")
    bits = entry["bits"]
    if not isinstance(bits, int) or bits not in (8, 16, 32, 64, 128):
        err("bits is 8, 16, 32, 64 or 128", "bits")
    if entry["category"] == "integral" and not isinstance(entry.get("signed"), bool):
        err("an integral dtype says signed: true or false", "signed")
    if (entry["category"] == "floating") != isinstance(entry.get("digits"), int):
        err("a floating dtype (and only one) says digits: its significand bits", "digits")
    if entry.get("barebones", False) not in (True, False) or entry.get("barebones") and (
            entry["category"] != "integral" or entry.get("signed")):
        err("barebones: true is for unsigned integral dtypes", "barebones")
    dl = entry["dlpack"]
    if not (isinstance(dl, list) and len(dl) == 2 and all(isinstance(x, int) for x in dl)):
        err("dlpack is [type code, bits]", "dlpack")
    return DType(str(entry["name"]), code, str(entry["torch"]), str(entry["c"]), str(entry["cuda"]), entry["category"], bits,
                 bool(entry.get("signed", entry["category"] != "bool")), str(entry["numpy"]), tuple(dl),
                 tuple(str(a) for a in entry.get("aliases", [])), tuple(str(s) for s in entry.get("sets", [])), line,
                 str(entry.get("max", "")), str(entry.get("compute", "")), int(entry.get("digits", 0)),
                 bool(entry.get("barebones", False)))


def load(path=PATH):
    entries = yamlload.load_entries(path, "dtypes")
    rows = tuple(_row(e, i, shown) for i, (e, shown) in enumerate(entries))
    seen = {}
    for d in rows:
        for n in (d.name, *d.aliases):
            if n in seen:
                raise SpecError(Path(path).name, d.line, f"dtype name '{n}' is already used on line {seen[n]}")
            seen[n] = d.line
    names = {d.name: d for d in rows}
    for d in rows:
        if d.compute and (d.compute not in names or names[d.compute].stored or d.category != "floating"
                          or names[d.compute].category != "floating"):
            raise SpecError(Path(path).name, d.line, f"compute: '{d.compute}' must name a floating dtype of the table "
                            "that computes in itself (and only a floating dtype has one)")
    if not rows or rows[0].name != "bool":
        raise SpecError(Path(path).name, 1, "the first dtype is bool (code 0: comparisons and masks)")
    return DTypeTable(rows, str(path))


TABLE = load()
