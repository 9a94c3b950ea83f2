// MIOpenDriver CBAInfer, CBAInferfp16 (convolution + bias + batch-norm inference + activation,
// fused): the line is parsed with its flags (driver/CBAInferFusion_driver.hpp AddCmdLineArgs,
// ParseCmdLineArgs: -F fusion mode 0..6) so a malformed line says what is wrong, then refused:
// the mapping onto hiprim's fusion primitive (core/fusion_problem.hpp) is not written yet.
#include "cli/miopen/commands.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> cbainfer_flags() {
  using U = FlagUse;
  return {
      {"batchsize", 'n', "32", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
      {"out_channels", 'k', "32", false, U::problem, "k"},
      {"group_count", 'g', "1", false, U::problem, "groups"},
      {"fil_h", 'y', "3", false, U::problem, "filter height"},
      {"fil_w", 'x', "3", false, U::problem, "filter width"},
      {"conv_stride_h", 'u', "1", false, U::problem, "stride height"},
      {"conv_stride_w", 'v', "1", false, U::problem, "stride width"},
      {"pad_h", 'p', "0", false, U::problem, "padding height"},
      {"pad_w", 'q', "0", false, U::problem, "padding width"},
      {"pad_val", 'r', "0", false, U::run, "unused"},
      {"alpha", 'A', "1.0", false, U::problem, "activation alpha"},
      {"beta", 'B', "0.", false, U::problem, "activation beta"},
      {"gamma", 'G', "1", false, U::problem, "activation gamma"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification"},
      {"time", 't', "0", false, U::run, "timing"},
      {"printconv", 'P', "1", false, U::run, "print the dimensions"},
      {"activMode", 'm', "3", false, U::problem, "activation mode"},
      {"bnMode", 'M', "0", false, U::problem, "batch-norm mode"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"dilation_h", 'l', "1", false, U::problem, "dilation height"},
      {"dilation_w", 'j', "1", false, U::problem, "dilation width"},
      {"search", 's', "0", false, U::run, "exhaustive find"},
      {"pad_mode", 'z', "conv", false, U::problem, "padding mode"},
      {"fusion_mode", 'F', "0", false, U::problem, "0 CBNA, 1 CNA, 2 NA, 3 CN, 4 CBA, 5 CA, 6 CB (C conv, B bias, N bnorm, A activ)"},
      {"dot_graph", 'D', "", false, U::run, "write the fusion graph"},
  };
}

Translation translate_cbainfer(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, cbainfer_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const int mode = f.integer("fusion_mode");
  if (mode < 0 || mode > 6) reject(who + ": -F " + f.str("fusion_mode") + ": \"Fusion mode out of range\" (0..6)");
  static const char* names[] = {"conv+bias+bnorm+activ", "conv+bnorm+activ", "bnorm+activ", "conv+bnorm",
                                "conv+bias+activ",       "conv+activ",       "conv+bias"};
  throw Refuse{RefusalKind::unsupported, who + " -F " + std::to_string(mode) + " (" + names[mode] +
                                             ", inference): the mapping to hiprim's fusion primitive is not implemented yet; "
                                             "write the chain as a problem: hiprim repro \"fusion fwd ... conv(...) bias bnorm-infer activ(relu)\""};
}

}  // namespace hiprim::mdriver
