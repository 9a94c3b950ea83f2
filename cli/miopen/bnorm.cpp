// MIOpenDriver bnorm, bnormfp16, bnormfp16fp32, bnormbfp16fp32 -> BnormProblem. Source:
// driver/bn_driver.hpp (develop 2024-10, after #3234): AddCmdLineArgs, GetandSetData,
// GetInputTensorLengthsFromCmdLine, SetBNParametersFromCmdLineArgs, RunForwardGPU (EPSILON 1e-3,
// expAvgFactor 1/(i+1) in iteration i), runGPUFwdInference / runGPUFwdTrain / RunBackwardGPU
// (which optional buffers they pass); driver/dm_bnorm.cpp (Tgpu, Tmix); driver/main.cpp;
// src/ocl/batchnormocl.cpp BatchNormForwardInference (no estimates: the training kernel).
#include "cli/miopen/commands.hpp"
#include "core/bnorm_problem.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> bnorm_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "1 fwd-train, 2 fwd-infer, 0 with -b 0: fwd-train; -F 1|2 with -b 1: forward only"},
      {"back", 'b', "0", false, U::problem, "1 bwd (with -F 0)"},
      {"batchsize", 'n', "32", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
      {"in_d", 'D', "0", false, U::problem, "depth: nonzero makes x 5-d (NCDHW)"},
      {"layout", 'L', "", true, U::problem, "NCHW|NHWC|NCDHW|NDHWC (default NCHW, NCDHW with -D)"},
      {"alpha", 'A', "1.0", false, U::run, "unused by MIOpenDriver (alpha 1 fixed)"},
      {"beta", 'B', "0.", false, U::run, "unused by MIOpenDriver (beta 0 fixed)"},
      {"iter", 'i', "1", false, U::run, "iterations (training's averaging factor 1/(i+1))"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"printconv", 'P', "1", false, U::run, "print the dimensions"},
      {"mode", 'm', "0", false, U::problem, "0 per-activation, 1 spatial"},
      {"save", 's', "0", false, U::problem, "0|1: saved mean/inv-variance (fwd-train output; bwd input, else recomputed)"},
      {"run", 'r', "0", false, U::problem, "0|1: running mean/variance (fwd-train update; fwd-infer: use as estimates, else batch statistics)"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
  };
}

