// The graph-API peer: the graph as data (cudnn_graph_spec), its backend descriptors, the engine
// configs of the heuristics (mode A, then fallback), the numerics filter, the execution plans and
// the variant packs run() executes. The dlopen/ABI layer is bench/cudnn_graph_api.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "bench/cudnn_graph_api.hpp"
#include "core/error.hpp"

namespace hiprim::gpu {

using namespace cudnn_backend;

// ---- The graph as data ----

std::string_view cudnn_graph_role_name(CudnnGraphRole r) {
  switch (r) {
    case CudnnGraphRole::x: return "x";
    case CudnnGraphRole::w: return "w";
    case CudnnGraphRole::y: return "y";
    case CudnnGraphRole::bias: return "bias";
    case CudnnGraphRole::z: return "z";
    case CudnnGraphRole::alpha1: return "alpha1";
    case CudnnGraphRole::intermediate: return "virtual";
  }
  return "?";
}

std::string_view cudnn_conv_op_name(CudnnConvOp op) {
  switch (op) {
    case CudnnConvOp::forward: return "FORWARD";
    case CudnnConvOp::backward_data: return "BACKWARD_DATA";
    case CudnnConvOp::backward_filter: return "BACKWARD_FILTER";
  }
  return "?";
}

const CudnnGraphTensor& CudnnGraphSpec::tensor(std::int64_t uid) const {
  for (const auto& t : tensors)
    if (t.uid == uid) return t;
  throw InputError("cuDNN graph spec: no tensor with uid " + std::to_string(uid));
}

namespace {

int cudnn_data_type(DType t) { return t == DType::fp32 ? kDataFloat : t == DType::fp16 ? kDataHalf : kDataBfloat16; }

// The activation's pointwise mode; -1 for none.
int activation_mode(CudnnActivation a) {
  switch (a) {
    case CudnnActivation::none: return -1;
    case CudnnActivation::relu: return kPwReluFwd;
    case CudnnActivation::tanh: return kPwTanhFwd;
    case CudnnActivation::sigmoid: return kPwSigmoidFwd;
    case CudnnActivation::elu: return kPwEluFwd;
    case CudnnActivation::gelu: return kPwGeluFwd;
    case CudnnActivation::swish: return kPwSwishFwd;
  }
  return -2;
}

const char* activation_name(CudnnActivation a) {
  switch (a) {
    case CudnnActivation::none: return "none";
    case CudnnActivation::relu: return "relu";
    case CudnnActivation::tanh: return "tanh";
    case CudnnActivation::sigmoid: return "sigmoid";
    case CudnnActivation::elu: return "elu";
    case CudnnActivation::gelu: return "gelu";
    case CudnnActivation::swish: return "swish";
  }
  return "?";
}

CudnnGraphTensor real_tensor(std::int64_t uid, CudnnGraphRole role, const TensorDesc& d) {
  return {uid, role, cudnn_data_type(d.dtype), d.dims, d.strides, false, false};
}

}  // namespace

Applicability cudnn_graph_spec(const ConvProblem& p, const CudnnGraphEpilogue& epilogue, CudnnGraphSpec* out) {
  if (auto errs = p.validate(); !errs.empty()) return Applicability::no("invalid problem: " + errs.front());
  CudnnGraphEpilogue ep = epilogue;
  ep.bias = ep.bias || p.bias;
  const bool trans = p.mode == ConvMode::trans;
  if (trans)
    for (std::size_t i = 0; i < p.out_pad.size(); ++i)
      if (p.out_pad[i] >= p.stride[i])
        return Applicability::no("cuDNN graph peer: output padding " + std::to_string(p.out_pad[i]) + " >= stride " +
                                 std::to_string(p.stride[i]) +
                                 ": the convolution that computes a transposed problem cannot have that input size");
  const bool scale = ep.alpha1 != 1.0;
  if (ep.any() || scale) {
    if (p.dir != ConvDir::fwd || trans)
      return Applicability::no(std::string("cuDNN graph peer: pointwise nodes (bias, add, activation, scale) follow a ") +
                               "forward convolution only, not " + std::string(conv_dir_name(p.dir)) +
                               (trans ? " of a transposed problem (cuDNN's backward data)" : ""));
    if (!std::isfinite(ep.alpha1) || !std::isfinite(ep.alpha2))
      return Applicability::no("cuDNN graph peer: alpha1 and alpha2 must be finite (got " + std::to_string(ep.alpha1) +
                               ", " + std::to_string(ep.alpha2) + ")");
    if (activation_mode(ep.activation) < -1) return Applicability::no("cuDNN graph peer: unknown activation");
  }

  CudnnGraphSpec s;
  s.swapped = trans;
  s.compute_type = kDataFloat;
  switch (p.dir) {
    case ConvDir::fwd: s.op = trans ? CudnnConvOp::backward_data : CudnnConvOp::forward; break;
    case ConvDir::bwd_data: s.op = trans ? CudnnConvOp::forward : CudnnConvOp::backward_data; break;
    case ConvDir::bwd_weights: s.op = CudnnConvOp::backward_filter; break;
  }
  s.pre_pad = p.pad;
  s.post_pad = p.pad;
  s.stride = p.stride;
  s.dilation = p.dilation;
  // Non-virtual tensors in our roles, then cuDNN's convolution roles: its image input and output are
  // our x and y, exchanged for a transposed problem; the filter is ours ([C, K/G, f] = the mapped
  // convolution's [K', C'/G, f]).
  s.tensors.push_back(real_tensor(kCudnnUidX, CudnnGraphRole::x, p.x_desc()));
  s.tensors.push_back(real_tensor(kCudnnUidW, CudnnGraphRole::w, p.w_desc()));
  s.tensors.push_back(real_tensor(kCudnnUidY, CudnnGraphRole::y, p.y_desc()));
  s.conv_x = trans ? kCudnnUidY : kCudnnUidX;
  s.conv_w = kCudnnUidW;
  s.conv_y = trans ? kCudnnUidX : kCudnnUidY;
  if (!ep.any() && !scale) {
    *out = std::move(s);
    return Applicability::yes();
  }

  const TensorDesc yd = p.y_desc();
  Dims bias_dims(yd.dims.size(), 1);
  bias_dims[1] = p.k;
  if (ep.bias) s.tensors.push_back(real_tensor(kCudnnUidBias, CudnnGraphRole::bias, TensorDesc::packed(p.dtype, bias_dims, p.channels_last)));
  if (ep.add) s.tensors.push_back(real_tensor(kCudnnUidZ, CudnnGraphRole::z, yd));
  if (scale) {
    const Dims ones(yd.dims.size(), 1);
    s.tensors.push_back({kCudnnUidAlpha1, CudnnGraphRole::alpha1, kDataFloat, ones, ones, false, true});
  }
  // The chain t0 = conv, then one node per step; every node but the last writes an fp32 virtual
  // tensor of y's shape and strides, the last writes y.
  std::vector<CudnnPointwiseNode> nodes;
  if (scale) nodes.push_back({"scale", kPwMul, 0, kCudnnUidAlpha1, 0, 1.0});
  if (ep.bias) nodes.push_back({"add_bias", kPwAdd, 0, kCudnnUidBias, 0, 1.0});
  if (ep.add) nodes.push_back({"add_z", kPwAdd, 0, kCudnnUidZ, 0, ep.alpha2});
  if (ep.activation != CudnnActivation::none) nodes.push_back({activation_name(ep.activation), activation_mode(ep.activation), 0, -1, 0, 1.0});
  std::int64_t next_virtual = kCudnnUidVirtualBase;
  auto make_virtual = [&] {
    CudnnGraphTensor t{next_virtual++, CudnnGraphRole::intermediate, kDataFloat, yd.dims, yd.strides, true, false};
    s.tensors.push_back(t);
    return t.uid;
  };
  s.conv_y = make_virtual();
  std::int64_t prev = s.conv_y;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].in = prev;
    nodes[i].out = i + 1 == nodes.size() ? kCudnnUidY : make_virtual();
    prev = nodes[i].out;
  }
  s.pointwise = std::move(nodes);
  *out = std::move(s);
  return Applicability::yes();
}

