// Internal interface of the MIOpenDriver translators (one file per command family). Each
// translator parses the arguments with its command's flag table (driver_flags.hpp), applies
// MIOpenDriver's checks in MIOpenDriver's order (a failed one: reject()), then builds the hiprim
// problems; a meaning hiprim cannot express is collected with Context::cannot() and thrown once
// every MIOpenDriver check has passed, so a line MIOpenDriver rejects always says so first.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cli/miopen/driver_flags.hpp"
#include "cli/miopen/translation.hpp"
#include "core/activ_problem.hpp"
#include "core/dtype.hpp"

namespace hiprim::mdriver {

// Data type of a command's tensors as MIOpenDriver's dm_<op>.cpp instantiates them.
enum class DriverType { fp32, fp16, bf16, fp64, int8, fp8, bf8 };
std::string_view driver_type_name(DriverType t);
std::optional<DType> hiprim_dtype(DriverType t);

struct Context {
  std::string command;     // as written ("convfp16")
  std::string family;      // conv, bnorm, pool, lrn, activ, softmax, tensorop, reduce, dropout, CBAInfer
  DriverType type = DriverType::fp32;
  bool suffixed = false;   // the command carries a dtype suffix (--dtype then must agree)
  DriverType param_type = DriverType::fp32;  // bnorm's scale/bias (Tgpu) ...
  DriverType stats_type = DriverType::fp32;  // ... and its means/variances (Tmix)
  bool from_log = false;   // pasted from a MIOPEN_ENABLE_LOGGING_CMD line
  std::string log_function;  // "LogCmdConvolution", ... when from_log
  HiprimOptions opts;

  // Records a meaning hiprim cannot express; the first one is thrown by finish_checks().
  void cannot(std::string why) {
    if (!pending) pending = std::move(why);
  }
  void finish_checks() const {
    if (pending) inexpressible(*pending);
  }
  // The data dtype: the command's, or --dtype for a command without a suffix (InputError-style
  // reject when they contradict); records cannot() for fp64/int8/fp8.
  DType data_dtype();
  std::optional<std::string> pending;
};

// Every family's flag table (AddCmdLineArgs order, defaults as in MIOpen's sources) and translator:
// conv's, CBAInfer's, and <name>_flags / translate_<name> for every row of core/primitives.def (the
// family of MIOpenDriver <name>).
std::vector<FlagSpec> conv_flags();
std::vector<FlagSpec> cbainfer_flags();
std::vector<FlagSpec> pool_legacy_flags();  // before MIOpen #1313 (2022-01-20): -n -c -H -W -D -d
Translation translate_conv(Context& c, const std::vector<std::string>& args);
Translation translate_cbainfer(Context& c, const std::vector<std::string>& args);
#define HIPRIM_PRIMITIVE(name, fill)    \
  std::vector<FlagSpec> name##_flags(); \
  Translation translate_##name(Context& c, const std::vector<std::string>& args);
#define HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill)  // no MIOpenDriver command of its own
#include "core/primitives.def"
// The table of a family by name ("conv", "pool", ...); empty for an unknown family.
std::vector<FlagSpec> family_flags(const std::string& family);

// Shared pieces.
// main.cpp: RunForwardGPU runs when (F & 1) || F == 0, RunBackwardGPU when F != 1.
struct Directions {
  bool fwd = false, bwd = false;
};
Directions main_directions(int forw);
// A Translation with the flags' notes and the hiprim options copied in.
Translation start_translation(const Context& c, const DriverFlags& f);
// A flag for a size that MIOpen turns into a tensor length: reject when <= 0 ("Lengths must be > 0").
void require_length(const std::string& what, long long v, const std::string& command);
// The hiprim --layout option for a command whose MIOpenDriver tensors are NCHW only: channels_last
// (with a note on f), or false; rank 2 or 3 spatial dims.
bool hiprim_layout_option(Context& c, DriverFlags& f, int spatial_rank);
// Runs validate() on every problem; a violation hiprim's grammar has (MIOpen accepts) -> cannot().
void check_hiprim_rules(Context& c, const Translation& t);

// Convolution geometry as MIOpen reads it (conv and CBAInfer):
// miopen::ConvolutionDescriptor's constructor: pad >= 0, stride >= 1, dilation >= 1, else reject.
void require_conv_descriptor(const std::string& who, const std::string& axis, std::int64_t pad, std::int64_t stride,
                             std::int64_t dilation);
// The drivers' --pad_mode same padding of one axis (stride >= 1):
// (in % s == 0 ? max(f - s, 0) : max(f - in % s, 0)) / 2.
std::int64_t driver_same_pad(std::int64_t in, std::int64_t stride, std::int64_t filter);
// A forward (conv mode) output (in - (1 + d*(f-1)) + 2p) / s + 1 that MIOpen clamps to 1 -> cannot().
void check_fwd_output(Context& c, const std::string& who, const std::string& axis, std::int64_t in, std::int64_t filter,
                      std::int64_t pad, std::int64_t stride, std::int64_t dilation);
// An activation's alpha/beta/gamma read from the flags named in `flags`: the ones `mode` uses are
// stored, the others stay 1. Returns the given flags the mode does not use ("-B 2, -G 3"), or "".
std::string set_activ_coefficients(const DriverFlags& f, ActivMode mode, const char* const (&flags)[3], const double (&values)[3],
                                   double& alpha, double& beta, double& gamma);

}  // namespace hiprim::mdriver
