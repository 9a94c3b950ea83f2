// The dlopen layer of the graph-API peer: loading libcudnn.so.9, resolving the backend entry points,
// cuDNN's errors as messages, the owning descriptor wrapper and the names of cuDNN's enum values.
#include "bench/cudnn_graph_api.hpp"

#include <dlfcn.h>

#include <type_traits>
#include <utility>

#include "bench/cudnn_peer.hpp"  // cudnn_candidates: both peers search the same paths
#include "core/error.hpp"

namespace hiprim::gpu {

using namespace cudnn_backend;

namespace {

// The oldest cuDNN with this ABI: heuristics mode A, cudnnGetLastErrorString (9.0).
constexpr long kMinVersion = 90000;

// Resolves every entry point; returns the first missing name, or "" when all resolved.
std::string resolve(void* lib, CudnnGraphPeer::Api& a) {
  std::string missing;
  auto get = [&](auto& fn, const char* name) {
    void* p = dlsym(lib, name);
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    if (!p && missing.empty()) missing = name;
  };
  get(a.GetVersion, "cudnnGetVersion");
  get(a.GetErrorString, "cudnnGetErrorString");
  get(a.GetLastErrorString, "cudnnGetLastErrorString");
  get(a.Create, "cudnnCreate");
  get(a.Destroy, "cudnnDestroy");
  get(a.SetStream, "cudnnSetStream");
  get(a.CreateDescriptor, "cudnnBackendCreateDescriptor");
  get(a.DestroyDescriptor, "cudnnBackendDestroyDescriptor");
  get(a.SetAttribute, "cudnnBackendSetAttribute");
  get(a.GetAttribute, "cudnnBackendGetAttribute");
  get(a.Finalize, "cudnnBackendFinalize");
  get(a.Execute, "cudnnBackendExecute");
  return missing;
}

std::string name_or_number(const char* const* names, int count, int v, const char* what) {
  if (v >= 0 && v < count && names[v] && *names[v]) return names[v];
  return std::string(what) + "(" + std::to_string(v) + ")";
}

}  // namespace

// ---- Loading ----

std::shared_ptr<CudnnGraphPeer> CudnnGraphPeer::open(const std::string& explicit_path, std::string* why) {
  return load(explicit_path, true, why);
}

std::shared_ptr<CudnnGraphPeer> CudnnGraphPeer::open_library(const std::string& explicit_path, std::string* why) {
  return load(explicit_path, false, why);
}

std::shared_ptr<CudnnGraphPeer> CudnnGraphPeer::load(const std::string& explicit_path, bool with_handle,
                                                     std::string* why) {
  std::string reasons;
  auto fail = [&](const std::string& path, const std::string& what) {
    reasons += (reasons.empty() ? "" : "; ") + path + ": " + what;
  };
  for (const std::string& path : cudnn_candidates(explicit_path)) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      fail(path, e ? e : "dlopen failed");
      continue;
    }
    auto api = std::make_unique<Api>();
    if (std::string missing = resolve(lib, *api); !missing.empty()) {
      fail(path, "symbol " + missing + " not found");
      continue;  // the library stays mapped; dlclose of a half-used cuDNN is not worth the risk
    }
    const long version = static_cast<long>(api->GetVersion());
    if (version < kMinVersion) {
      fail(path, "cuDNN " + std::to_string(version) + " is older than 9.0 (the backend ABI this peer declares)");
      continue;
    }
    void* handle = nullptr;
    if (Status st = with_handle ? api->Create(&handle) : kSuccess; st != kSuccess) {
      fail(path, "cudnnCreate failed: " + api->describe(st));
      continue;
    }
    std::shared_ptr<CudnnGraphPeer> peer(new CudnnGraphPeer());
    peer->path_ = path;
    peer->version_ = version;
    peer->api_ = std::move(api);
    peer->handle_ = handle;
    return peer;
  }
  if (why) *why = "cuDNN (graph API) unavailable: " + reasons;
  return nullptr;
}

CudnnGraphPeer::~CudnnGraphPeer() {
  if (handle_ && api_) (void)api_->Destroy(handle_);
}

// ---- Errors ----

std::string CudnnGraphPeer::Api::describe(Status st) const {
  char last[1024] = {};
  GetLastErrorString(last, sizeof(last));
  const char* name = GetErrorString(st);
  std::string s = std::string(name ? name : "unknown status") + " (status " + std::to_string(st) + ")";
  if (last[0]) s += ": " + std::string(last);
  return s;
}

void CudnnGraphPeer::Api::check(Status st, const std::string& call, const std::string& context) const {
  if (st == kSuccess) return;
  throw RuntimeError(call + " failed while " + context + ": " + describe(st));
}

// ---- Descriptors ----