Applicability cudnn_graph_supports(const ConvProblem& p, const CudnnGraphEpilogue& ep) {
  CudnnGraphSpec s;
  return cudnn_graph_spec(p, ep, &s);
}

// ---- The backend descriptors of one problem ----

namespace {

// The descriptors of the graph (tensors, convolution, pointwise nodes, operation graph): what
// CudnnGraphConv executes and what cudnn_graph_validate finalizes without a handle.
struct GraphDescriptors {
  const CudnnGraphPeer::Api* api = nullptr;
  void* handle = nullptr;
  CudnnGraphSpec spec;
  std::string context;  // "building the cuDNN graph of <problem>"
  std::map<std::int64_t, BackendDescriptor> tensors;
  BackendDescriptor conv_desc, conv_op, graph;
  std::vector<BackendDescriptor> pw_descs, pw_ops;
  std::vector<std::int64_t> uids;     // the non-virtual tensors, in spec order
  std::vector<CudnnGraphRole> roles;  // of uids[i]

  void build_tensors();
  void build_nodes();  // the convolution and the pointwise nodes (cuDNN checks their shapes here)
  void build_graph();  // needs the handle
};

}  // namespace

struct CudnnGraphConv::Impl : GraphDescriptors {
  struct Plan {
    BackendDescriptor cfg, plan;  // plan empty when not usable
  };
  std::vector<Plan> plans;
  std::vector<std::string> diagnostics;
  alignas(16) float alpha1 = 1.0f;  // the by-value scalar of the scale node
  // The variant pack binds every non-virtual tensor (at most x, w, y, bias, z, alpha1).
  static constexpr std::size_t kMaxBound = 8;
  using Pointers = std::array<void*, kMaxBound>;
  struct Pack {
    Pointers pointers{};
    void* workspace = nullptr;
    BackendDescriptor desc;
  };
  mutable std::deque<Pack> packs;  // most recently built last
  static constexpr std::size_t kMaxPacks = 256;  // more than any rotation of buffer sets the bench uses

