// The bench's peer: a library timed beside hiprim's solvers on the same problems, in the same run,
// by the same clock (bench/bench_stats.hpp). Two peers, both cuDNN loaded at run time:
//   cudnn         the graph (backend) API (bench/cudnn_graph.hpp): every execution plan the
//                 heuristics return is a candidate; the bench autotunes them as
//                 torch.backends.cudnn.benchmark does, with each plan's output verified first.
//   cudnn-legacy  the legacy calls (bench/cudnn_peer.hpp): cudnnFind*AlgorithmEx chooses one
//                 algorithm, its only candidate.
// This header is host-only (no HIP/CUDA types): the autotuner's rules are tested without a GPU.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "verify/compare.hpp"

namespace hiprim::gpu {
class CudnnGraphConv;
class CudnnGraphPeer;
}

namespace hiprim::verify {

struct PeerResult;

enum class PeerKind { none, cudnn, cudnn_legacy };
inline constexpr std::size_t kPeerWorkspaceBytes = std::size_t{1} << 30;  // the most a peer plan may use
std::string_view peer_kind_name(PeerKind k);  // "none", "cudnn", "cudnn-legacy"
std::optional<PeerKind> parse_peer_kind(std::string_view s);

// Device buffers in OUR roles (ConvProblem's x, w, y, bias; packed strides of its descs).
struct PeerBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  const void* bias = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;
};

// One configuration the peer can run a problem with: a graph-API execution plan, or the legacy
// peer's find choice (engine = algorithm name, knobs = math type).
struct PeerCandidate {
  std::string engine, knobs, source;
  std::vector<std::string> numerical_notes, behavior_notes;
  std::size_t workspace_bytes = 0;
  bool usable = false;
  std::string reason;      // why not usable
  bool transform = false;  // FFT / Winograd: the direct-sum error bound does not apply
  bool deterministic = true;
};

// One problem on the peer, its candidates ready to run.
class PeerProblem {
 public:
  virtual ~PeerProblem() = default;
  virtual const std::vector<PeerCandidate>& candidates() const = 0;
  // Runs candidate i once on b (asynchronous on b.stream; capturable into a graph). InputError for
  // an unusable candidate or too small a workspace.
  virtual void run(int i, const PeerBuffers& b) const = 0;
  virtual double setup_ms() const = 0;  // building the graph and its plans / the legacy find
};

class ConvPeer {
 public:
  virtual ~ConvPeer() = default;
  virtual PeerKind kind() const = 0;
  // name, available, library, version, math, selection, check (the report's top-level "peer").
  virtual nlohmann::json describe() const = 0;
  virtual Applicability supports(const ConvProblem& p) const = 0;
  // The problem's candidates. The legacy peer runs its find on `scratch` (its output role is
  // overwritten; synchronous). InputError / RuntimeError naming what failed.
  virtual std::unique_ptr<PeerProblem> prepare(const ConvProblem& p, const PeerBuffers& scratch) const = 0;
};

// The peer of kind k (cuDNN from lib, else $HIPRIM_CUDNN_LIB, else libcudnn.so.9), or null and *why
// when it cannot be used (library missing, the graph API peer not built, no GPU backend). Never
// throws. max_plans: the graph API peer's usable plans kept per problem (in heuristic order).
std::unique_ptr<ConvPeer> open_conv_peer(PeerKind k, const std::string& lib, std::string* why, int max_plans = 24);
// The report's top-level "peer" when open_conv_peer gave null.
nlohmann::json unavailable_peer_json(PeerKind k, const std::string& why);

// ---- Autotuning: what torch.backends.cudnn.benchmark does, with verification ----
//
// Every usable candidate is checked (when verify: its full output against the reference) and timed;
// the selected one is the fastest whose check passed. A transform candidate (FFT/Winograd) is
// checked and timed too, but its check is reported, not judged (status "transform"); it can be
// selected only when allow_transforms and its output had no non-finite element where the
// reference is finite. Without verification (--verify none) every timed candidate is eligible.
struct PlanResult {
  int index = -1;
  PeerCandidate candidate;
  // "passed", "failed", "mistrusted", "transform", "not checked" (verify off), "not usable", "error"
  std::string status;
  std::string reason;
  std::optional<Verdict> check;
  std::optional<double> median_ms;  // the autotuning timer's per-call median
};
struct AutotuneRules {
  bool verify = true;
  bool allow_transforms = false;
};
struct AutotuneResult {
  std::vector<PlanResult> plans;
  int selected = -1;   // index into plans; -1: none eligible
  std::string reason;  // why none was selected
  double ms = 0;       // wall time of checking and timing every plan
};
// check(i) and time_ms(i) run candidate i (they may throw: the plan's status is then "error").
AutotuneResult autotune(const std::vector<PeerCandidate>& candidates, const AutotuneRules& rules,
                        const std::function<Verdict(int)>& check, const std::function<double(int)>& time_ms);
// {plans, usable, checked, passed, failed, transform, errors, selected, ms, rules, plans_detail: [...]}
nlohmann::json autotune_json(const AutotuneResult& r, const AutotuneRules& rules);
// The autotuner's outcome into *pr: autotune_json, and the selected candidate's engine, knobs,
// source, notes, workspace and check with status "timed"; or status "failed" and the reason.
// Returns the selected candidate's index (-1: none).
int take_autotune(const AutotuneResult& ar, const AutotuneRules& rules, PeerResult* pr);

// The graph-API peer's candidates: one per execution plan of g, in its order (GPU builds only).
std::vector<PeerCandidate> graph_candidates(const gpu::CudnnGraphConv& g);
// The report's top-level "peer" of the graph-API peer: the library, its numerics and selection
// rules, with the api and check lines of the primitive that uses it (GPU builds only).
nlohmann::json graph_peer_json(const gpu::CudnnGraphPeer& peer, const std::string& api, const std::string& check, int max_plans);

}  // namespace hiprim::verify
