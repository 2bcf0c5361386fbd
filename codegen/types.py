"""The translation table: one row per schema type, saying everything each target
needs of an argument of that type (its C parameters and arguments, its Python
converter, its stub type, its overload kind, its pointwise ctx field). cgen,
pygen and the templates read rows; none of them switches on a type name."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ArgType:
    c_params: str        # the entry's C parameters, "{n}" standing for the argument's name
    c_args: str          # what the entry passes on to a kernel
    converter: str       # the Python converter (from loom._args) turning a value into c_args' values
    stub: str            # the type in __init__.pyi
    overload: str        # the kind the runtime overload resolver matches
    bound: str = ""      # "statement" when the converter returns several values (bound to names first)
    ctx: str = ""        # the C type of a pointwise ctx field holding it ("": not a ctx type)
    kernel: bool = True  # passed on to the kernel; False: the generated entry applies it (memory_format)
    tensor: bool = False  # one lm_tensor * (the profiler's record_shapes reads its shape)

    def params(self, name):
        return self.c_params.format(n=name)

    def args(self, name):
        return self.c_args.format(n=name)


_ROWS = {
    # (base, is_list, optional): row
    ("Tensor", False, False): ArgType("lm_tensor *{n}", "{n}", "_tensor_arg", "Tensor | _Number", "Tensor",
                                      bound="statement", tensor=True),
    ("Tensor", False, True): ArgType("lm_tensor *{n}", "{n}", "_tensor_arg", "Tensor | _Number | None", "Tensor?",
                                     bound="statement", tensor=True),
    ("Tensor", True, False): ArgType("lm_tensor **{n}, int64_t {n}_len", "{n}, {n}_len", "_tensor_list",
                                     "Sequence[Tensor]", "Tensor[]", bound="statement"),
    ("int", False, False): ArgType("int64_t {n}", "{n}", "_int", "_int", "int", ctx="int64_t"),
    ("int", False, True): ArgType("int64_t {n}", "{n}", "_int_opt", "_int | None", "int?"),
    ("int", True, False): ArgType("const int64_t *{n}, int64_t {n}_len", "{n}, {n}_len", "_int_list",
                                  "Sequence[_int] | _int", "int[]", bound="statement"),
    ("int", True, True): ArgType("const int64_t *{n}, int64_t {n}_len", "{n}, {n}_len", "_int_list_opt",
                                 "Sequence[_int] | _int | None", "int[]?", bound="statement"),
    ("Scalar", False, False): ArgType("lm_scalar {n}", "{n}", "_scalar", "_Number", "Scalar", ctx="lm_scalar"),
    ("Scalar", False, True): ArgType("lm_scalar {n}", "{n}", "_scalar_opt", "_Number | None", "Scalar?",
                                     ctx="lm_scalar"),
    ("float", False, False): ArgType("double {n}", "{n}", "_float", "_float", "float", ctx="double"),
    ("float", False, True): ArgType("double {n}", "{n}", "_float_opt", "_float | None", "float?"),
    ("bool", False, False): ArgType("bool {n}", "{n}", "_bool", "_bool", "bool", ctx="bool"),
    ("ScalarType", False, True): ArgType("int {n}", "{n}", "_dtype_arg", "_DType | None", "ScalarType?"),
    ("ScalarType", False, False): ArgType("int {n}", "{n}", "_dtype_arg", "_DType", "ScalarType"),
    ("Device", False, True): ArgType("int {n}", "{n}", "_device_arg", "_Device | None", "Device?"),
    ("Device", False, False): ArgType("int {n}", "{n}", "_device_arg", "_Device", "Device"),
    # a layout for the result (loom.channels_last, ...): the entry moves the kernel's result into it
    ("MemoryFormat", False, True): ArgType("int {n}", "{n}", "_memory_format_arg", "_MemoryFormat | None",
                                           "MemoryFormat?", kernel=False),
    ("str", False, False): ArgType("const char *{n}", "{n}", "_str", "str", "str"),
    ("str", False, True): ArgType("const char *{n}", "{n}", "_str_opt", "str | None", "str?"),
}

TYPES = tuple(sorted({base for base, _, _ in _ROWS}))


def row(t):
    """The row of a schema type (codegen.schema's Type)."""
    try:
        return _ROWS[(t.base, t.is_list, t.optional)]
    except KeyError:
        raise ValueError(f"no translation for schema type '{t}'") from None


def supported(t):
    return (t.base, t.is_list, t.optional) in _ROWS
