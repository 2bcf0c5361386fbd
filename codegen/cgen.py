"""How the model maps onto C: parameter lists, kernel calls, shard choice."""
import zlib
from dataclasses import dataclass

from . import types
from .dtypes import TABLE
from .model import CTYPES, DTYPES

ALL_DTYPES = DTYPES   # an op listing every dtype needs no dtype check in its entry

# Adding a pointwise op recompiles one dispatch shard and one cffi module, so
# both are small: 64 dispatch files (a handful of ops each) bound through 16
# cffi extension modules (module = shard % NFFI). Changing either number
# needs a reconfigure (meson reads the output list when it configures).
NSHARDS = 64
NFFI = 16
PROMOTE_C = {"default": "LM_PROMOTE_DEFAULT", "float": "LM_PROMOTE_FLOAT", "bool_out": "LM_PROMOTE_BOOL_OUT",
             "scalars": "LM_PROMOTE_SCALARS", "values": "LM_PROMOTE_VALUES"}
REDUCE_C = {"sum": "LM_REDUCE_SUM", "keep": "LM_REDUCE_KEEP", "bool": "LM_REDUCE_BOOL", "float": "LM_REDUCE_FLOAT"}


def shard(op):
    # crc32 of the name: stable as ops come and go, so one new op recompiles one shard
    return zlib.crc32(op.cname.encode()) % NSHARDS


def ffi_module(op):
    """Index of the cffi extension module (loom._C_opsN) holding the op's Python-callable entries."""
    return shard(op) % NFFI


def shards_of_module(j):
    return list(range(j, NSHARDS, NFFI))


def params(op):
    """The C parameters of an op's public entry (what cffi calls)."""
    return [types.row(a.type).params(a.name) for a in op.schema.args]


def kernel_params(op):
    """The C parameters of a hand-written kernel: the entry's, less those the entry applies itself."""
    return [types.row(a.type).params(a.name) for a in op.schema.args if types.row(a.type).kernel]


def call_args(op):
    """Arguments passed from the public entry to the kernel."""
    return [types.row(a.type).args(a.name) for a in op.schema.args if types.row(a.type).kernel]


def casts_first(op):
    """A kernel with `ScalarType? dtype` that is no factory (softmax, cumsum, ...): PyTorch casts self to
    dtype before the op, so the entry does, and the op's dtypes then apply to the cast input."""
    a = op.schema.arg("dtype")
    return (op.kind == "kernel" and a is not None and a.type.optional and op.schema.arg("device") is None
            and op.schema.arg("self") is not None and not op.returns_tuple and not op.mutating)


def memory_format(op):
    """(format argument, the tensor whose layout preserve_format keeps) where the op takes
    memory_format=, else None: the entry moves the kernel's result into that layout."""
    fmt = next((a for a in op.schema.args if a.type.base == "MemoryFormat"), None)
    if fmt is None:
        return None
    like = next((a.name for a in op.schema.args if a.type.base == "Tensor" and not a.type.is_list
                 and not a.type.optional), "NULL")
    return fmt.name, like


def device_source(op):
    """The C expression naming the device a hand-written op runs on: its first plain
    Tensor's, else its `device` argument (factories), else the CPU."""
    for a in op.schema.args:
        if a.type.base == "Tensor" and not a.type.optional:
            return f"({a.name}_len ? {a.name}[0]->device : LM_CPU)" if a.type.is_list else f"{a.name}->device"
    if op.schema.arg("device") is not None:
        return "device < 0 ? LM_CPU : device"
    return "LM_CPU"


def factory_dtype(op):
    """A factory's `dtype` argument (a kernel taking no Tensor), which its entry checks against
    `dtypes:` as it checks Tensors' (arange(dtype=loom.uint16) is refused, not filled by no
    LM_DISPATCH case); None for the rest and for ops listing every dtype."""
    if op.kind != "kernel" or op.inputs or op.dtypes == ALL_DTYPES:
        return None
    a = op.schema.arg("dtype")
    return a.name if a is not None and a.type.base == "ScalarType" else None


