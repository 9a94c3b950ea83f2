// HIPRIM_HOST_DEVICE marks small inline functions that compile both as host C++ (g++) and as
// HIP/CUDA device code (nvcc, hipcc), e.g. the Philox generator shared by the CPU reference and
// the dropout kernels.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HIPRIM_HOST_DEVICE __host__ __device__
#else
#define HIPRIM_HOST_DEVICE
#endif
