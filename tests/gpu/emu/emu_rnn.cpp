// The rnn.gemm solvers' source compiled for the host emulation (tests/gpu/emu/gpu/runtime/hip_compat.hpp);
// the mutant libraries compile it again with HIPRIM_RNN_MUTANT set, each in its own namespace
// (tests/gpu/CMakeLists.txt), with the emulated runtime's two launch checks of that namespace here
// (emu_runtime.cpp, linked once, defines the unmutated build's).
#include "gpu/rnn/rnn.hip"

// The emulation has no tensor cores: rnn.mma.* refuse (the tests take rnn.split_simt.*, the same split
// GEMMs on the SIMT tile).
namespace hiprim::gpu {
std::string gemm_mma_unavailable() { return "host emulation: no tensor cores"; }
bool device_available(std::string*) { return true; }
}  // namespace hiprim::gpu

#if HIPRIM_RNN_MUTANT != 0
namespace hiprim::gpu {
void check_result(hipError_t, const char*, const std::string&) {}
void check_launch(const char*, const std::string&) {}
}  // namespace hiprim::gpu
#endif
