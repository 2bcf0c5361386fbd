/* The complex dtypes' element types: two floats (complex64) or two doubles
 * (complex128), real part first, the layout C, C++, NumPy, BLAS and DLPack
 * share. Kernels compiled as C use C99 complex arithmetic (<complex.h>'s
 * cexp, clog, ...); CUDA C++ uses libcu++'s cuda::std::complex, which has the
 * same layout. Complex values cross into C as lm_scalar kind 3 (d + im*i). */
#ifndef LOOM_COMPLEX_TYPES_H
#define LOOM_COMPLEX_TYPES_H

#include "hd.h"

#if defined(__CUDACC__)
#include <cuda/std/complex>
typedef cuda::std::complex<float> lm_complex64;
typedef cuda::std::complex<double> lm_complex128;
#elif defined(__cplusplus)
#include <complex>
typedef std::complex<float> lm_complex64;
typedef std::complex<double> lm_complex128;
#else
#include <complex.h>
#undef I         /* loom names locals I and an op `complex`: complex code writes */
#undef complex   /* _Complex_I and _Complex */
typedef float _Complex lm_complex64;
typedef double _Complex lm_complex128;
/* re + im*i exactly (signed zeros, inf and NaN parts kept), as C11's CMPLX, which not every
 * feature-test setting of glibc's header defines */
#define LM_CMPLXF(re, im) __builtin_complex((float)(re), (float)(im))
#define LM_CMPLX(re, im) __builtin_complex((double)(re), (double)(im))
#endif

#ifdef __cplusplus
/* C converts a complex value to a real type by its real part, and to bool by
 * either part being nonzero; C++ needs it said. These give the generated
 * conversions (LM_STORE_<ENUM>) one meaning on both sides. */
template <class X> static inline LM_HD X lm_real_of(X x) { return x; }
static inline LM_HD float lm_real_of(lm_complex64 z) { return z.real(); }
static inline LM_HD double lm_real_of(lm_complex128 z) { return z.real(); }
template <class X> static inline LM_HD bool lm_truth_of(X x) { return (bool)x; }
static inline LM_HD bool lm_truth_of(lm_complex64 z) { return z.real() != 0 || z.imag() != 0; }
static inline LM_HD bool lm_truth_of(lm_complex128 z) { return z.real() != 0 || z.imag() != 0; }
#endif


#endif