def dtype_mask(op):
    """The op's dtypes as a bit mask over dtype codes, a C constant (the entries' membership test)."""
    return f"UINT64_C({hex(sum(1 << TABLE[d].code for d in op.dtypes))})"


def kernel_return(op):
    return "int" if op.returns_tuple or op.mutating else "lm_tensor *"


def kernel_decl(op, device="cpu"):
    ps = kernel_params(op) + (["lm_tensor **out"] if op.returns_tuple else [])
    return f"{kernel_return(op)} lm_{device}_{op.kernel}({', '.join(ps) or 'void'})"


@dataclass(frozen=True)
class Entry:
    """One public C entry of an op, what templates render (never re-parsed from a declaration)."""
    ret: str
    symbol: str
    params: str
    variant: str
    call: str = ""       # the parameters' names, as the entry passes them on
    shapes: tuple = ()   # per argument, for the profiler's record_shapes: its name if it is a Tensor, else NULL
    name: str = ""       # the profiler's event name

    @property
    def decl(self):
        return f"{self.ret}{'' if self.ret.endswith('*') else ' '}{self.symbol}({self.params})"

    @property
    def pointer(self):
        """As a member of a shard's function table."""
        return f"{self.ret}{'' if self.ret.endswith('*') else ' '}(*{self.symbol})({self.params})"


def entries(op):
    """Every public C entry of an op, as Entry records."""
    ps = params(op)
    names = [types.row(a.type).args(a.name) for a in op.schema.args]
    shapes = tuple(a.name if types.row(a.type).tensor else "NULL" for a in op.schema.args)
    name = f"loom::{op.name}"
    if op.returns_tuple:
        return [Entry("int", f"lm_op_{op.cname}", ", ".join(ps + ["lm_tensor **results"]), "function",
                      ", ".join(names + ["results"]), shapes, name)]
    if op.mutating:
        return [Entry("int", f"lm_op_{op.cname}", ", ".join(ps) or "void", "function", ", ".join(names), shapes, name)]
    out = [Entry("lm_tensor *", f"lm_op_{op.cname}", ", ".join(ps) or "void", "function", ", ".join(names), shapes,
                 name)]
    if "out" in op.variants:
        out.append(Entry("int", f"lm_op_{op.cname}_out", ", ".join(["lm_tensor *out"] + ps), "out",
                         ", ".join(["out"] + names), ("out",) + shapes, name))
    if "inplace" in op.variants:
        out.append(Entry("int", f"lm_op_{op.cname}_inplace", ", ".join(ps), "inplace", ", ".join(names), shapes,
                         name + "_"))
    return out


def entry_decls(op):
    """Every public C entry of an op: (C declaration, variant)."""
    return [(e.decl, e.variant) for e in entries(op)]


def entry_pointers(op):
    """The entries as members of a shard's function table."""
    return [e.pointer for e in entries(op)]


def table_key(ops):
    """What a shard's table is checked against when a cffi module binds it: a
    digest of its entries' declarations, so modules from another build refuse."""
    decls = "\n".join(d for op in ops for d, _ in entry_decls(op))
    return f"{len(ops)}:{zlib.crc32(decls.encode()):08x}"


def ctx_fields(op):
    return [(types.row(a.type).ctx, a.name) for a in op.ctx_args]


def ctx_init(op):
    return ", ".join(a.name for a in op.ctx_args)


