// Compile-time switches shared by host and device code.
#pragma once

// Functions that must run unchanged on CPU threads and CUDA threads carry
// MELANGE_HD; under a plain C++ compiler it expands to nothing.
#if defined(__CUDACC__)
#define MELANGE_HD __host__ __device__
#else
#define MELANGE_HD
#endif

// For the few small functions a hot loop must not call through (the Philox
// round run across vector lanes): a call boundary would send the lanes
// through memory.
#if defined(__CUDACC__)
#define MELANGE_HD_FORCE_INLINE __host__ __device__ __forceinline__
#else
#define MELANGE_HD_FORCE_INLINE [[gnu::always_inline]] inline
#endif
