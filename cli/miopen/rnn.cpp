// MIOpenDriver rnn, rnnfp16 -> RnnProblem, one per direction of work MIOpenDriver runs. Source
// (ROCm/MIOpen 2d1fd997, the revision of tests/cli/miopen_driver_flags.tsv): driver/dm_rnn.cpp (rnn:
// float, rnnfp16: half; -f is never read), driver/rnn_driver.hpp (AddCmdLineArgs: the flags and defaults below; GetInputTensorLengthsFromCmdLine:
// -n is a list of batch sizes per step, truncated to -k entries and padded with its last;
// SetRNNDescriptorFromCmdLineArgs: -m relu|tanh|lstm|gru, -b, -r, -p, -a each 0 or 1 else "Incorrect
// ... Mode" and exit; -q nonzero: miopenRNNIOWithPadding; RunBackwardGPU: backward data when F & 2 or F == 0, backward weights when
// F & 4 or F == 0, nothing backward when F == 1), driver/main.cpp (forward when F & 1 or F == 0).
// Every flag is read; what hiprim cannot run (variable batch sizes per step, skip input mode,
// dropout between layers) is refused naming the flag, never run as another problem.
#include <sstream>

#include "cli/miopen/commands.hpp"
#include "core/rnn_problem.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> rnn_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "0 fwd, bwd-data and bwd-weights; bit 1 fwd, bit 2 bwd-data, bit 4 bwd-weights"},
      {"num_layer", 'l', "1", false, U::problem, "layers"},
      {"seq_len", 'k', "1", false, U::problem, "seq (steps T)"},
      {"bidirection", 'r', "0", false, U::problem, "0 uni, 1 bidir"},
      {"batchsize", 'n', "4", false, U::problem, "n; a list (batch size per step) must be constant: variable lengths are refused"},
      {"hid_h", 'H', "32", false, U::problem, "hidden"},
      {"in_h", 'W', "32", false, U::problem, "input"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"dump_output", 'o', "0", false, U::data, "dumps (hiprim: --dump)"},
      {"bias", 'b', "", false, U::problem, "0 (or empty) nobias, 1 bias"},
      {"mode", 'm', "tanh", false, U::problem, "relu, tanh, lstm, gru"},
      {"inputmode", 'p', "0", false, U::problem, "0 linear; 1 skip: refused (not implemented)"},
      {"use_padding", 'q', "0", false, U::problem, "0 packed; nonzero padded IO: the same data with one batch size for all steps"},
      {"rnnalgo", 'a', "0", false, U::problem, "0 default, 1 fundamental: the same outputs (hiprim picks its solver)"},
      {"fwdtype", 'c', "0", false, U::problem, "0 training, 1 inference: the same outputs (hiprim's one fwd)"},
      {"datatype", 'f', "1", false, U::run, "not read by MIOpenDriver's rnn (the command, rnn or rnnfp16, sets the dtype)"},
      {"use_dropout", 'U', "0", false, U::problem, "dropout between layers: refused when it would drop (-U 1, -P > 0, -l > 1)"},
      {"dropout", 'P', "0.0", false, U::problem, "dropout rate (with -U 1)"},
      {"seed_low", 'L', "0", false, U::problem, "dropout seed (with -U 1)"},
      {"seed_high", 'M', "0", false, U::problem, "dropout seed (with -U 1)"},
  };
}

namespace {

// -n as GetInputTensorLengthsFromCmdLine reads it: integers separated by ',' or ' ', at most seq_len
// of them, the rest padded with the last one.
std::vector<long long> batch_list(const std::string& s, long long seq, std::vector<std::string>& notes) {
  std::vector<long long> v;
  std::string text = s;
  for (char& ch : text)
    if (ch == ',') ch = ' ';
  std::istringstream in(text);
  long long e = 0;
  while (in >> e) {
    if (static_cast<long long>(v.size()) >= seq) {
      notes.push_back("-n " + s + " lists more batch sizes than -k " + std::to_string(seq) + " steps: MIOpenDriver truncates the list");
      break;
    }
    v.push_back(e);
  }
  while (!v.empty() && static_cast<long long>(v.size()) < seq) v.push_back(v.back());
  return v;
}

}  // namespace