  void find_plans(const CudnnGraphOptions& o, DType dtype, std::vector<CudnnPlanInfo>& infos);
  CudnnPlanInfo describe_config(const BackendDescriptor& cfg, const char* source);
  const Pack& pack_for(const Pointers& pointers, void* workspace) const;
};

void GraphDescriptors::build_tensors() {
  for (const CudnnGraphTensor& t : spec.tensors) {
    const std::string ctx = context + " (tensor " + std::string(cudnn_graph_role_name(t.role)) + ", uid " +
                            std::to_string(t.uid) + ")";
    BackendDescriptor d(*api, kDescTensor, ctx);
    const std::int64_t n = static_cast<std::int64_t>(t.dims.size());
    d.set(kTensorDataType, kTypeDataType, 1, &t.data_type, ctx);
    d.set(kTensorDims, kTypeInt64, n, t.dims.data(), ctx);
    d.set(kTensorStrides, kTypeInt64, n, t.strides.data(), ctx);
    d.set(kTensorUid, kTypeInt64, 1, &t.uid, ctx);
    d.set(kTensorByteAlignment, kTypeInt64, 1, &kCudnnByteAlignment, ctx);
    if (t.is_virtual) {
      const bool yes = true;
      d.set(kTensorIsVirtual, kTypeBoolean, 1, &yes, ctx);
    } else {
      uids.push_back(t.uid);
      roles.push_back(t.role);
    }
    if (t.by_value) {
      const bool yes = true;
      d.set(kTensorIsByValue, kTypeBoolean, 1, &yes, ctx);
    }
    d.finalize(ctx);
    tensors.emplace(t.uid, std::move(d));
  }
}

