// Pieces shared by the MIOpenDriver translators (cli/miopen/commands.hpp).
#include <algorithm>

#include "core/error.hpp"
#include "cli/miopen/commands.hpp"

namespace hiprim::mdriver {

std::string_view refusal_kind_name(RefusalKind k) {
  switch (k) {
    case RefusalKind::rejected: return "rejected";
    case RefusalKind::inexpressible: return "inexpressible";
    case RefusalKind::unsupported: return "unsupported";
    case RefusalKind::help: return "help";
  }
  return "?";
}

std::string_view driver_type_name(DriverType t) {
  switch (t) {
    case DriverType::fp32: return "fp32";
    case DriverType::fp16: return "fp16";
    case DriverType::bf16: return "bf16";
    case DriverType::fp64: return "fp64";
    case DriverType::int8: return "int8";
    case DriverType::fp8: return "fp8";
    case DriverType::bf8: return "bf8";
  }
  return "?";
}

std::optional<DType> hiprim_dtype(DriverType t) {
  switch (t) {
    case DriverType::fp32: return DType::fp32;
    case DriverType::fp16: return DType::fp16;
    case DriverType::bf16: return DType::bf16;
    default: return std::nullopt;
  }
}

DType Context::data_dtype() {
  if (!opts.dtype.empty()) {
    auto d = parse_dtype(opts.dtype);
    if (!d) reject("--dtype '" + opts.dtype + "': expected fp32, fp16 or bf16");
    if (suffixed && hiprim_dtype(type) != d)
      reject("--dtype " + opts.dtype + " contradicts " + command + " (" + std::string(driver_type_name(type)) + " data)");
    return *d;
  }
  if (auto d = hiprim_dtype(type)) return *d;
  cannot("MIOpenDriver " + command + ": " + std::string(driver_type_name(type)) + " data is not a hiprim dtype (fp32, fp16, bf16)");
  return DType::fp32;
}

Directions main_directions(int forw) { return {(forw & 1) != 0 || forw == 0, forw != 1}; }

Translation start_translation(const Context& c, const DriverFlags& f) {
  Translation t;
  t.command = c.command;
  t.hiprim = c.opts;
  t.notes = f.notes();
  if (!c.opts.dtype.empty() && !c.suffixed)
    t.notes.push_back("--dtype " + c.opts.dtype + " is hiprim's (MIOpenDriver selects the dtype by the command name)");
  return t;
}

void require_length(const std::string& what, long long v, const std::string& command) {
  if (v <= 0)
    reject("MIOpenDriver " + command + ": " + what + " " + std::to_string(v) + " makes a tensor length <= 0 (MIOpen: \"Lengths must be > 0\")");
}

bool hiprim_layout_option(Context& c, DriverFlags& f, int spatial_rank) {
  if (c.opts.layout.empty()) return false;
  const std::string& L = c.opts.layout;
  const bool three = L == "ncdhw" || L == "ndhwc";
  if (L != "nchw" && L != "nhwc" && !three) reject("--layout '" + L + "': expected nchw, nhwc, ncdhw or ndhwc");
  if ((spatial_rank == 3) != three) reject("--layout " + L + " does not fit the " + std::to_string(spatial_rank + 2) + "-d tensor");
  f.note("--layout " + L + " is hiprim's: MIOpenDriver " + c.command + " uses packed NCHW tensors");
  return L == "nhwc" || L == "ndhwc";
}

void check_hiprim_rules(Context& c, const Translation& t) {
  auto join = [](const std::vector<std::string>& errs) {
    std::string s;
    for (auto& e : errs) s += (s.empty() ? "" : "; ") + e;
    return s;
  };
  for (auto& p : t.conv)
    if (auto e = p.validate(); !e.empty()) c.cannot("MIOpenDriver " + c.command + " runs " + to_string(p) + ", which hiprim does not accept: " + join(e));
  for (auto& p : t.ops)
    if (auto e = p->validate(); !e.empty()) c.cannot("MIOpenDriver " + c.command + " runs " + p->str() + ", which hiprim does not accept: " + join(e));
  c.finish_checks();
}

void require_conv_descriptor(const std::string& who, const std::string& axis, std::int64_t pad, std::int64_t stride,
                             std::int64_t dilation) {
  if (pad < 0 || stride < 1 || dilation < 1)
    reject(who + ": " + axis + " pad " + std::to_string(pad) + ", stride " + std::to_string(stride) + ", dilation " + std::to_string(dilation) +
           ": MIOpen rejects the descriptor (\"MIOPEN expects padding >= 0, stride >= 1, dilation >= 1\")");
}

std::int64_t driver_same_pad(std::int64_t in, std::int64_t stride, std::int64_t filter) {
  return (in % stride == 0 ? std::max<std::int64_t>(filter - stride, 0) : std::max<std::int64_t>(filter - in % stride, 0)) / 2;
}

void check_fwd_output(Context& c, const std::string& who, const std::string& axis, std::int64_t in, std::int64_t filter,
                      std::int64_t pad, std::int64_t stride, std::int64_t dilation) {
  const std::int64_t span = in - (1 + dilation * (filter - 1)) + 2 * pad;
  const std::int64_t o = span / stride + 1;
  if (o < 1 || span < 0)
    c.cannot(who + ": the " + axis + " output would be " + std::to_string(o) +
             " (the dilated filter is larger than the padded input); MIOpen clamps it to 1, a window partly outside the padded input, "
             "which hiprim's conv does not define");
}

std::string set_activ_coefficients(const DriverFlags& f, ActivMode mode, const char* const (&flags)[3], const double (&values)[3],
                                   double& alpha, double& beta, double& gamma) {
  const bool used[3] = {activ_uses_alpha(mode), activ_uses_beta(mode), activ_uses_gamma(mode)};
  double* field[3] = {&alpha, &beta, &gamma};
  std::string unused;
  for (int i = 0; i < 3; ++i) {
    if (used[i]) *field[i] = values[i];
    else if (f.given(flags[i])) unused += (unused.empty() ? "" : ", ") + f.spelled(flags[i]) + " " + f.str(flags[i]);
  }
  return unused;
}

std::vector<std::string> Translation::problem_strings() const {
  std::vector<std::string> out;
  for (auto& p : conv) out.push_back(to_string(p));
  for (auto& p : ops) out.push_back(p->str());
  return out;
}

}  // namespace hiprim::mdriver
