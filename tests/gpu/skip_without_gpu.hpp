// HIPRIM_SKIP_WITHOUT_GPU(): the GPU tests' first line; skips the calling test, with the reason
// gpu::device_available() gives, where no GPU can be used.
#pragma once
#include <string>

#include <gtest/gtest.h>

#include "gpu/runtime/device.hpp"

#define HIPRIM_SKIP_WITHOUT_GPU()                                                   \
  do {                                                                              \
    std::string why_no_gpu;                                                         \
    if (!::hiprim::gpu::device_available(&why_no_gpu)) GTEST_SKIP() << why_no_gpu; \
  } while (0)