void GraphDescriptors::build_nodes() {
  const std::string cctx = context + " (convolution " + std::string(cudnn_conv_op_name(spec.op)) + ")";
  conv_desc = BackendDescriptor(*api, kDescConvolution, cctx);
  const std::int64_t rank = static_cast<std::int64_t>(spec.stride.size());
  const int mode = kCrossCorrelation;
  conv_desc.set(kConvCompType, kTypeDataType, 1, &spec.compute_type, cctx);
  conv_desc.set(kConvMode, kTypeConvolutionMode, 1, &mode, cctx);
  conv_desc.set(kConvSpatialDims, kTypeInt64, 1, &rank, cctx);
  conv_desc.set(kConvDilations, kTypeInt64, rank, spec.dilation.data(), cctx);
  conv_desc.set(kConvFilterStrides, kTypeInt64, rank, spec.stride.data(), cctx);
  conv_desc.set(kConvPrePaddings, kTypeInt64, rank, spec.pre_pad.data(), cctx);
  conv_desc.set(kConvPostPaddings, kTypeInt64, rank, spec.post_pad.data(), cctx);
  conv_desc.finalize(cctx);

  const BackendDescriptor& x = tensors.at(spec.conv_x);
  const BackendDescriptor& w = tensors.at(spec.conv_w);
  const BackendDescriptor& y = tensors.at(spec.conv_y);
  const float alpha = 1.0f, beta = 0.0f;  // FLOAT scalars: the compute type is FLOAT
  switch (spec.op) {
    case CudnnConvOp::forward:
      conv_op = BackendDescriptor(*api, kDescOpConvForward, cctx);
      conv_op.set_desc(kFwdX, x, cctx), conv_op.set_desc(kFwdW, w, cctx), conv_op.set_desc(kFwdY, y, cctx);
      conv_op.set_desc(kFwdConvDesc, conv_desc, cctx);
      conv_op.set(kFwdAlpha, kTypeFloat, 1, &alpha, cctx), conv_op.set(kFwdBeta, kTypeFloat, 1, &beta, cctx);
      break;
    case CudnnConvOp::backward_data:
      conv_op = BackendDescriptor(*api, kDescOpConvBackwardData, cctx);
      conv_op.set_desc(kBwdDataDx, x, cctx), conv_op.set_desc(kBwdDataW, w, cctx);
      conv_op.set_desc(kBwdDataDy, y, cctx), conv_op.set_desc(kBwdDataConvDesc, conv_desc, cctx);
      conv_op.set(kBwdDataAlpha, kTypeFloat, 1, &alpha, cctx), conv_op.set(kBwdDataBeta, kTypeFloat, 1, &beta, cctx);
      break;
    case CudnnConvOp::backward_filter:
      conv_op = BackendDescriptor(*api, kDescOpConvBackwardFilter, cctx);
      conv_op.set_desc(kBwdFilterX, x, cctx), conv_op.set_desc(kBwdFilterDw, w, cctx);
      conv_op.set_desc(kBwdFilterDy, y, cctx), conv_op.set_desc(kBwdFilterConvDesc, conv_desc, cctx);
      conv_op.set(kBwdFilterAlpha, kTypeFloat, 1, &alpha, cctx);
      conv_op.set(kBwdFilterBeta, kTypeFloat, 1, &beta, cctx);
      break;
  }
  conv_op.finalize(cctx);

  for (const CudnnPointwiseNode& n : spec.pointwise) {
    const std::string pctx = context + " (pointwise " + n.name + ")";
    BackendDescriptor pw(*api, kDescPointwise, pctx);
    const int prec = kDataFloat;
    pw.set(kPointwiseMode, kTypePointwiseMode, 1, &n.mode, pctx);
    pw.set(kPointwiseMathPrec, kTypeDataType, 1, &prec, pctx);
    pw.finalize(pctx);
    BackendDescriptor op(*api, kDescOpPointwise, pctx);
    op.set_desc(kPwOpDesc, pw, pctx);
    op.set_desc(kPwOpX, tensors.at(n.in), pctx);
    if (n.b >= 0) op.set_desc(kPwOpB, tensors.at(n.b), pctx);
    op.set_desc(kPwOpY, tensors.at(n.out), pctx);
    if (n.alpha2 != 1.0) {
      const float a2 = static_cast<float>(n.alpha2);
      op.set(kPwOpAlpha2, kTypeFloat, 1, &a2, pctx);
    }
    op.finalize(pctx);
    pw_descs.push_back(std::move(pw));
    pw_ops.push_back(std::move(op));
  }
}

