#include "verify/op_runner.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>

#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/npy.hpp"
#include "verify/op_fill.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

PreparedOpCase::PreparedOpCase(OpProblemPtr p, const RunOptions& o) : p_(std::move(p)), seed_(o.seed) {
  if (!p_) throw InputError("no problem given");
  auto errs = p_->validate();
  if (!errs.empty()) throw_invalid_problem(p_->op(), p_->str(), errs);
  tensors_ = p_->tensors();
  data_ = op_fill(*p_, seed_);
  bytes_.resize(data_.size());
}

const std::vector<unsigned char>& PreparedOpCase::bytes(std::size_t i) const {
  if (i >= data_.size()) throw InputError("PreparedOpCase::bytes: tensor " + std::to_string(i) + " of " + std::to_string(data_.size()));
  if (!bytes_[i]) bytes_[i] = data_[i].to_bytes();
  return *bytes_[i];
}

const std::vector<ref::OpExpected>& PreparedOpCase::expected() const {
  if (!expected_) {
    std::vector<const HostTensor*> in;
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      in.push_back(tensors_[i].role == OpTensor::Role::output ? nullptr : &data_[i]);
    expected_ = ref::op_expected(*p_, in);
  }
  return *expected_;
}

std::string op_repro_command(const PreparedOpCase& c, const std::string& solver) {
  return repro_command(c.problem().str(), solver, c.seed());
}

namespace {

int severity(Status s) {
  switch (s) {
    case Status::failed: return 4;
    case Status::error: return 3;
    case Status::mistrusted: return 2;
    case Status::unsupported: return 1;
    case Status::passed: return 0;
  }
  return 0;
}

}  // namespace

Verdict merge_verdicts(const std::vector<std::pair<std::string, Verdict>>& per_tensor) {
  Verdict v;
  v.status = Status::passed;
  if (per_tensor.empty()) return v;
  const Verdict* worst = &per_tensor.front().second;
  std::string passed_reasons, other_reasons;
  Metrics& m = v.metrics;
  double sum_sq_err_rel = 0;
  for (auto& [name, t] : per_tensor) {
    if (severity(t.status) > severity(v.status)) v.status = t.status;
    if (severity(t.status) > severity(worst->status) ||
        (severity(t.status) == severity(worst->status) && t.metrics.worst_ratio > worst->metrics.worst_ratio))
      worst = &t;
    std::string& r = t.status == Status::passed ? passed_reasons : other_reasons;
    r += (r.empty() ? "" : "; ") + name + ": " + t.reason;
    const Metrics& x = t.metrics;
    m.checked += x.checked;
    m.mismatches += x.mismatches;
    m.nonfinite_mismatches += x.nonfinite_mismatches;
    m.max_abs_error = std::max(m.max_abs_error, x.max_abs_error);
    m.max_rel_error = std::max(m.max_rel_error, x.max_rel_error);
    m.worst_ratio = std::max(m.worst_ratio, x.worst_ratio);
    m.max_ulp = std::max(m.max_ulp, x.max_ulp);
    m.zero_fraction += x.zero_fraction * static_cast<double>(x.checked);
    sum_sq_err_rel = std::max(sum_sq_err_rel, x.rms_rel_error);
  }
  m.rms_rel_error = sum_sq_err_rel;  // the largest per-tensor value (tensors have different scales)
  m.zero_fraction = m.checked ? m.zero_fraction / static_cast<double>(m.checked) : 0.0;
  m.worst = worst->metrics.worst;
  v.reason = v.status == Status::passed ? passed_reasons : other_reasons;
  return v;
}

