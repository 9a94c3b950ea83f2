// conv.igemm.wgmma: the fwd kernels (every tile, fp16 and bf16), built for sm_90a only
// (gpu/conv/igemm_sm90_kernel.hpp; one file per direction so they compile in parallel).
#include "gpu/conv/igemm_sm90_launch.hpp"

namespace hiprim::gpu::sm90 {
IGEMM_SM90_INSTANTIATE(IgemmDir::fwd)
}  // namespace hiprim::gpu::sm90