void GraphDescriptors::build_graph() {
  std::vector<void*> ops{conv_op.get()};
  for (const BackendDescriptor& op : pw_ops) ops.push_back(op.get());
  const std::string gctx = context + " (operation graph)";
  graph = BackendDescriptor(*api, kDescOperationGraph, gctx);
  graph.set(kGraphOps, kTypeBackendDescriptor, static_cast<std::int64_t>(ops.size()), ops.data(), gctx);
  graph.set(kGraphHandle, kTypeHandle, 1, &handle, gctx);
  graph.finalize(gctx);
}

// Engine index, knobs and notes of one engine config.
CudnnPlanInfo CudnnGraphConv::Impl::describe_config(const BackendDescriptor& cfg, const char* source) {
  const std::string ctx = context + " (reading an engine config)";
  CudnnPlanInfo info;
  info.source = source;
  BackendDescriptor engine(*api, kDescEngine, ctx);
  void* e = engine.get();
  cfg.get_into(kCfgEngine, kTypeBackendDescriptor, 1, &e, ctx);
  engine.get_into(kEngineGlobalIndex, kTypeInt64, 1, &info.engine_id, ctx);
  info.engine_name = "engine" + std::to_string(info.engine_id);

  std::vector<BackendDescriptor> knobs;
  std::vector<void*> knob_ptrs;
  for (int i = 0; i < kKnobTypeCount; ++i) {
    knobs.emplace_back(*api, kDescKnobChoice, ctx);
    knob_ptrs.push_back(knobs.back().get());
  }
  const std::int64_t nk = cfg.get_into(kCfgKnobChoices, kTypeBackendDescriptor, kKnobTypeCount, knob_ptrs.data(), ctx);
  std::vector<std::pair<int, std::int64_t>> choices;
  for (std::int64_t i = 0; i < std::min<std::int64_t>(nk, kKnobTypeCount); ++i) {
    int type = -1;
    std::int64_t value = 0;
    knobs[static_cast<std::size_t>(i)].get_into(kKnobChoiceType, kTypeKnobType, 1, &type, ctx);
    knobs[static_cast<std::size_t>(i)].get_into(kKnobChoiceValue, kTypeInt64, 1, &value, ctx);
    choices.emplace_back(type, value);
  }
  std::sort(choices.begin(), choices.end());
  for (const auto& [type, value] : choices) {
    if (!info.knobs.empty()) info.knobs += ',';
    info.knobs += cudnn_knob_type_name(type);  // (appended piecewise: GCC 12 warns falsely on a + chain)
    info.knobs += '=';
    info.knobs += std::to_string(value);
  }

  int notes[kNumericalNoteCount] = {};
  const std::int64_t nn = engine.get_into(kEngineNumericalNote, kTypeNumericalNote, kNumericalNoteCount, notes, ctx);
  for (std::int64_t i = 0; i < std::min<std::int64_t>(nn, kNumericalNoteCount); ++i) {
    info.numerical_notes.push_back(cudnn_numerical_note_name(notes[i]));
    if (notes[i] == kNoteFft || (notes[i] >= kNoteWinograd && notes[i] <= kNoteWinograd13x13)) info.transform = true;
    if (notes[i] == kNoteNondeterministic) info.deterministic = false;
  }
  int behavior[kBehaviorNoteCount] = {};
  const std::int64_t nb = engine.get_into(kEngineBehaviorNote, kTypeBehaviorNote, kBehaviorNoteCount, behavior, ctx);
  for (std::int64_t i = 0; i < std::min<std::int64_t>(nb, kBehaviorNoteCount); ++i)
    info.behavior_notes.push_back(cudnn_behavior_note_name(behavior[i]));
  return info;
}