def loop_unpack(op):
    """C lines inside a pointwise loop that turn the ctx into kernel arguments. An optional Scalar x
    whose body header defines LM_PW_NAME_DEFAULT_x(T, S) (its value when None) also gets x_as_: the value
    or that default, in T, resolved here once, so the body's loop selects against a plain value (GCC
    does not vectorise a loop that tests x.kind per element)."""
    lines = []
    for a in op.ctx_args:
        if a.type.base == "Scalar" and not a.type.optional:
            lines.append(f"const T {a.name} = LM_SCALAR_AS(T, c->{a.name});")
            continue
        lines.append(f"const {types.row(a.type).ctx} {a.name} = c->{a.name};")
        if a.type.base == "Scalar":
            d = f"LM_PW_{op.kernel}_DEFAULT_{a.name}"
            lines += [f"#ifdef {d}",
                      f"const T {a.name}_as_ = {a.name}.kind >= 0 ? LM_SCALAR_AS(T, {a.name}) : (T)({d}(T, S));",
                      f"(void){a.name}_as_;",
                      "#endif"]
    return lines


def kernel_call(op, mode, dt, scalar_input=-1, suffix=""):
    """The kernel macro applied to one element. mode: values x0.. (CUDA), contiguous inputs x0[i]..,
    strided through d[]/s[], or one broadcast scalar input `v` (scalar_input, already loaded).
    Elements are stored as S and loaded as the compute type T (float16/bfloat16: float).
    suffix: one of the body's other macros (_SHORT, _SHORT_OK: its short form and that form's test)."""
    load = load_macro(dt)

    def element(k):
        if k == scalar_input:
            return "v"
        if mode == "block":   # float16/bfloat16, contiguous: a block already converted to float
            return f"lm_b{k}_[i]"
        if mode == "value":   # the CUDA functors: one element per parameter x0, x1, ..
            return f"{load}(x{k})"
        if mode == "contiguous":
            return f"{load}(x{k}[i])" if scalar_input < 0 else f"{load}(x[i])"
        return f"{load}(*(const S *)(d[{k + 1}] + i * s[{k + 1}]))"

    args, k = ["T"], 0
    for a in op.schema.args:
        if a.type.base == "Tensor":
            args.append(element(k))
            k += 1
        else:
            args.append(a.name)
    return f"{body_macro(op, dt)}{suffix}({', '.join(args)})"


def body_macro(op, dt):
    """The body's macro: a complex dtype's own (LM_PW_NAME_complex) where the header defines one."""
    own = TABLE[dt].category == "complex" and op.complex_body
    return f"LM_PW_{op.kernel}_complex" if own else f"LM_PW_{op.kernel}"


def short_macro(op, dt):
    """The body's short-form macro (LM_PW_NAME_SHORT, with LM_PW_NAME_SHORT_OK its test) that the C
    loops take for blocks the test admits whole, where the header defines one: real floating dtypes."""
    return f"LM_PW_{op.kernel}_SHORT" if TABLE[dt].category == "floating" else None


def wide_macro(op, dt):
    """The body's LM_PW_NAME_WIDE, where its header defines one: its float32/float64 loops are compute-bound
    and take AVX-512's full width where the host has it (16-bit loops always do). For float32/float64 (a
    name, whether the header defines it or not) the template also emits the restrict contiguous loop
    (strip-mined for unary bodies)."""
    return f"LM_PW_{op.kernel}_WIDE" if TABLE[dt].category == "floating" and not TABLE[dt].stored else None


def check_call(op):
    """The kernel header's check applied to the op's arguments before the loop: the compute
    dtype, then the schema's arguments in order (Tensors as lm_tensor *, the rest from the ctx)."""
    args, k = ["compute"], 0
    for a in op.schema.args:
        if a.type.base == "Tensor":
            args.append(f"ins[{k}]")
            k += 1
        else:
            args.append(f"c->{a.name}")
    return f"LM_PW_{op.kernel}_CHECK({', '.join(args)})"


def ctype(dt):
    """The C type of an element of dt as stored."""
    return CTYPES[dt]


def compute_ctype(dt):
    """The C type kernels compute dt in (float for float16/bfloat16)."""
    return CTYPES[TABLE[dt].work]


def stored(dt):
    """float16/bfloat16: kept in 16 bits, computed in float32."""
    return TABLE[dt].stored