CaseRecord run_op_case(const PreparedOpCase& c, const OpSolver& s, const RunOptions& o) {
  const OpProblem& p = c.problem();
  CaseRecord rec;
  rec.problem = p.str();
  rec.solver = s.name();
  rec.seed = c.seed();
  rec.fill = FillTier::bounded;
  rec.tolerance = "per-element bounds of the op's reference";
  rec.time_ms = 0;
  rec.repro = op_repro_command(c, s.name());
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
    const auto& expected = c.expected();
    rec.tolerance.clear();
    for (const auto& e : expected) rec.tolerance += (rec.tolerance.empty() ? "" : "; ") + e.tensor + ": " + e.rule;
    std::vector<GuardedBuffer> bufs;
    bufs.reserve(ts.size());
    for (const OpTensor& t : ts)
      bufs.emplace_back(b, static_cast<std::size_t>(t.desc.storage_elements()) * dtype_size(t.desc.dtype), t.name);
    std::vector<void*> ptrs;
    for (auto& g : bufs) ptrs.push_back(g.data());
    GuardedBuffer ws(b, s.workspace_bytes(p), "workspace");
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role == OpTensor::Role::input) bufs[i].set(c.bytes(i));
    // Returns every non-input buffer's payload, indexed like ts.
    auto run_once = [&]() {
      for (std::size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].role == OpTensor::Role::in_out) bufs[i].set(c.bytes(i));
        if (ts[i].role == OpTensor::Role::output) bufs[i].poison(ts[i].desc.dtype);
      }
      auto t0 = std::chrono::steady_clock::now();
      s.run(p, ptrs, ws.data(), ws.payload(), nullptr);
      synchronize_backend(b);
      rec.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::vector<std::vector<unsigned char>> out(ts.size());
      for (std::size_t i = 0; i < ts.size(); ++i)
        if (ts[i].role != OpTensor::Role::input) out[i] = bufs[i].read_payload();
      return out;
    };
    auto got_of = [&](const std::vector<std::vector<unsigned char>>& out, std::size_t i) {
      HostTensor h(ts[i].desc);
      h.from_bytes(out[i].data());
      return h;
    };
    auto first = run_once();
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (auto bad = bufs[i].guards_intact()) return finish(Status::failed, *bad);
      if (ts[i].role == OpTensor::Role::input && bufs[i].read_payload() != c.bytes(i))
        return finish(Status::failed, "modified its input buffer " + ts[i].name);
    }
    if (auto bad = ws.guards_intact()) return finish(Status::failed, *bad);
    // An output element still holding the poison was never written: failed, even where NaN is expected.
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role == OpTensor::Role::output)
        if (auto bad = check_written(first[i], ts[i].desc, ts[i].name)) return finish(Status::failed, *bad);

    std::vector<std::pair<std::string, Verdict>> verdicts;
    std::vector<HostTensor> got(ts.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].role == OpTensor::Role::input) continue;
      const ref::OpExpected& e = expected[k++];
      got[i] = got_of(first, i);
      verdicts.emplace_back(ts[i].name, compare_with_bounds(got[i], e.value, e.bound, ts[i].desc, ts[i].desc.dtype));
    }
    rec.verdict = merge_verdicts(verdicts);
    if (!o.dump_dir.empty()) {
      std::filesystem::create_directories(o.dump_dir);
      k = 0;
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const TensorDesc& d = ts[i].desc;
        if (ts[i].role != OpTensor::Role::output)
          write_npy(o.dump_dir + "/" + ts[i].name + (ts[i].role == OpTensor::Role::in_out ? "_before" : "") + ".npy", d.dims,
                    logical_values(d, c.data()[i].data));
        if (ts[i].role == OpTensor::Role::input) continue;
        write_npy(o.dump_dir + "/" + ts[i].name + ".npy", d.dims, logical_values(d, got[i].data));
        write_npy(o.dump_dir + "/" + ts[i].name + "_reference.npy", d.dims, logical_values(d, expected[k++].value));
      }
    }
    if (s.deterministic() && o.check_determinism && rec.verdict.status == Status::passed) {
      const double first_ms = rec.time_ms;
      auto again = run_once();
      rec.time_ms = std::min(first_ms, rec.time_ms);
      // Equal bytes are equal elements; otherwise the element comparison decides and names the first.
      for (std::size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].role == OpTensor::Role::input || again[i] == first[i]) continue;
        Verdict d = compare_bitwise(got[i], got_of(again, i));
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

}  // namespace hiprim::verify
