// Compile-time switches shared by host and device code.
#pragma once

// Functions that must run unchanged on CPU threads and CUDA threads carry
// MELANGE_HD; under a plain C++ compiler it expands to nothing.
#if defined(__CUDACC__)
#define MELANGE_HD __host__ __device__
#else
#define MELANGE_HD
#endif