const char* cudnn_backend::desc_type_name(DescType t) {
  switch (t) {
    case kDescPointwise: return "POINTWISE";
    case kDescConvolution: return "CONVOLUTION";
    case kDescEngine: return "ENGINE";
    case kDescEngineCfg: return "ENGINECFG";
    case kDescEngineHeur: return "ENGINEHEUR";
    case kDescExecutionPlan: return "EXECUTION_PLAN";
    case kDescKnobChoice: return "KNOB_CHOICE";
    case kDescOpConvForward: return "OPERATION_CONVOLUTION_FORWARD";
    case kDescOpConvBackwardFilter: return "OPERATION_CONVOLUTION_BACKWARD_FILTER";
    case kDescOpConvBackwardData: return "OPERATION_CONVOLUTION_BACKWARD_DATA";
    case kDescOpPointwise: return "OPERATION_POINTWISE";
    case kDescOperationGraph: return "OPERATIONGRAPH";
    case kDescVariantPack: return "VARIANT_PACK";
    case kDescTensor: return "TENSOR";
  }
  return "DESCRIPTOR";
}

BackendDescriptor::BackendDescriptor(const CudnnGraphPeer::Api& api, DescType type, const std::string& context)
    : api_(&api), type_(type) {
  api.check(api.CreateDescriptor(type, &desc_),
            std::string("cudnnBackendCreateDescriptor(") + desc_type_name(type) + ")", context);
}

BackendDescriptor::~BackendDescriptor() {
  if (desc_) (void)api_->DestroyDescriptor(desc_);
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& o) noexcept
    : api_(o.api_), type_(o.type_), desc_(std::exchange(o.desc_, nullptr)) {}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& o) noexcept {
  if (this != &o) {
    if (desc_) (void)api_->DestroyDescriptor(desc_);
    api_ = o.api_;
    type_ = o.type_;
    desc_ = std::exchange(o.desc_, nullptr);
  }
  return *this;
}

void BackendDescriptor::set(Attr a, AttrType t, std::int64_t count, const void* values, const std::string& context) {
  api_->check(api_->SetAttribute(desc_, a.id, t, count, values),
              std::string("cudnnBackendSetAttribute(") + desc_type_name(type_) + ", " + a.name + ")", context);
}

void BackendDescriptor::set_desc(Attr a, const BackendDescriptor& d, const std::string& context) {
  void* p = d.get();
  set(a, kTypeBackendDescriptor, 1, &p, context);
}

std::int64_t BackendDescriptor::get_into(Attr a, AttrType t, std::int64_t capacity, void* values,
                                         const std::string& context) const {
  std::int64_t n = 0;
  api_->check(api_->GetAttribute(desc_, a.id, t, capacity, &n, values),
              std::string("cudnnBackendGetAttribute(") + desc_type_name(type_) + ", " + a.name + ")", context);
  return n;
}

void BackendDescriptor::finalize(const std::string& context) {
  api_->check(api_->Finalize(desc_), std::string("cudnnBackendFinalize(") + desc_type_name(type_) + ")", context);
}

Status BackendDescriptor::try_finalize() { return api_->Finalize(desc_); }

// ---- Names (cudnn_graph.h: cudnnBackendNumericalNote_t, cudnnBackendBehaviorNote_t, cudnnBackendKnobType_t) ----

std::string cudnn_numerical_note_name(int note) {
  static const char* names[] = {"TENSOR_CORE", "DOWN_CONVERT_INPUTS", "REDUCED_PRECISION_REDUCTION", "FFT",
                                "NONDETERMINISTIC", "WINOGRAD", "WINOGRAD_TILE_4x4", "WINOGRAD_TILE_6x6",
                                "WINOGRAD_TILE_13x13", "STRICT_NAN_PROP"};
  return name_or_number(names, 10, note, "NOTE");
}

std::string cudnn_behavior_note_name(int note) {
  static const char* names[] = {"RUNTIME_COMPILATION", "REQUIRES_FILTER_INT8x32_REORDER",
                                "REQUIRES_BIAS_INT8x32_REORDER", "SUPPORTS_CUDA_GRAPH_NATIVE_API",
                                "CUBLASLT_DEPENDENCY"};
  return name_or_number(names, 5, note, "NOTE");
}

std::string cudnn_knob_type_name(int knob) {
  static const char* names[kKnobTypeCount] = {
      "SPLIT_K",     "SWIZZLE",       "TILE_SIZE",    "USE_TEX",     "EDGE",          "KBLOCK",
      "LDGA",        "LDGB",          "CHUNK_K",      "SPLIT_H",     "WINO_TILE",     "MULTIPLY",
      "SPLIT_K_BUF", "TILEK",         "STAGES",       "REDUCTION_MODE", "CTA_SPLIT_K_MODE", "SPLIT_K_SLC",
      "IDX_MODE",    "SLICED",        "SPLIT_RS",     "SINGLEBUFFER", "LDGC",        "SPECFILT",
      "KERNEL_CFG",  "WORKSPACE",     "TILE_CGA",     "TILE_CGA_M",  "TILE_CGA_N",    "BLOCK_SIZE",
      "OCCUPANCY",   "ARRAY_SIZE_PER_THREAD", "NUM_C_PER_BLOCK", "SPLIT_COLS", "TILE_ROWS", "TILE_COLS",
      "LOAD_SIZE",   "CTA_COUNT",     "STREAM_K",     "SPLIT_P_SLC", "TILE_M",        "TILE_N",
      "WARP_SPEC_CFG", "SWAP_AB"};
  return name_or_number(names, kKnobTypeCount, knob, "KNOB");
}

}  // namespace hiprim::gpu
