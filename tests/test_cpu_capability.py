"""Runtime CPU dispatch. A generic build (-Dnative=false) compiles every generated loop for x86-64-v4
(AVX-512), x86-64-v3 (AVX2) and the baseline, and the loader picks one (half_block.h's LM_CPU_CLONES);
loom.backends.cpu.get_cpu_capability() names what the loops run with, as PyTorch's does."""
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import loom
from conftest import ROOT

X86_64_V4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
X86_64_V3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}


def _cpu_flags():
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return None


def test_capability_names_what_the_cpu_has():
    cap = loom.backends.cpu.get_cpu_capability()
    assert cap in ("AVX512", "AVX2", "DEFAULT")
    flags = _cpu_flags()
    if flags is None or platform.machine() != "x86_64":
        return
    # a native build and a generic one agree on hosts that have a whole level
    if X86_64_V4 <= flags:
        assert cap == "AVX512"
    elif X86_64_V3 <= flags and "avx512f" not in flags:
        assert cap == "AVX2"
    assert cap != "AVX512" or "avx512f" in flags
    assert cap != "AVX2" or "avx2" in flags


def _generated(tmp_path):
    out = tmp_path / "gen"
    subprocess.run([sys.executable, "-m", "codegen", "--ops", str(ROOT / "ops"), "--native", str(ROOT / "native"),
                    "--out", str(out)], check=True, cwd=ROOT, capture_output=True)
    return out


@pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("gcc"), reason="target_clones: gcc on x86-64")
@pytest.mark.parametrize("generic", [True, False])
def test_generic_build_clones_each_generated_loop(tmp_path, generic):
    out = _generated(tmp_path)
    shard = next(p for p in sorted(out.glob("ops_shard*.c")) if re.search(r"\bexp_loop_float32\(", p.read_text()))
    syms = _symbols(tmp_path, out, shard, generic)
    loops = {f"exp_loop_float32.{v}" for v in ("arch_x86_64_v4", "arch_x86_64_v3", "default", "resolver")}
    assert loops & syms == (loops if generic else set())
    red = next(p for p in sorted(out.glob("ops_shard*.c")) if re.search(r"\bsum_span_float32\(", p.read_text()))
    assert ("sum_span_float32.arch_x86_64_v4" in _symbols(tmp_path, out, red, generic)) == generic


def _symbols(tmp_path, out, src, generic):
    obj = tmp_path / "shard.o"
    cmd = ["gcc", "-std=gnu11", "-O2", "-fPIC", "-fno-math-errno", "-fno-trapping-math", "-c", str(src), "-o", str(obj),
           f"-I{out}", f"-I{ROOT / 'native/core'}", f"-I{ROOT / 'native'}", f"-I{ROOT / 'native/cpu'}"]
    subprocess.run(cmd + (["-DLM_CPU_CLONES_ON=1"] if generic else []), check=True, capture_output=True)
    return set(subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout.split())
