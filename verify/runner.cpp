#include "verify/runner.hpp"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/npy.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/device.hpp"
#endif

namespace hiprim::verify {

PreparedCase::PreparedCase(const ConvProblem& p, const RunOptions& o)
    : p_(p), seed_(o.seed), fill_given_(o.fill.has_value()), oracle_(o.hooks.oracle), repro_flags_(o.hooks.repro_flags) {
  auto errs = p.validate();
  if (!errs.empty()) throw InputError("invalid problem " + to_string(p) + ": " + errs.front());
  int range = exact_fill_range(p);
  fill_ = o.fill.value_or(range > 0 ? FillTier::exact : FillTier::bounded);
  if (fill_ == FillTier::exact && range == 0)
    throw InputError("--fill exact: the problem's reduction length " + std::to_string(p.reduction_length()) +
                     " is too long for exact integer sums in fp32");
  auto make = [&](HostTensor& t, const TensorDesc& d, std::uint64_t tag) {
    t = HostTensor(d);
    verify::fill(t, fill_, seed_, tag, range);
    if (o.hooks.adjust_input) o.hooks.adjust_input(t, tag);
  };
  if (p.dir != ConvDir::bwd_data) make(x_, p.x_desc(), kTagX);
  if (p.dir != ConvDir::bwd_weights) make(w_, p.w_desc(), kTagW);
  if (p.dir != ConvDir::fwd) make(y_, p.y_desc(), kTagY);
  if (p.bias) make(bias_, p.bias_desc(), kTagBias);
}

const ref::ConvOutput& PreparedCase::expected(bool naive_only) const {
  ref::ConvInputs in{p_.dir != ConvDir::bwd_data ? &x_ : nullptr, p_.dir != ConvDir::bwd_weights ? &w_ : nullptr,
                     p_.dir != ConvDir::fwd ? &y_ : nullptr, p_.bias ? &bias_ : nullptr};
  if (oracle_) {
    if (!auto_) auto_ = oracle_(*this);
    return *auto_;
  }
  if (naive_only || p_.macs() < ref::kFastThresholdMacs) {
    if (!naive_) naive_ = ref::conv_naive(p_, in);
    return *naive_;
  }
  if (!auto_) auto_ = ref::conv(p_, in);
  return *auto_;
}

void PreparedCase::convert_inputs() const {
  if (p_.dir != ConvDir::bwd_data) (void)x_bytes();
  if (p_.dir != ConvDir::bwd_weights) (void)w_bytes();
  if (p_.dir != ConvDir::fwd) (void)y_bytes();
  if (p_.bias) (void)bias_bytes();
}

Tolerance PreparedCase::tolerance(double algorithm_factor) const { return tolerance_for(p_, fill_, algorithm_factor); }

std::string repro_command(const PreparedCase& c, const std::string& solver) {
  std::string s = "hiprim repro \"" + to_string(c.problem()) + "\" --solver " + solver + " --seed " + std::to_string(c.seed());
  if (c.fill_given()) s += " --fill " + std::string(fill_tier_name(c.fill()));
  if (!c.repro_flags().empty()) s += " " + c.repro_flags();
  return s;
}

CaseRecord run_case(const PreparedCase& c, const ConvSolver& s, const RunOptions& o) {
  const ConvProblem& p = c.problem();
  CaseRecord rec;
  rec.problem = to_string(p);
  rec.solver = s.name();
  rec.seed = c.seed();
  rec.fill = c.fill();
  rec.tolerance = c.tolerance(s.accumulation_error_factor()).describe();
  rec.time_ms = 0;
  rec.repro = repro_command(c, s.name());
  auto finish = [&](Status st, std::string reason) {
    rec.verdict.status = st;
    rec.verdict.reason = std::move(reason);
    return rec;
  };
  if (auto why = backend_unavailable(s.backend())) return finish(Status::unsupported, *why);
  if (auto a = s.applicable(p); !a) return finish(Status::unsupported, a.reason);
  try {
    const Backend b = s.backend();
    // Input roles get the filled tensors; the output role is poisoned.
    const TensorDesc out_desc = p.dir == ConvDir::fwd ? p.y_desc() : p.dir == ConvDir::bwd_data ? p.x_desc() : p.w_desc();
    auto bytes_of = [&](const TensorDesc& d) { return static_cast<std::size_t>(d.storage_elements()) * dtype_size(d.dtype); };
    GuardedBuffer x(b, bytes_of(p.x_desc()), "x"), w(b, bytes_of(p.w_desc()), "w"), y(b, bytes_of(p.y_desc()), "y");
    GuardedBuffer bias(b, p.bias ? bytes_of(p.bias_desc()) : 0, "bias");
    GuardedBuffer ws(b, s.workspace_bytes(p), "workspace");
    GuardedBuffer& out = p.dir == ConvDir::fwd ? y : p.dir == ConvDir::bwd_data ? x : w;
    std::vector<std::pair<GuardedBuffer*, const std::vector<unsigned char>*>> inputs;  // buffer, the bytes set
    auto set_input = [&](GuardedBuffer& g, const std::vector<unsigned char>& bytes) {
      g.set(bytes);
      inputs.emplace_back(&g, &bytes);
    };
    if (p.dir != ConvDir::bwd_data) set_input(x, c.x_bytes());
    if (p.dir != ConvDir::bwd_weights) set_input(w, c.w_bytes());
    if (p.dir != ConvDir::fwd) set_input(y, c.y_bytes());
    if (p.bias) set_input(bias, c.bias_bytes());
    ConvTensors t{x.data(), w.data(), y.data(), p.bias ? bias.data() : nullptr, ws.data(), ws.payload(), nullptr};

    auto run_once = [&]() -> std::vector<unsigned char> {
      out.poison(out_desc.dtype);
      auto t0 = std::chrono::steady_clock::now();
      s.run(p, t);
      synchronize_backend(b);
      rec.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return out.read_payload();
    };
    const std::vector<unsigned char> got_bytes = run_once();
    for (GuardedBuffer* g : {&x, &w, &y, &bias, &ws})
      if (auto bad = g->guards_intact()) return finish(Status::failed, *bad);
    for (const auto& [g, bytes] : inputs)
      if (g->read_payload() != *bytes) return finish(Status::failed, "modified its input buffer " + g->what());
    // Before any comparison: an unwritten element fails even where the judge would accept a NaN.
    if (auto bad = check_written(got_bytes, out_desc, out.what())) return finish(Status::failed, *bad);

    auto as_tensor = [&](const std::vector<unsigned char>& bytes) {
      HostTensor h(out_desc);
      h.from_bytes(bytes.data());
      return h;
    };
    const ref::ConvOutput& exp = c.expected(s.needs_independent_oracle());
    const Tolerance tol = c.tolerance(s.accumulation_error_factor());
    std::optional<HostTensor> got;  // converted only when a judge or a dump needs it
    if (o.hooks.judge_bytes) {
      rec.verdict = o.hooks.judge_bytes(got_bytes, tol);
    } else {
      got = as_tensor(got_bytes);
      rec.verdict = o.hooks.judge ? o.hooks.judge(*got, exp, tol) : compare(*got, exp.value, exp.abs_sum, exp.desc, tol);
    }
    if (!o.dump_dir.empty()) {
      if (!got) got = as_tensor(got_bytes);
      std::filesystem::create_directories(o.dump_dir);
      auto dump = [&](const std::string& name, const HostTensor& h) {
        write_npy(o.dump_dir + "/" + name + ".npy", h.desc.dims, logical_values(h.desc, h.data));
      };
      if (p.dir != ConvDir::bwd_data) dump("x", c.x());
      if (p.dir != ConvDir::bwd_weights) dump("w", c.w());
      if (p.dir != ConvDir::fwd) dump("dy", c.y());
      if (p.bias) dump("bias", c.bias());
      dump("output", *got);
      write_npy(o.dump_dir + "/reference.npy", exp.desc.dims, logical_values(exp.desc, exp.value));
    }
    if (s.deterministic() && o.check_determinism && rec.verdict.status == Status::passed) {
      const double first_ms = rec.time_ms;
      const std::vector<unsigned char> again = run_once();
      rec.time_ms = std::min(first_ms, rec.time_ms);
      // Equal bytes are equal elements; otherwise the element comparison decides and names the first.
      const bool same = again == got_bytes;
      Verdict d;
      if (!same) {
        if (!got) got = as_tensor(got_bytes);
        d = compare_bitwise(*got, as_tensor(again));
      }
      rec.deterministic = same || d.status == Status::passed;
      if (!*rec.deterministic) return finish(Status::failed, "claims to be deterministic but a second run differs: " + d.reason);
    }
  } catch (const InputError& e) {
    return finish(Status::error, e.what());
  } catch (const std::exception& e) {
    return finish(Status::error, e.what());
  }
  return rec;
}

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
