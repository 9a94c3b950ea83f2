// Placeholder until the graph-API peer lands: open() reports that it is not built, so the bench
// shows the peer as unavailable with that reason (never as a timed peer).
#include "bench/cudnn_graph.hpp"

#include "core/error.hpp"

namespace hiprim::gpu {

struct CudnnGraphPeer::Api {};
struct CudnnGraphConv::Impl {};

CudnnGraphPeer::~CudnnGraphPeer() = default;

std::shared_ptr<CudnnGraphPeer> CudnnGraphPeer::open(const std::string&, std::string* why) {
  if (why) *why = "the cuDNN graph-API peer is not built in this version";
  return nullptr;
}

Applicability cudnn_graph_supports(const ConvProblem&, const CudnnGraphEpilogue&) {
  return Applicability::no("the cuDNN graph-API peer is not built in this version");
}

CudnnGraphConv::CudnnGraphConv(std::shared_ptr<const CudnnGraphPeer> peer, const ConvProblem& p,
                               const CudnnGraphEpilogue& ep, const CudnnGraphOptions&)
    : peer_(std::move(peer)), problem_(p), epilogue_(ep) {
  throw InputError("the cuDNN graph-API peer is not built in this version");
}
CudnnGraphConv::~CudnnGraphConv() = default;

void CudnnGraphConv::run(int, const CudnnGraphBuffers&) const {
  throw InputError("the cuDNN graph-API peer is not built in this version");
}

}  // namespace hiprim::gpu
