// A mutant of the CTC kernel for the host emulation: compiled with HIPRIM_CTC_MUTANT = 1 or 2 and
// -Dgpu=gpu_emu_ctc_<name> (tests/gpu/CMakeLists.txt), so its solvers live apart from the correct
// emulated ones (hiprim::gpu_emu) in the same test binary. The launch checks are no-ops, as in
// emu_runtime.cpp (which the correct library brings once for the whole binary).
#include "gpu/ctc/ctc_alpha_beta.hip"

namespace hiprim::gpu {
void check_result(hipError_t, const char*, const std::string&) {}
void check_launch(const char*, const std::string&) {}
}  // namespace hiprim::gpu
