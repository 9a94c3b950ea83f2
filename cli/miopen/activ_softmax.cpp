// MIOpenDriver activ, activfp16 -> ActivProblem and softmax, softmaxfp16 -> SoftmaxProblem, per
// direction. Sources: driver/activ_driver.hpp (AddCmdLineArgs, GetandSetData,
// SetActivationDescriptorFromCmdLineArgs: mode by atoi, alpha/beta/gamma by atof; RunBackwardGPU
// passes x, y, dy; AllocateBuffersAndCopy: y starts as zeros), src/kernels/activation_functions.hpp
// (the forward and backward of each mode), driver/softmax_driver.hpp (GetandSetData: alpha, beta,
// algorithm, mode; miopenSoftmaxForward_V2 y = alpha*softmax(x) + beta*y), driver/main.cpp.
#include "cli/miopen/commands.hpp"
#include "core/activ_problem.hpp"
#include "core/softmax_problem.hpp"

namespace hiprim::mdriver {

namespace {

std::vector<FlagSpec> nchw_flags(const char* n_default) {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "0 fwd and bwd, 1 fwd only, other even: bwd only, other odd: fwd and bwd"},
      {"batchsize", 'n', n_default, false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
  };
}

std::vector<FlagSpec> timing_flags(const char* iters) {
  using U = FlagUse;
  return {
      {"iter", 'i', iters, false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
  };
}

// The packed NCHW tensor of -n -c -H -W (lengths > 0), with hiprim's --layout.
OpShape nchw_shape(Context& c, DriverFlags& f, DType dtype) {
  OpShape s;
  s.dtype = dtype;
  s.n = f.integer("batchsize");
  s.c = f.integer("in_channels");
  const long long h = f.integer("in_h"), w = f.integer("in_w");
  require_length("-n", s.n, c.command);
  require_length("-c", s.c, c.command);
  require_length("-H", h, c.command);
  require_length("-W", w, c.command);
  s.in = {h, w};
  s.channels_last = hiprim_layout_option(c, f, 2);
  return s;
}

}  // namespace

std::vector<FlagSpec> activ_flags() {
  using U = FlagUse;
  auto v = nchw_flags("100");
  v.push_back({"mode", 'm', "3", false, U::problem,
               "0 passthru 1 logistic 2 tanh 3 relu 4 softrelu 5 abs 6 power 7 clippedrelu 8 leakyrelu 9 elu (atoi)"});
  v.push_back({"alpha", 'A', "1", false, U::problem, "alpha (tanh, power, clippedrelu, leakyrelu, elu; ignored by the others)"});
  v.push_back({"beta", 'B', "1", false, U::problem, "beta (tanh, power; ignored by the others)"});
  v.push_back({"gamma", 'G', "1", false, U::problem, "gamma (power; ignored by the others)"});
  for (auto& s : timing_flags("10")) v.push_back(s);
  return v;
}

std::vector<FlagSpec> softmax_flags() {
  using U = FlagUse;
  auto v = nchw_flags("100");
  v.push_back({"alpha", 'A', "1.0", false, U::problem, "y = alpha*softmax + beta*y: 1 (else refused)"});
  v.push_back({"beta", 'B', "0.0", false, U::problem, "0 (else refused)"});
  v.push_back({"algorithm", 'a', "1", false, U::problem, "0 fast, 1 accurate, 2 log"});
  v.push_back({"mode", 'm', "1", false, U::problem, "0 instance (over C*H*W), 1 channel (over C)"});
  for (auto& s : timing_flags("10")) v.push_back(s);
  return v;
}

Translation translate_activ(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, activ_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");
  const int mode_num = f.integer("mode");
  const double alpha = f.real("alpha"), beta = f.real("beta"), gamma = f.real("gamma");
  if (mode_num < 0 || mode_num > 9) reject(who + ": -m " + f.str("mode") + ": MIOpen's activation modes are 0..9 (miopenActivationMode_t)");
  const int forw = f.integer("forw");
  const Directions dirs = main_directions(forw);
  ActivMode mode = static_cast<ActivMode>(mode_num);  // hiprim's first ten follow miopenActivationMode_t
  if (!c.opts.activation.empty()) {
    auto m = parse_activ_mode(c.opts.activation);
    if (!m) reject("--activation '" + c.opts.activation + "': not a hiprim activation (passthru ... elu, gelu, gelu_tanh, silu)");
    if (f.given("mode") && *m != mode) reject("--activation " + c.opts.activation + " contradicts -m " + f.str("mode"));
    mode = *m;
  }
  // Where MIOpen's kernels compute something else than hiprim's definition.
  if (mode == ActivMode::power)
    c.cannot(who + " -m 6 (power): MIOpen returns 0 where alpha + beta*x <= EPSILON and its backward is gamma*beta*y/(alpha + beta*x) "
             "without dy (activation_functions.hpp ActivationFunction_Power{,_Diff}); hiprim's power is (alpha + beta*x)^gamma and dy*f'(x)");
  if (mode == ActivMode::abs && dirs.bwd)
    c.cannot(who + " -m 5 (abs) backward: MIOpen gives dx = -dy at x = 0 (x > 0 ? 1 : -1, ActivationFunction_Abs_Diff); hiprim's f'(0) = 0");
  const bool reads_y = mode == ActivMode::logistic || mode == ActivMode::tanh || mode == ActivMode::elu;
  if (dirs.bwd && !dirs.fwd && reads_y)
    c.cannot(who + " -F " + std::to_string(forw) + ": the backward runs without the forward, on MIOpenDriver's y buffer of zeros, and MIOpen's " +
             std::string(activ_mode_name(mode)) + " backward reads y; hiprim's bwd computes dy*f'(x) from x");
  const OpShape shape = nchw_shape(c, f, dtype);
  c.finish_checks();

  Translation t = start_translation(c, f);
  ActivProblem p;
  p.shape = shape;
  p.mode = mode;
  const std::string unused = set_activ_coefficients(f, mode, {"alpha", "beta", "gamma"}, {alpha, beta, gamma}, p.alpha, p.beta, p.gamma);
  if (!unused.empty()) t.notes.push_back(std::string(activ_mode_name(mode)) + " does not use " + unused + " (MIOpen ignores them too)");
  if (!c.opts.activation.empty()) t.notes.push_back("--activation is hiprim's: MIOpenDriver selects the mode by -m only");
  if (dirs.bwd && !dirs.fwd)
    t.notes.push_back("-F " + std::to_string(forw) + ": MIOpenDriver runs the backward without the forward; " + std::string(activ_mode_name(mode)) +
                      "'s backward reads only x and dy, as hiprim's");
  for (ActivDir d : {ActivDir::fwd, ActivDir::bwd}) {
    if ((d == ActivDir::fwd && !dirs.fwd) || (d == ActivDir::bwd && !dirs.bwd)) continue;
    ActivProblem q = p;
    q.dir = d;
    t.ops.push_back(make_op_problem(q));
  }
  check_hiprim_rules(c, t);
  return t;
}

Translation translate_softmax(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, softmax_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");
  const float alpha = static_cast<float>(f.real("alpha")), beta = static_cast<float>(f.real("beta"));
  const int algo = f.integer("algorithm"), mode = f.integer("mode");
  if (algo < 0 || algo > 2) reject(who + ": -a " + f.str("algorithm") + ": MIOpen's softmax algorithms are 0 fast, 1 accurate, 2 log");
  if (mode != 0 && mode != 1) reject(who + ": -m " + f.str("mode") + ": MIOpen's softmax modes are 0 instance, 1 channel");
  const int forw = f.integer("forw");
  const Directions dirs = main_directions(forw);
  if (alpha != 1.0f || beta != 0.0f)
    c.cannot(who + ": -A " + f.str("alpha") + " -B " + f.str("beta") + ": MIOpen computes y = alpha*softmax(x) + beta*y (dx likewise); hiprim's "
             "softmax has alpha 1, beta 0 only");
  const OpShape shape = nchw_shape(c, f, dtype);
  c.finish_checks();

  Translation t = start_translation(c, f);
  SoftmaxProblem p;
  p.shape = shape;
  p.algo = static_cast<SoftmaxAlgo>(algo);
  p.mode = mode == 0 ? SoftmaxMode::instance : SoftmaxMode::channel;
  if (algo == 0) t.notes.push_back("-a 0 (fast): MIOpen does not subtract the row maximum; hiprim's fast equals accurate (the same function)");
  if (dirs.bwd && !dirs.fwd)
    t.notes.push_back("-F " + std::to_string(forw) + ": MIOpenDriver runs the backward without the forward; its y is an input, as in hiprim's bwd");
  for (SoftmaxDir d : {SoftmaxDir::fwd, SoftmaxDir::bwd}) {
    if ((d == SoftmaxDir::fwd && !dirs.fwd) || (d == SoftmaxDir::bwd && !dirs.bwd)) continue;
    SoftmaxProblem q = p;
    q.dir = d;
    t.ops.push_back(make_op_problem(q));
  }
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