Translation translate_bnorm(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, bnorm_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");

  // GetInputTensorLengthsFromCmdLine: -D nonzero -> NxCxDxHxW.
  const long long n = f.integer("batchsize"), ch = f.integer("in_channels"), h = f.integer("in_h"), w = f.integer("in_w"),
                  d = f.integer("in_d");
  const bool depth = d != 0;
  // SetBNParametersFromCmdLineArgs.
  std::string layout = f.str("layout");
  if (layout.empty()) layout = depth ? "NCDHW" : "NCHW";
  else if (layout != "NCHW" && layout != "NHWC" && layout != "NCDHW" && layout != "NDHWC")
    reject(who + ": " + f.spelled("layout") + " '" + layout + "': MIOpenDriver accepts NCHW, NHWC, NCDHW, NDHWC (\"Invalid Layout Parameter Value\")" +
           (f.spelled("layout") == "-L" ? "; it upper-cases the value of --layout only" : ""));
  const int mode = f.integer("mode");
  if (mode != 0 && mode != 1) reject(who + ": -m " + f.str("mode") + ": \"Incorrect Batch Normalization Mode\" (0 per-activation, 1 spatial)");
  const int save = f.integer("save"), run = f.integer("run");
  if (save != 0 && save != 1) reject(who + ": -s " + f.str("save") + ": \"Incorrect Batch Normalization Save mode\" (0 or 1)");
  if (run != 0 && run != 1) reject(who + ": -r " + f.str("run") + ": \"Incorrect Batch Normalization Running mode\" (0 or 1)");
  int forw = f.integer("forw"), back = f.integer("back");
  if (forw > 2) reject(who + ": -F " + f.str("forw") + ": \"Incorrect Batch Normalization forward mode\" (0, 1, 2)");
  if (back > 1) reject(who + ": -b " + f.str("back") + ": \"Incorrect Batch Normalization backwards propagation mode\" (0, 1)");
  if (back && forw) {
    f.note("MIOpenDriver: \"Deactivate forward to run backward on Batch Norm. Running forward only.\" (-F " + std::to_string(forw) +
           " with -b " + std::to_string(back) + ")");
    back = 0;
  } else if (!back && !forw) {
    forw = 1;  // the default: forward training
  }
  // forw 1 train, 2 infer, else the backward (RunBackwardGPU runs only with back != 0, and
  // RunForwardGPU skips a forw outside 0..2).
  if (forw < 0 && back == 0)
    reject(who + ": -F " + f.str("forw") + " -b 0: MIOpenDriver skips the forward (\"selection out of range\") and runs nothing");
  if (forw < 0) reject(who + ": -F " + f.str("forw") + " with -b: the backward is switched off and the forward is out of range: MIOpenDriver runs nothing");
  const int rank = depth ? 5 : 4;
  if (static_cast<int>(layout.size()) != rank)
    reject(who + ": layout " + layout + " for a " + std::to_string(rank) + "-d tensor (" + (depth ? "-D given" : "no -D") +
           "): MIOpen rejects the tensor (unsupported layout for its rank)");
  require_length("-n", n, c.command);
  require_length("-c", ch, c.command);
  if (depth) require_length("-D", d, c.command);
  require_length("-H", h, c.command);
  require_length("-W", w, c.command);

  // Data types (dm_bnorm.cpp): Tgpu for x, y, scale, bias; Tmix for the statistics and for the
  // backward's dy, dx, dscale, dbias.
  const bool bwd = forw == 0;
  const DType scale_dt = c.opts.dtype.empty() || c.suffixed ? hiprim_dtype(c.param_type).value_or(DType::fp32) : DType::fp32;
  const DType stats_dt = c.opts.dtype.empty() || c.suffixed ? hiprim_dtype(c.stats_type).value_or(DType::fp32) : DType::fp32;
  if (bwd && stats_dt != dtype)
    c.cannot(who + " -b 1 keeps dy and dx in " + std::string(dtype_name(stats_dt)) + " while x is " + std::string(dtype_name(dtype)) +
             " (bn_driver.hpp GetandSetData: dy, out_bwd are Tmix); hiprim's bnorm bwd keeps dy and dx in x's dtype");
  c.finish_checks();

  Translation t = start_translation(c, f);
  BnormProblem p;
  p.mode = mode == 0 ? BnormMode::per_activation : BnormMode::spatial;
  p.shape.dtype = dtype;
  p.shape.channels_last = layout == "NHWC" || layout == "NDHWC";
  p.shape.n = n;
  p.shape.c = ch;
  p.shape.in = depth ? Dims{d, h, w} : Dims{h, w};
  p.epsilon = c.opts.epsilon.value_or(1e-3);  // bn_driver.hpp: #define EPSILON 1e-3
  p.scale_dtype = scale_dt;
  p.stats_dtype = stats_dt;
  if (c.opts.epsilon) t.notes.push_back("--epsilon is hiprim's: MIOpenDriver's bnorm always uses 1e-3");
  if (!c.opts.dtype.empty() && !c.suffixed)
    t.notes.push_back("with --dtype the scale, bias and statistics stay fp32 (hiprim's mixed precision; MIOpenDriver's bnormfp16 has them in fp16)");
  if (forw == 1 || (forw == 2 && run == 0)) {
    p.dir = BnormDir::fwd_train;
    p.momentum = c.opts.momentum.value_or(1.0);
    if (forw == 2)
      t.notes.push_back("-F 2 with -r 0: MIOpenDriver passes no estimated mean/variance, so MIOpen normalizes with the batch statistics "
                        "(batchnormocl.cpp: the training kernel) = hiprim's fwd-train y; hiprim also returns the statistics");
    else if (save == 0 || run == 0)
      t.notes.push_back(std::string("hiprim's fwd-train also returns what MIOpenDriver skips here:") + (save == 0 ? " the saved mean/inv-std (-s 0)" : "") +
                        (save == 0 && run == 0 ? " and" : "") + (run == 0 ? " the running statistics (-r 0)" : "") + "; y is the same");
    if (c.opts.momentum)
      t.notes.push_back("--momentum is hiprim's: MIOpenDriver's averaging factor is 1/(i+1) in iteration i");
    else if (forw == 1 && run == 1)
      t.notes.push_back("running statistics: MIOpenDriver's iteration i uses the factor 1/(i+1), 1 in the first; repeated on the same x they "
                        "stay the batch statistics; hiprim runs once with momentum 1");
  } else if (forw == 2) {
    p.dir = BnormDir::fwd_infer;
    p.momentum = std::nullopt;
  } else {
    p.dir = BnormDir::bwd;
    p.momentum = std::nullopt;
    if (save == 0)
      t.notes.push_back("-s 0: MIOpen recomputes mean and inv-std from x; hiprim's bwd reads them as saved statistics, which its fill "
                        "sets to x's batch statistics (epsilon included): the same dx, dscale, dbias");
  }
  if (c.opts.momentum && p.dir != BnormDir::fwd_train) reject("--momentum applies to fwd-train only");
  t.ops.push_back(make_op_problem(p));
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
