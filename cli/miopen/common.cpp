// Pieces shared by the MIOpenDriver translators (cli/miopen/commands.hpp).
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

std::vector<std::string> Translation::problem_strings() const {
  std::vector<std::string> out;
  for (auto& p : conv) out.push_back(to_string(p));
  for (auto& p : ops) out.push_back(p->str());
  return out;
}

}  // namespace hiprim::mdriver