// Why the numerics rule refuses an engine ("" when it allows it): fp32 accumulation always, inputs
// used at their own precision (DOWN_CONVERT_INPUTS is refused for every dtype, as PyTorch does),
// and for fp32 data no tensor cores (TF32) unless allowed.
static std::string numerics_refusal(const CudnnPlanInfo& info, DType dtype, bool allow_tf32) {
  for (const std::string& n : info.numerical_notes) {
    if (n == "REDUCED_PRECISION_REDUCTION") return "numerical note REDUCED_PRECISION_REDUCTION: accumulates below fp32";
    if (n == "DOWN_CONVERT_INPUTS" && !(dtype == DType::fp32 && allow_tf32))
      return "numerical note DOWN_CONVERT_INPUTS: inputs rounded below their dtype";
    if (n == "TENSOR_CORE" && dtype == DType::fp32 && !allow_tf32)
      return "numerical note TENSOR_CORE on fp32 data: TF32 (allow_tf32 is off)";
  }
  return "";
}

void CudnnGraphConv::Impl::find_plans(const CudnnGraphOptions& o, DType dtype, std::vector<CudnnPlanInfo>& infos) {
  int usable = 0, not_tried = 0, duplicates = 0;
  std::vector<std::string> seen;  // engine id + knobs of every config taken
  for (const auto& [mode, source] : {std::pair{kHeurModeA, "heuristics_a"}, std::pair{kHeurModeFallback, "fallback"}}) {
    const std::string hctx = context + " (heuristics " + source + ")";
    BackendDescriptor heur(*api, kDescEngineHeur, hctx);
    heur.set_desc(kHeurOperationGraph, graph, hctx);
    heur.set(kHeurMode, kTypeHeurMode, 1, &mode, hctx);
    if (Status st = heur.try_finalize(); st != kSuccess) {
      diagnostics.push_back(std::string(source) + ": cudnnBackendFinalize(ENGINEHEUR) failed: " + api->describe(st));
      continue;
    }
    const std::int64_t count = heur.get_into(kHeurResults, kTypeBackendDescriptor, 0, nullptr, hctx);
    std::vector<BackendDescriptor> cfgs;
    std::vector<void*> cfg_ptrs;
    for (std::int64_t i = 0; i < count; ++i) {
      cfgs.emplace_back(*api, kDescEngineCfg, hctx);
      cfg_ptrs.push_back(cfgs.back().get());
    }
    const std::int64_t got = count ? heur.get_into(kHeurResults, kTypeBackendDescriptor, count, cfg_ptrs.data(), hctx) : 0;
    diagnostics.push_back(std::string(source) + ": " + std::to_string(got) + " engine configs");
    for (std::int64_t i = 0; i < std::min(got, count); ++i) {
      BackendDescriptor& cfg = cfgs[static_cast<std::size_t>(i)];
      CudnnPlanInfo info;
      try {
        info = describe_config(cfg, source);
      } catch (const RuntimeError& e) {  // one unreadable config does not end the search
        info.source = source;
        info.engine_name = "config" + std::to_string(i);
        info.reason = e.what();
        plans.push_back(Plan{std::move(cfg), {}});
        infos.push_back(std::move(info));
        continue;
      }
      const std::string key = std::to_string(info.engine_id) + "|" + info.knobs;
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        ++duplicates;
        continue;
      }
      seen.push_back(key);
      Plan entry;
      info.reason = numerics_refusal(info, dtype, o.allow_tf32);
      if (info.reason.empty() && usable >= o.max_plans) {
        info.reason = "not tried: max_plans = " + std::to_string(o.max_plans) + " usable plans already";
        ++not_tried;
      }
      if (info.reason.empty()) {
        const std::string pctx = context + " (execution plan of " + info.engine_name + ")";
        BackendDescriptor plan(*api, kDescExecutionPlan, pctx);
        plan.set(kPlanHandle, kTypeHandle, 1, &handle, pctx);
        plan.set_desc(kPlanEngineConfig, cfg, pctx);
        if (Status st = plan.try_finalize(); st != kSuccess) {
          info.reason = "cudnnBackendFinalize(EXECUTION_PLAN) failed: " + api->describe(st);
        } else {
          std::int64_t ws = 0;
          plan.get_into(kPlanWorkspaceSize, kTypeInt64, 1, &ws, pctx);
          info.workspace_bytes = static_cast<std::size_t>(std::max<std::int64_t>(ws, 0));
          if (o.max_workspace_bytes && info.workspace_bytes > o.max_workspace_bytes)
            info.reason = "workspace " + std::to_string(info.workspace_bytes) + " B exceeds max_workspace_bytes " +
                          std::to_string(o.max_workspace_bytes);
        }
        if (info.reason.empty()) {
          info.usable = true;
          entry.plan = std::move(plan);
          ++usable;
        }
      }
      entry.cfg = std::move(cfg);
      plans.push_back(std::move(entry));
      infos.push_back(std::move(info));
    }
  }
  if (duplicates) diagnostics.push_back(std::to_string(duplicates) + " duplicate configs dropped (same engine and knobs)");
  if (not_tried) diagnostics.push_back(std::to_string(not_tried) + " allowed configs not finalized (max_plans)");
  diagnostics.push_back(std::to_string(usable) + " usable plans of " + std::to_string(infos.size()) + " configs");
}

