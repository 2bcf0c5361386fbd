"""The host-side logic of the CUDA machinery, checked on the CPU (no GPU needed,
nvcc needed): the offset calculator the strided kernels use (native/cuda/
pointwise.cuh's offsets_of, compiled for the host too), the 32-bit indexing
decision and the cutting of larger iterations into 32-bit pieces, the launch grid, and how a reduction is cut into slices
(reduce.cuh's plan_reduce). A small C++ program includes the real headers,
checks them against direct computations over many random cases and prints OK."""
import subprocess

import pytest

from codegen import emit
from codegen.model import load
from conftest import ROOT
from test_kernels_nvcc import NVCC

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <random>
#include <utility>
#include <vector>
#include "pointwise.cuh"
#include "reduce.cuh"

static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { std::printf(__VA_ARGS__); std::printf("\n"); failures++; } } while (0)

template <class I>
static void check_offsets(std::mt19937_64 &rng) {
    for (int rep = 0; rep < 2000; rep++) {
        lm_iter it;
        it.nops = 3;
        it.ndim = 1 + (int)(rng() % 6);
        it.numel = 1;
        for (int d = 0; d < it.ndim; d++) {
            it.shape[d] = 1 + (int64_t)(rng() % 7);
            it.numel *= it.shape[d];
            for (int k = 0; k < 3; k++) it.strides[d][k] = (rng() % 4 == 0) ? 0 : (int64_t)(rng() % 50) * 4;
        }
        lm::Offsets<3, I> oc = lm::offsets_from<3, I>(it);
        for (int64_t idx = 0; idx < it.numel; idx++) {
            I off[3];
            lm::offsets_of<3, I>(oc, (I)idx, off);
            int64_t rest = idx, want[3] = {0, 0, 0};
            for (int d = 0; d < it.ndim; d++) {   /* dim 0 fastest */
                int64_t i = rest % it.shape[d];
                rest /= it.shape[d];
                for (int k = 0; k < 3; k++) want[k] += i * it.strides[d][k];
            }
            for (int k = 0; k < 3; k++)
                CHECK((int64_t)off[k] == want[k], "offset of element %lld operand %d: %lld, want %lld",
                      (long long)idx, k, (long long)off[k], (long long)want[k]);
        }
    }
}

typedef std::vector<std::pair<int64_t, int64_t>> Addresses;

static void addresses_of(const lm_iter &it, Addresses &out) {   /* (operand 0's, operand 1's) per element */
    for (int64_t idx = 0; idx < it.numel; idx++) {
        int64_t rest = idx, a0 = (int64_t)(intptr_t)it.data[0], a1 = (int64_t)(intptr_t)it.data[1];
        for (int d = 0; d < it.ndim; d++) {
            int64_t i = rest % it.shape[d];
            rest /= it.shape[d];
            a0 += i * it.strides[d][0];
            a1 += i * it.strides[d][1];
        }
        out.push_back({a0, a1});
    }
}

static void check_pieces(std::mt19937_64 &rng) {
    for (int rep = 0; rep < 3000; rep++) {
        lm_iter it;
        it.nops = 2;
        it.ndim = 1 + (int)(rng() % 4);
        it.numel = 1;
        for (int d = 0; d < it.ndim; d++) {
            it.shape[d] = 1 + (int64_t)(rng() % 9);
            it.numel *= it.shape[d];
            for (int k = 0; k < 2; k++) it.strides[d][k] = (rng() % 4 == 0) ? 0 : ((int64_t)(rng() % 40) - 10) * 4;
        }
        it.data[0] = (char *)((intptr_t)1 << 40);
        it.data[1] = (char *)((intptr_t)1 << 41);
        int64_t lim = 8 + (int64_t)(rng() % 400);
        Addresses want, got;
        addresses_of(it, want);
        int pieces = 0;
        int e = lm::for_32bit_pieces(it, [&](const lm_iter &p) {
            CHECK(lm::fits32(p, lim), "a piece of %lld elements does not fit %lld", (long long)p.numel, (long long)lim);
            addresses_of(p, got);
            pieces++;
            return 0;
        }, lim);
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        CHECK(e == 0 && want == got, "the %d pieces do not cover the iteration exactly once", pieces);
        CHECK(lm::fits32(it, lim) == (pieces == 1), "an iteration that fits is one piece");
    }
    lm_iter it;
    it.nops = 1; it.ndim = 1; it.shape[0] = it.numel = 1000; it.strides[0][0] = 4;
    int calls = 0;
    int e = lm::for_32bit_pieces(it, [&](const lm_iter &) { calls++; return 7; }, 64);
    CHECK(e == 7 && calls == 1, "the first failing piece stops the launches (%d calls)", calls);
}

