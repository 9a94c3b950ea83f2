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
    std::vector<GuardedBuffer*> inputs;
    if (p.dir != ConvDir::bwd_data) { x.set(c.x().to_bytes()); inputs.push_back(&x); }
    if (p.dir != ConvDir::bwd_weights) { w.set(c.w().to_bytes()); inputs.push_back(&w); }
    if (p.dir != ConvDir::fwd) { y.set(c.y().to_bytes()); inputs.push_back(&y); }
    if (p.bias) { bias.set(c.bias().to_bytes()); inputs.push_back(&bias); }
    std::vector<std::vector<unsigned char>> inputs_before;
    for (auto* in : inputs) inputs_before.push_back(in->read_all());
    ConvTensors t{x.data(), w.data(), y.data(), p.bias ? bias.data() : nullptr, ws.data(), ws.payload(), nullptr};

    auto run_once = [&]() -> std::vector<unsigned char> {
      out.poison(out_desc.dtype);
      auto t0 = std::chrono::steady_clock::now();
      s.run(p, t);
      synchronize_backend(b);
      rec.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return out.read_all();
    };
    auto all = run_once();
    for (GuardedBuffer* g : {&x, &w, &y, &bias, &ws}) {
      auto whole = g == &out ? all : g->read_all();
      if (auto bad = check_guards(whole, g->payload(), g->what())) return finish(Status::failed, *bad);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i]->read_all() != inputs_before[i]) return finish(Status::failed, "modified its input buffer " + inputs[i]->what());
    // Before any comparison: an unwritten element fails even where the judge would accept a NaN.
    if (auto bad = check_written(payload_of(all, out.payload()), out_desc, out.what())) return finish(Status::failed, *bad);

    HostTensor got(out_desc);
    got.from_bytes(payload_of(all, out.payload()).data());
    const ref::ConvOutput& exp = c.expected(s.name() == "ref.conv.fast");
    const Tolerance tol = c.tolerance(s.accumulation_error_factor());
    rec.verdict = o.hooks.judge ? o.hooks.judge(got, exp, tol) : compare(got, exp.value, exp.abs_sum, exp.desc, tol);
    if (!o.dump_dir.empty()) {
      std::filesystem::create_directories(o.dump_dir);
      auto dump = [&](const std::string& name, const HostTensor& h) {
        write_npy(o.dump_dir + "/" + name + ".npy", h.desc.dims, logical_values(h.desc, h.data));
      };
      if (p.dir != ConvDir::bwd_data) dump("x", c.x());
      if (p.dir != ConvDir::bwd_weights) dump("w", c.w());
      if (p.dir != ConvDir::fwd) dump("dy", c.y());
      if (p.bias) dump("bias", c.bias());
      dump("output", got);
      write_npy(o.dump_dir + "/reference.npy", exp.desc.dims, logical_values(exp.desc, exp.value));
    }
    if (s.deterministic() && o.check_determinism && rec.verdict.status == Status::passed) {
      const double first_ms = rec.time_ms;
      auto again = run_once();
      rec.time_ms = std::min(first_ms, rec.time_ms);
      HostTensor got2(out_desc);
      got2.from_bytes(payload_of(again, out.payload()).data());
      Verdict d = compare_bitwise(got, got2);
      rec.deterministic = d.status == Status::passed;
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
