// conv.igemm.wgmma: the fwd kernels for fp32 read as TF32 (math=tf32; wgmma m64nNk8.tf32, k-blocks of
// 32 fp32), the tiles igemm_tile_instantiated(32, ...) lists, built for sm_90a only
// (gpu/conv/igemm_sm90_kernel.hpp). bwd-data runs them through .flip.
#include "gpu/conv/igemm_sm90_launch.hpp"

namespace hiprim::gpu::sm90 {
IGEMM_SM90_INSTANTIATE_TF32()
}  // namespace hiprim::gpu::sm90