Translation translate_rnn(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, rnn_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  const std::string mode = f.str("mode");
  if (mode != "relu" && mode != "tanh" && mode != "lstm" && mode != "gru")
    reject(who + ": -m " + mode + ": \"Incorrect RNN Mode\" (relu, tanh, lstm, gru)");
  auto zero_one = [&](const char* flag, const char* letter, const char* what) {
    const int v = f.integer(flag);
    if (v != 0 && v != 1) reject(who + ": -" + letter + " " + f.str(flag) + ": \"Incorrect " + what + "\" (0 or 1)");
    return v == 1;
  };
  const bool bias = zero_one("bias", "b", "bias Mode"), bidir = zero_one("bidirection", "r", "direction Mode");
  const bool skip = zero_one("inputmode", "p", "input Mode");
  (void)zero_one("rnnalgo", "a", "RNN algorithm");
  const int fwdtype = f.integer("fwdtype");
  const bool padded = f.integer("use_padding") != 0;
  const long long layers = f.integer("num_layer"), seq = f.integer("seq_len"), hidden = f.integer("hid_h"), input = f.integer("in_h");
  require_length("-l", layers, c.command);
  require_length("-k", seq, c.command);
  require_length("-H", hidden, c.command);
  require_length("-W", input, c.command);
  std::vector<std::string> notes;
  const std::vector<long long> batches = batch_list(f.str("batchsize"), seq, notes);
  if (batches.empty()) reject(who + ": -n " + f.str("batchsize") + ": no batch size");
  for (long long b : batches) require_length("-n", b, c.command);
  const int forw = f.integer("forw");
  const bool run_fwd = (forw & 1) != 0 || forw == 0, run_bwd_data = forw != 1 && ((forw & 2) != 0 || forw == 0),
             run_bwd_weights = forw != 1 && ((forw & 4) != 0 || forw == 0);
  if (!run_fwd && !run_bwd_data && !run_bwd_weights) reject(who + ": -F " + f.str("forw") + " runs neither the forward nor a backward pass");
  // What hiprim cannot run.
  for (long long b : batches)
    if (b != batches.front())
      c.cannot(who + " -n " + f.str("batchsize") + ": batch sizes that change over the steps (variable sequence lengths) are not implemented; "
               "hiprim's rnn has one batch size for every step");
  if (skip) c.cannot(who + " -p 1: skip input mode (miopenRNNskip: no input matrix W on layer 0) is not implemented");
  const bool dropout = f.integer("use_dropout") != 0;
  const double rate = f.real("dropout");
  (void)f.integer("seed_low"), (void)f.integer("seed_high");
  if (dropout && rate != 0.0 && layers > 1)
    c.cannot(who + " -U 1 -P " + f.str("dropout") + ": dropout between the layers is not implemented");
  c.finish_checks();

  Translation t = start_translation(c, f);
  for (auto& n : notes) t.notes.push_back(n);
  if (dropout && (rate == 0.0 || layers == 1)) t.notes.push_back("-U 1 drops nothing here (rate 0 or one layer): run without dropout");
  if (fwdtype != 0) t.notes.push_back("-c " + f.str("fwdtype") + ": inference and training forwards compute the same outputs; hiprim's fwd is both");
  if (f.given("rnnalgo")) t.notes.push_back("-a selects MIOpen's algorithm; the outputs are the same (hiprim picks its own solver)");
  if (padded) t.notes.push_back("-q " + f.str("use_padding") + ": padded IO with one batch size for every step is the packed layout");
  if (f.given("datatype")) t.notes.push_back("-f is not read by MIOpenDriver's rnn: the command sets the dtype");
  RnnProblem p;
  p.mode = mode == "relu" ? RnnMode::relu : mode == "tanh" ? RnnMode::tanh : mode == "lstm" ? RnnMode::lstm : RnnMode::gru;
  p.dtype = dtype;
  p.layers = layers, p.hidden = hidden, p.input = input, p.seq = seq, p.n = batches.front();
  p.bidirectional = bidir, p.bias = bias;
  for (RnnDir d : {RnnDir::fwd, RnnDir::bwd_data, RnnDir::bwd_weights}) {
    if ((d == RnnDir::fwd && !run_fwd) || (d == RnnDir::bwd_data && !run_bwd_data) || (d == RnnDir::bwd_weights && !run_bwd_weights)) continue;
    RnnProblem q = p;
    q.dir = d;
    t.ops.push_back(make_op_problem(q));
  }
  if (run_bwd_data || run_bwd_weights)
    t.notes.push_back("MIOpen's backward passes read the training forward's reserve space; hiprim's recompute the forward from x");
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
