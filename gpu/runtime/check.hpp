// Checked runtime calls. HIPRIM_CHECK(hipMalloc(&p, n), "allocating x") throws
//   hiprim::RuntimeError("hipMalloc failed (out of memory) while allocating x: cudaErrorMemoryAllocation (code 2)")
// i.e. "<function> failed (<error description>) while <context>: <error name> (code N)".
// HIPRIM_CHECK_LAUNCH(kernel_name, context) after a launch checks hipGetLastError the same way.
// `context` is anything std::string can be built from.
#pragma once
#include <string>

#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

// Throws RuntimeError when err != hipSuccess. `call` is the call's source text; the message keeps
// the function name (the text before the first '(').
void check_result(hipError_t err, const char* call, const std::string& context);
// Same for the launch of the named kernel: reads (and so clears) hipGetLastError.
void check_launch(const char* kernel, const std::string& context);

}  // namespace hiprim::gpu

#define HIPRIM_CHECK(call, context) ::hiprim::gpu::check_result((call), #call, (context))
#define HIPRIM_CHECK_LAUNCH(kernel_name, context) ::hiprim::gpu::check_launch((kernel_name), (context))
