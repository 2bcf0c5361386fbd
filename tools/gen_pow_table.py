"""Writes native/kernels/vmath_pow_table.h, the table float64 pow's log takes (vmath_pow.h's lm_log_pair):
for each of 128 intervals of the reduced argument z in [v, 2v), 1/c (c the interval's midpoint; exactly 1
for the interval around 1, so log z near 1 keeps its relative accuracy) and -log(1/c) as a pair of doubles,
from Python's decimal at 60 digits. tests/test_vmath_pow.py checks the header is this script's output.

    python tools/gen_pow_table.py > native/kernels/vmath_pow_table.h
"""
import struct
from decimal import Decimal, localcontext

BITS = 7                                   # 2^BITS intervals, each 2^(52 - BITS) bit patterns of z wide
ONE_AT = 74                                # the interval centred on 1.0 (z's range starts near sqrt(1/2))
OFF = 0x3FF0000000000000 - (ONE_AT << (52 - BITS)) - (1 << (51 - BITS))


def _value(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def rows():
    out = []
    with localcontext() as ctx:
        ctx.prec = 60
        for j in range(1 << BITS):
            lo, hi = _value(OFF + (j << (52 - BITS))), _value(OFF + ((j + 1) << (52 - BITS)))
            invc = 1.0 if j == ONE_AT else 1.0 / ((lo + hi) / 2)
            log_c = -Decimal(invc).ln()
            head = float(log_c)
            out.append((invc, head, float(log_c - Decimal(head))))
    return out


def header():
    r = rows()

    def table(name, col):
        vals = [v[col].hex() if v[col] != 0 else "0.0" for v in r]
        lines = ["    " + ", ".join(vals[i:i + 4]) + "," for i in range(0, len(vals), 4)]
        return f"static const double {name}[{len(r)}] = {{\n" + "\n".join(lines) + "\n};\n"

    return ("/* Written by tools/gen_pow_table.py (do not edit): float64 pow's log table, vmath_pow.h. */\n"
            "#ifndef LOOM_KERNELS_VMATH_POW_TABLE_H\n#define LOOM_KERNELS_VMATH_POW_TABLE_H\n"
            f"#define LM_POW_OFF 0x{OFF:016x}LL   /* z = |x| / 2^k, its bits minus this in [0, 2^52) */\n"
            f"#define LM_POW_TABLE_SHIFT {52 - BITS}\n"
            + table("lm_pow_invc", 0) + table("lm_pow_logc", 1) + table("lm_pow_logc_lo", 2) + "#endif\n")


if __name__ == "__main__":
    print(header(), end="")