int main() {
    std::mt19937_64 rng(7);
    check_pieces(rng);
    check_offsets<uint32_t>(rng);
    check_offsets<int64_t>(rng);

    lm_iter it;
    it.nops = 2; it.ndim = 1;
    it.shape[0] = it.numel = 1000; it.strides[0][0] = it.strides[0][1] = 4;
    CHECK(lm::fits32(it), "1000 floats fit 32-bit indexing");
    it.shape[0] = it.numel = (int64_t)1 << 31;
    CHECK(!lm::fits32(it), "2^31 elements do not fit 32-bit indexing");
    it.shape[0] = it.numel = (int64_t)1 << 29; it.strides[0][1] = 8;
    CHECK(!lm::fits32(it), "an operand spanning 2^32 bytes does not fit 32-bit offsets");
    CHECK(lm::grid_for(1) == 1 && lm::grid_for(0) == 1, "at least one block");
    CHECK(lm::grid_for((int64_t)1 << 40) == 65535u * 32, "the grid is capped (the kernels stride over the rest)");

    for (int rep = 0; rep < 20000; rep++) {
        bool outer = rng() % 2;
        int64_t nout = (rng() % 3 == 0) ? 1 : (int64_t)(rng() % 100000) + 1;
        int64_t count = (rng() % 5 == 0) ? 0 : (int64_t)(rng() % ((int64_t)1 << (rng() % 30))) + 1;
        int sms = 1 + (int)(rng() % 160);
        int64_t chunk;
        int splits;
        int64_t xb = lm::plan_reduce(outer, nout, count, sms, &chunk, &splits);
        CHECK(splits >= 1 && splits <= 65535 && chunk >= 1, "splits %d chunk %lld", splits, (long long)chunk);
        CHECK((int64_t)splits * chunk >= count, "the slices cover the elements (%d x %lld < %lld)", splits,
              (long long)chunk, (long long)count);
        CHECK(count == 0 || (int64_t)(splits - 1) * chunk < count, "no empty slice (%d x %lld, %lld)", splits,
              (long long)chunk, (long long)count);
        CHECK(count == 0 || chunk % lm::kRedAlign == 0, "slices start vector-aligned (chunk %lld)", (long long)chunk);
        CHECK(xb == (outer ? (nout + lm::kRedThreads - 1) / lm::kRedThreads : nout), "x blocks %lld", (long long)xb);
    }
    int64_t chunk;
    int splits;
    lm::plan_reduce(false, 1, (int64_t)1 << 28, 132, &chunk, &splits);
    CHECK(splits > 1000, "a sum over everything is cut over the whole GPU (%d slices)", splits);
    lm::plan_reduce(false, 1 << 20, 1024, 132, &chunk, &splits);
    CHECK(splits == 1, "many outputs fill the GPU alone (%d slices)", splits);
    if (failures) return 1;
    std::printf("OK\n");
    return 0;
}
"""


@pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA toolkit) is not installed")
def test_offsets_indexing_and_reduction_plans(tmp_path):
    (tmp_path / "dtype.h").write_text(emit.render(load(ROOT / "ops", ROOT / "native"), ROOT / "native")["dtype.h"])
    src = tmp_path / "host_logic.cu"
    src.write_text(PROGRAM)
    exe = tmp_path / "host_logic"
    r = subprocess.run([NVCC, "-std=c++17", "-O1", "-arch=sm_90", "-I", str(tmp_path), "-I", str(ROOT / "native/core"),
                        "-I", str(ROOT / "native"), "-I", str(ROOT / "native/cuda"), str(src), "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip().endswith("OK"), run.stdout[-4000:] + run.stderr[-2000:]
