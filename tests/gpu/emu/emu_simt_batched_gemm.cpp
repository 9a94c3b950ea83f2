// The batched GEMM on conv.igemm.simt's kernel (gpu/conv/simt_batched_gemm.hip) compiled for the host
// emulation: conv.winograd's transformed-domain GEMMs.
#include "gpu/conv/simt_batched_gemm.hip"
