/* LM_HD marks a function compiled for the host and, under nvcc, for CUDA devices too:
 * what lets one kernel body serve both (native/kernels/, half.h, complex_types.h). */
#ifndef LOOM_HD_H
#define LOOM_HD_H
#ifdef __CUDACC__
#define LM_HD __host__ __device__
#else
#define LM_HD
#endif
#endif
