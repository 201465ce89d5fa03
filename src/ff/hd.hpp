// Host/device portability macros shared by all arithmetic headers.
//
// Field and curve code is written once as templates that compile both for the
// host (g++/clang) and for CUDA devices (nvcc). CUZK_HD marks such functions.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_HD_INLINE __host__ __device__ __forceinline__
#else
#define CUZK_HD
#define CUZK_HD_INLINE inline __attribute__((always_inline))
#endif

// For the small, hot field kernels: the compiler's inliner gives up on them inside large
// point formulas, and a call per field operation costs more than the operation.
#if defined(__CUDACC__)
#define CUZK_FORCE_INLINE __forceinline__
#else
#define CUZK_FORCE_INLINE [[gnu::always_inline]]
#endif

#if defined(__CUDA_ARCH__)
#define CUZK_DEVICE_CODE 1
#else
#define CUZK_DEVICE_CODE 0
#endif

// Full unrolling of the fixed-trip limb loops: the field kernels are only fast unrolled.
#if defined(__CUDACC__)
#define CUZK_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define CUZK_UNROLL _Pragma("clang loop unroll(full)")
#else
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#endif
