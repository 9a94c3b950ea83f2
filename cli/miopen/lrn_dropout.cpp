// MIOpenDriver lrn, lrnfp16 -> LrnProblem per direction; dropout, dropoutfp16 -> refused (MIOpen's
// XORWOW mask), or with hiprim's --philox the DropoutProblem of the same shape, rate and seed.
// Sources: driver/lrn_driver.hpp (AddCmdLineArgs, ParseCmdLineArgs: do_backward = F == 0 || F == 2,
// SetLRNDescriptorFromCmdLineArgs: -m within | cross, AllocateBuffersAndCopy: with -F 2 the scale
// workspace is random), src/lrn_api.cpp LogCmdLRN (prints the mode number);
// driver/dropout_driver.hpp (AddCmdLineArgs, GetInputTensorLengthsFromCmdLine, GetandSetData),
// driver/dropout_gpu_emulator.hpp (the mask: rocrand XORWOW states, one per work-item of a grid
// sized by the device's GetImage3dMaxWidth).
#include <algorithm>
#include <sstream>

#include "cli/miopen/commands.hpp"
#include "core/dropout_problem.hpp"
#include "core/lrn_problem.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> lrn_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "0 fwd and bwd, 1 fwd only (2: refused, the backward on a random scale)"},
      {"batchsize", 'n', "100", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
      {"lrnN", 'N', "5", false, U::problem, "window size n (odd)"},
      {"alpha", 'A', "0.001", false, U::problem, "alpha"},
      {"beta", 'B', "0.75", false, U::problem, "beta"},
      {"lrnK", 'K', "1.0", false, U::problem, "k"},
      {"iter", 'i', "10", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"printconv", 'P', "1", false, U::run, "print the dimensions"},
      {"mode", 'm', "within", false, U::problem, "within | cross (across channels)"},
      // Removed from MIOpenDriver's lrn in 2016 (9f1f75c "fixed lrn driver"); accepted, ignored.
      {"back", 'b', "1", false, U::run, "removed from MIOpenDriver in 2016: ignored (-F selects the directions)"},
  };
}

std::vector<FlagSpec> dropout_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "0 fwd and bwd, 1 fwd, 2 bwd"},
      {"input_dim", 'd', "4", false, U::problem, "the tensor's lengths, comma-separated, up to 5"},
      {"dropout", 'p', "0.5", false, U::problem, "rate"},
      {"seed_low", 'l', "0", false, U::problem, "low 32 bits of the seed"},
      {"seed_high", 'm', "0", false, U::problem, "high 32 bits of the seed"},
      {"use_mask", 'e', "0", false, U::problem, "1: the mask already in the reserve space"},
      {"gen_file", 'f', "0", false, U::run, "write PRNG skip-ahead files"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"dump_output", 'o', "0", false, U::data, "dump buffers"},
  };
}

Translation translate_lrn(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, lrn_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  const int forw = f.integer("forw");
  (void)f.integer("time");
  if (f.given("back")) f.note("lrn -b (\"Do Backward\") was removed from MIOpenDriver in 2016; ignored, -F selects the directions");
  const long long n = f.integer("batchsize"), ch = f.integer("in_channels"), h = f.integer("in_h"), w = f.integer("in_w");
  const int size = f.integer("lrnN");
  const double alpha = f.real("alpha"), beta = f.real("beta"), k = f.real("lrnK");
  const std::string mode = f.str("mode");
  if (mode != "within" && mode != "cross") {
    std::string why = who + ": -m '" + mode + "': MIOpenDriver accepts within | cross (\"Incorrect LRN Mode\")";
    if (mode == "0" || mode == "1")
      why += "; MIOpen's LogCmdLRN prints the mode number (" + mode + " = " + (mode == "0" ? "within" : "cross") + "): write -m " +
             (mode == "0" ? "within" : "cross");
    reject(why);
  }
  require_length("-n", n, c.command);
  require_length("-c", ch, c.command);
  require_length("-H", h, c.command);
  require_length("-W", w, c.command);
  const Directions dirs = main_directions(forw);
  const bool do_backward = forw == 0 || forw == 2;
  if (dirs.bwd && !do_backward)
    reject(who + ": -F " + std::to_string(forw) + " runs the backward without the scale workspace it allocates only for -F 0 or 2 "
           "(lrn_driver.hpp: do_backward = F == 0 || F == 2)");
  if (forw == 2)
    c.cannot(who + ": -F 2 runs the backward on a random scale workspace (lrn_driver.hpp AllocateBuffersAndCopy), not the scale of x; "
             "hiprim's lrn bwd recomputes the scale from x (use -F 0)");
  const bool channels_last = hiprim_layout_option(c, f, 2);
  c.finish_checks();

  Translation t = start_translation(c, f);
  LrnProblem p;
  p.mode = mode == "within" ? LrnMode::within : LrnMode::across;
  p.shape.dtype = dtype;
  p.shape.n = n;
  p.shape.c = ch;
  p.shape.in = {h, w};
  p.shape.channels_last = channels_last;
  p.size = size;
  p.alpha = alpha;
  p.beta = beta;
  p.k = k;
  for (LrnDir d : {LrnDir::fwd, LrnDir::bwd}) {
    if ((d == LrnDir::fwd && !dirs.fwd) || (d == LrnDir::bwd && !dirs.bwd)) continue;
    LrnProblem q = p;
    q.dir = d;
    t.ops.push_back(make_op_problem(q));
  }
  check_hiprim_rules(c, t);
  return t;
}