def load_macro(dt):
    return f"LM_LOAD_{TABLE[dt].enum}"


def out_dtype(op, dt):
    """The dtype a pointwise op's loop over dt stores: bool, dt's real counterpart (result: real), or dt."""
    return "bool" if op.promote == "bool_out" else TABLE.to_real(dt) if op.real_out else dt


def store_macro(op, dt):
    """What turns a pointwise kernel's value into the stored result element."""
    return f"LM_STORE_{TABLE[out_dtype(op, dt)].enum}"


def out_ctype(op, dt):
    return CTYPES[out_dtype(op, dt)]


def dtype_enum(dt):
    return TABLE[dt].enum


def entry_args(op):
    """The public entry's parameter names, in order, as call arguments (one per C parameter)."""
    return [x.strip() for a in op.schema.args for x in types.row(a.type).args(a.name).split(",")]


def inplace_entry_args(op):
    """entry_args for the in-place entry: a dtype= left out is self's, as PyTorch's cumsum_(dim) is
    cumsum(dim, dtype=self.dtype) written back (so self's dtype needs a loop: bool's, uint16's do not)."""
    a = op.schema.arg("dtype")
    swap = a.name if a is not None and a.type.base == "ScalarType" else None
    return [f"({x} < 0 ? self->dtype : {x})" if x == swap else x for x in entry_args(op)]


def scalar_fields(op):
    """The ctx fields holding Scalars: the driver checks each fits the compute dtype, and with
    promote: scalars they take part in promotion."""
    return [a.name for a in op.ctx_args if a.type.base == "Scalar"]


# The CUDA kernels go into fewer, larger files than the C dispatch (nvcc's
# fixed cost per file is high): one per group of dispatch shards.
NCUDA = 16


def cuda_shard(op):
    return shard(op) % NCUDA


def work(dt):
    """The dtype a generated loop of dt computes in (float16/bfloat16: float32's loop)."""
    return TABLE[dt].work


def loop_dtypes(op):
    """The dtypes an op's generated loops are stamped for: those it lists, each as its work dtype."""
    return list(dict.fromkeys(work(d) for d in op.dtypes))


def cuda_dtypes(op):
    """The dtypes the generated CUDA kernels serve: those listed but the complex ones, which no
    CUDA kernel serves yet (the runner refuses them, naming the dtype)."""
    return [d for d in op.dtypes if TABLE[d].category != "complex"]


def dtype_row(op, prefix):
    """An initializer row over every dtype in table order (C++ has no designated array
    initializers): PREFIX<dtype> where the op's CUDA kernels serve the dtype, else nullptr (a
    reduction of float16/bfloat16 reads them as stored and accumulates in float32)."""
    served = cuda_dtypes(op)
    return ", ".join(prefix + d.name if d.name in served else "nullptr" for d in TABLE.dtypes)


def fallback_call_args(op):
    """The CPU kernel's arguments in a host fallback: host copies of the Tensors, the CPU as device."""
    out = []
    for a in op.schema.args:
        if not types.row(a.type).kernel:
            continue
        if a.type.base == "Tensor":
            out.append(f"h_{a.name}, {a.name}_len" if a.type.is_list else f"h_{a.name}")
        elif a.type.base == "Device":
            out.append("LM_CPU")
        else:
            out.append(types.row(a.type).args(a.name))
    return out


def upcast_call_args(op, upcast, dtype_args):
    """The entry's arguments with the float32 copies (u_NAME) and dtype arguments as their work dtype."""
    out = []
    for a in op.schema.args:
        if a.name in upcast:
            out.append(f"u_{a.name}, {a.name}_len" if a.type.is_list else f"u_{a.name}")
        elif a.name in dtype_args:
            out.append(f"{a.name} >= 0 && {a.name} < LM_NUM_DTYPES ? lm_dtype_work[{a.name}] : {a.name}")
        else:
            out.append(types.row(a.type).args(a.name))
    return out