// ---- CudnnGraphConv ----

CudnnGraphConv::CudnnGraphConv(std::shared_ptr<const CudnnGraphPeer> peer, const ConvProblem& p,
                               const CudnnGraphEpilogue& ep, const CudnnGraphOptions& o)
    : peer_(std::move(peer)), problem_(p), epilogue_(ep), impl_(std::make_unique<Impl>()) {
  if (!peer_) throw InputError("CudnnGraphConv: no cuDNN peer (CudnnGraphPeer::open returned null)");
  if (!peer_->handle()) throw InputError("CudnnGraphConv: the cuDNN library was opened without a handle (open_library)");
  if (o.max_plans < 1) throw InputError("CudnnGraphConv: max_plans = " + std::to_string(o.max_plans) + " must be >= 1");
  epilogue_.bias = epilogue_.bias || p.bias;
  Impl& m = *impl_;
  if (auto a = cudnn_graph_spec(p, epilogue_, &m.spec); !a) throw InputError(a.reason + " (problem " + to_string(p) + ")");
  m.api = &peer_->api();
  m.handle = peer_->handle();
  m.alpha1 = static_cast<float>(epilogue_.alpha1);
  m.context = "building the cuDNN graph of " + to_string(p);
  m.build_tensors();
  m.build_nodes();
  m.build_graph();
  m.find_plans(o, p.dtype, plans_);
}

Applicability cudnn_graph_validate(const CudnnGraphPeer& lib, const ConvProblem& p, const CudnnGraphEpilogue& ep) {
  GraphDescriptors m;
  if (auto a = cudnn_graph_spec(p, ep, &m.spec); !a) return a;
  m.api = &lib.api();
  m.context = "validating the cuDNN graph of " + to_string(p);
  try {
    m.build_tensors();
    m.build_nodes();
  } catch (const RuntimeError& e) {
    return Applicability::no(e.what());
  }
  return Applicability::yes();
}

CudnnGraphConv::~CudnnGraphConv() = default;

const CudnnGraphSpec& CudnnGraphConv::spec() const { return impl_->spec; }
const std::vector<std::string>& CudnnGraphConv::diagnostics() const { return impl_->diagnostics; }

std::string CudnnGraphConv::plan_label(int i) const {
  if (i < 0 || i >= static_cast<int>(plans_.size())) return "plan " + std::to_string(i) + " (no such plan)";
  const CudnnPlanInfo& pi = plans_[static_cast<std::size_t>(i)];
  std::string s = pi.engine_name + (pi.knobs.empty() ? "" : " " + pi.knobs) + " ws=" + std::to_string(pi.workspace_bytes);
  for (const auto& n : pi.numerical_notes) s += " " + n;
  return s;
}

