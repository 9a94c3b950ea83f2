#include "verify/runner.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "core/error.hpp"
#include "verify/case_check.hpp"
#include "verify/guarded_buffer.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

PreparedCase::PreparedCase(OpProblemPtr p, const RunOptions& o)
    : p_(std::move(p)), seed_(o.seed), repro_flags_(o.hooks.repro_flags), hooks_(o.hooks) {
  if (!p_) throw InputError("no problem given");
  check_ = make_case_check(*p_, o);
  fill_ = check_->fill_tier(*p_, o.fill);
  fill_given_ = o.fill.has_value() && check_->takes_fill_tiers();
  tensors_ = p_->tensors();
  data_ = check_->fill(*p_, fill_, seed_);
  if (o.hooks.adjust_input)
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i].role != OpTensor::Role::output) o.hooks.adjust_input(data_[i], tensors_[i]);
  bytes_.resize(data_.size());
}

PreparedCase::PreparedCase(const ConvProblem& p, const RunOptions& o) : PreparedCase(make_op_problem(p), o) {}
PreparedCase::~PreparedCase() = default;
PreparedCase::PreparedCase(PreparedCase&&) noexcept = default;

const HostTensor& PreparedCase::tensor(std::string_view name) const {
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].name == name) return data_[i];
  throw InputError("the " + p_->op() + " problem " + p_->str() + " has no tensor '" + std::string(name) + "'");
}

const std::vector<unsigned char>& PreparedCase::bytes(std::size_t i) const {
  if (i >= data_.size()) throw InputError("PreparedCase::bytes: tensor " + std::to_string(i) + " of " + std::to_string(data_.size()));
  if (!bytes_[i]) bytes_[i] = data_[i].to_bytes();
  return *bytes_[i];
}

void PreparedCase::convert_inputs() const {
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].role != OpTensor::Role::output) (void)bytes(i);
}

std::unique_ptr<const CaseCheck> make_case_check(const OpProblem& p, const RunOptions& o) {
  return p.op() == "conv" ? make_conv_check(o) : make_op_check(p, o);
}

HostTensor tensor_from_bytes(const OpTensor& t, const std::vector<unsigned char>& bytes) {
  HostTensor h(t.desc);
  h.from_bytes(bytes.data());
  return h;
}

std::string repro_command(const PreparedCase& c, const std::string& solver) {
  std::string s = repro_command(c.problem().str(), solver, c.seed());
  if (c.fill_given()) s += " --fill " + std::string(fill_tier_name(c.fill()));
  if (!c.repro_flags().empty()) s += " " + c.repro_flags();
  return s;
}

CaseRecord run_case(const PreparedCase& c, const OpSolver& s, const RunOptions& o) {
  const OpProblem& p = c.problem();
  CaseRecord rec;
  rec.problem = p.str();
  rec.solver = s.name();
  rec.seed = c.seed();
  rec.fill = c.fill();
  rec.tolerance = c.check().tolerance(c, s);
  rec.time_ms = 0;
  rec.repro = repro_command(c, s.name()) + (o.config.empty() ? "" : " --config " + o.config);
  auto finish = [&](Status st, std::string reason) {
    rec.verdict.status = st;
    rec.verdict.reason = std::move(reason);
    return rec;
  };
  if (s.op() != p.op()) return finish(Status::unsupported, "solver of op " + s.op() + ", problem of op " + p.op());
  if (auto why = backend_unavailable(s.backend())) return finish(Status::unsupported, *why);
  if (auto a = s.applicable(p); !a) return finish(Status::unsupported, a.reason);
  try {
    const Backend b = s.backend();
    const auto& ts = c.tensors();
    rec.tolerance = c.check().expect(c, s);
    std::vector<GuardedBuffer> bufs;
    bufs.reserve(ts.size());
    for (const OpTensor& t : ts)
      bufs.emplace_back(b, static_cast<std::size_t>(t.desc.storage_elements()) * dtype_size(t.desc.dtype), t.name);
    std::vector<void*> ptrs;
    for (auto& g : bufs) ptrs.push_back(g.data());
    GuardedBuffer ws(b, s.config_workspace_bytes(p, o.config), "workspace");
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role == OpTensor::Role::input) bufs[i].set(c.bytes(i));
    // Returns every non-input buffer's payload, indexed like ts (inputs: empty).
    auto run_once = [&]() {
      for (std::size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].role == OpTensor::Role::in_out) bufs[i].set(c.bytes(i));
        if (ts[i].role == OpTensor::Role::output) bufs[i].poison(ts[i].desc.dtype);
      }
      auto t0 = std::chrono::steady_clock::now();
      s.run_config(p, ptrs, ws.data(), ws.payload(), nullptr, o.config);
      synchronize_backend(b);
      rec.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::vector<std::vector<unsigned char>> out(ts.size());
      for (std::size_t i = 0; i < ts.size(); ++i)
        if (ts[i].role != OpTensor::Role::input) out[i] = bufs[i].read_payload();
      return out;
    };
    const auto first = run_once();
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (auto bad = bufs[i].guards_intact()) return finish(Status::failed, *bad);
      if (ts[i].role == OpTensor::Role::input && bufs[i].read_payload() != c.bytes(i))
        return finish(Status::failed, "modified its input buffer " + ts[i].name);
    }
    if (auto bad = ws.guards_intact()) return finish(Status::failed, *bad);
    // Before any comparison: an unwritten element fails even where the judge would accept a NaN.
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role == OpTensor::Role::output)
        if (auto bad = check_written(first[i], ts[i].desc, ts[i].name)) return finish(Status::failed, *bad);

    rec.verdict = c.check().judge(c, s, first);
    if (!o.dump_dir.empty()) {
      std::filesystem::create_directories(o.dump_dir);
      c.check().dump(c, s, first, o.dump_dir);
    }
    if (s.deterministic() && o.check_determinism && rec.verdict.status == Status::passed) {
      const double first_ms = rec.time_ms;
      const auto again = run_once();
      rec.time_ms = std::min(first_ms, rec.time_ms);
      // Equal bytes are equal elements; otherwise the element comparison decides and names the first.
      for (std::size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].role == OpTensor::Role::input || again[i] == first[i]) continue;
        const Verdict d = compare_bitwise(tensor_from_bytes(ts[i], first[i]), tensor_from_bytes(ts[i], again[i]));
        if (d.status != Status::passed) {
          rec.deterministic = false;
          return finish(Status::failed, "claims to be deterministic but a second run differs in " + ts[i].name + ": " + d.reason);
        }
      }
      rec.deterministic = true;
    }
  } catch (const std::exception& e) {
    return finish(Status::error, e.what());
  }
  return rec;
}

CaseRecord run_case(const PreparedCase& c, const ConvSolver& s, const RunOptions& o) { return run_case(c, ConvOpSolver(s), o); }

nlohmann::json gpu_json() {
#ifdef HIPRIM_WITH_GPU
  std::string why;
  if (!gpu::device_available(&why)) return nullptr;
  auto d = gpu::device_info();
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"sm_count", d.sm_count},
          {"warp_size", d.warp_size},
          {"memory_bytes", d.memory_bytes},
          {"driver_version", std::to_string(d.driver_version)},
          {"runtime_version", std::to_string(d.runtime_version)},
          {"backend", d.backend}};
#else
  return nullptr;
#endif
}

}  // namespace hiprim::verify