Translation translate_dropout(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, dropout_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  (void)f.integer("time");
  // GetInputTensorLengthsFromCmdLine: integers separated by ',' or ' ', at most 5.
  std::vector<long long> lens;
  {
    std::stringstream ss(f.str("input_dim"));
    int e = 0, count = 0;
    while (ss >> e) {
      if (count++ >= 5) {
        f.note("MIOpenDriver: \"Only support up to 5D-tensor dropout\": the lengths after the fifth are dropped");
        break;
      }
      if (ss.peek() == ',' || ss.peek() == ' ') ss.ignore();
      lens.push_back(e);
    }
  }
  if (lens.empty()) reject(who + ": -d '" + f.str("input_dim") + "' gives no lengths (MIOpen: \"Number of dimensions must be > 1\")");
  for (auto l : lens) require_length("-d", l, c.command);
  const double rate = static_cast<float>(f.real("dropout"));
  const unsigned long long lo = static_cast<unsigned long long>(std::max(f.integer("seed_low"), 0));
  const unsigned long long hi = static_cast<unsigned long long>(std::max(f.integer("seed_high"), 0));
  const std::uint64_t seed = hi << 32 | lo;
  const bool use_mask = f.integer("use_mask") != 0;
  const int forw = f.integer("forw");
  const Directions dirs = main_directions(forw);
  if (c.from_log && f.given("input_dim") && lens.size() == 1)
    f.note("MIOpen's LogCmdDropout prints -d as the NUMBER of dimensions; MIOpenDriver reads it as the lengths (a 1-d tensor of " +
           std::to_string(lens[0]) + ")");
  if (!c.opts.philox)
    c.cannot(who + ": MIOpen's dropout mask comes from rocrand XORWOW states, one per work-item of a grid sized by the device "
             "(dropout_gpu_emulator.hpp: GetImage3dMaxWidth), so it is not a function of (seed, element) that hiprim can reproduce; "
             "hiprim's dropout drops element i by a Philox4x32-10 word of (seed, i). Add --philox to run that dropout with this shape, rate and seed");
  if (c.opts.philox && use_mask) c.cannot(who + ": -e 1 uses a mask already in the reserve space; hiprim's dropout recomputes its mask");
  std::vector<long long> five = lens;  // rank 1..5 as [N, C, (D,) H, W]: leading 1s keep the logical order
  while (five.size() < 4) five.insert(five.begin(), 1);
  const bool channels_last = hiprim_layout_option(c, f, static_cast<int>(five.size()) - 2);
  c.finish_checks();

  Translation t = start_translation(c, f);
  t.notes.push_back("--philox: hiprim's Philox-mask dropout, not MIOpen's XORWOW mask (a different set of dropped elements)");
  DropoutProblem p;
  p.shape.dtype = dtype;
  p.shape.n = five[0];
  p.shape.c = five[1];
  p.shape.in = Dims(five.begin() + 2, five.end());
  p.shape.channels_last = channels_last;
  p.rate = rate;
  p.seed = seed;
  for (DropoutDir d : {DropoutDir::fwd, DropoutDir::bwd}) {
    if ((d == DropoutDir::fwd && !dirs.fwd) || (d == DropoutDir::bwd && !dirs.bwd)) continue;
    DropoutProblem q = p;
    q.dir = d;
    t.ops.push_back(make_op_problem(q));
  }
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