const CudnnGraphConv::Impl::Pack& CudnnGraphConv::Impl::pack_for(const Pointers& pointers, void* workspace) const {
  for (auto it = packs.rbegin(); it != packs.rend(); ++it)
    if (it->workspace == workspace && it->pointers == pointers) return *it;
  const std::string ctx = context + " (variant pack)";
  Pack pk{pointers, workspace, BackendDescriptor(*api, kDescVariantPack, ctx)};
  const auto n = static_cast<std::int64_t>(uids.size());
  pk.desc.set(kPackUids, kTypeInt64, n, uids.data(), ctx);
  pk.desc.set(kPackPointers, kTypeVoidPtr, n, pk.pointers.data(), ctx);
  pk.desc.set(kPackWorkspace, kTypeVoidPtr, 1, &pk.workspace, ctx);
  pk.desc.finalize(ctx);
  if (packs.size() >= kMaxPacks) packs.pop_front();
  packs.push_back(std::move(pk));
  return packs.back();
}

// The timed call: no string is built unless something is wrong (host overhead per call is measured).
void CudnnGraphConv::run(int i, const CudnnGraphBuffers& b) const {
  auto what = [&] { return "running cuDNN plan " + std::to_string(i) + " on " + to_string(problem_); };
  if (i < 0 || i >= static_cast<int>(plans_.size()))
    throw InputError(what() + ": there are " + std::to_string(plans_.size()) + " plans");
  const CudnnPlanInfo& info = plans_[static_cast<std::size_t>(i)];
  if (!info.usable) throw InputError(what() + ": " + info.engine_name + " is not usable: " + info.reason);
  if (b.workspace_bytes < info.workspace_bytes || (info.workspace_bytes && !b.workspace))
    throw InputError(what() + ": workspace of " + std::to_string(b.workspace_bytes) + " B given, " + info.engine_name +
                     " needs " + std::to_string(info.workspace_bytes) + " B");
  const Impl& m = *impl_;
  Impl::Pointers pointers{};
  for (std::size_t t = 0; t < m.uids.size(); ++t) {
    const CudnnGraphRole role = m.roles[t];
    void* ptr = nullptr;
    switch (role) {
      case CudnnGraphRole::x: ptr = b.x; break;
      case CudnnGraphRole::w: ptr = b.w; break;
      case CudnnGraphRole::y: ptr = b.y; break;
      case CudnnGraphRole::bias: ptr = const_cast<void*>(b.bias); break;
      case CudnnGraphRole::z: ptr = const_cast<void*>(b.z); break;
      case CudnnGraphRole::alpha1: ptr = const_cast<float*>(&m.alpha1); break;
      case CudnnGraphRole::intermediate: break;
    }
    if (!ptr) throw InputError(what() + ": buffer " + std::string(cudnn_graph_role_name(role)) + " is null");
    if (role != CudnnGraphRole::alpha1 && reinterpret_cast<std::uintptr_t>(ptr) % kCudnnByteAlignment != 0)
      throw InputError(what() + ": buffer " + std::string(cudnn_graph_role_name(role)) + " is not " +
                       std::to_string(kCudnnByteAlignment) + "-byte aligned");
    pointers[t] = ptr;
  }
  const Impl::Pack& pack = m.pack_for(pointers, b.workspace);
  if (Status st = m.api->SetStream(m.handle, b.stream); st != kSuccess)
    throw RuntimeError("cudnnSetStream failed while " + what() + ": " + m.api->describe(st));
  if (Status st = m.api->Execute(m.handle, m.plans[static_cast<std::size_t>(i)].plan.get(), pack.desc.get()); st != kSuccess)
    throw RuntimeError("cudnnBackendExecute failed while " + what() + " (" + plan_label(i) + "): " + m.api->describe(st));
}

}  // namespace hiprim::gpu
