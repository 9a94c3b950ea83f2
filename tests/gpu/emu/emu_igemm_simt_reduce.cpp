// The split reduction (gpu/conv/igemm_simt_reduce.hip) compiled for the host emulation.
#include "gpu/conv/igemm_simt_reduce.hip"
