// MIOpenDriver ctc -> CtcProblem. MIOpenDriver has ctc only (CTCDriver<float>; no ctcfp16).
// Sources: driver/ctc_driver.hpp (AddCmdLineArgs; GetandSetData: T = the largest input length,
// C = num_class + 1, the blank and apply_softmax_layer == 1; GetInputLengthsFromCmdLine: integers
// separated by ',' or ' ', those past the batch ignored, missing ones padded with the last;
// RunForwardGPU computes the losses and the gradients, RunBackwardGPU is empty), driver/main.cpp
// (forward when F & 1 or F == 0), src/ocl/ctcocl.cpp (its checks: an input length above T "Wrong
// input time step", a label id >= C "Wrong label id", label length + repeats > input length "Error:
// label length exceeds input time step").
// The per-sequence lengths are data in hiprim (the fp32 tensors label_lengths, input_lengths, filled by
// verify/ctc_fill.cpp), as the labels and probabilities are in MIOpenDriver (random): the line's
// lengths give T and L (the buffer widths) and are checked by MIOpen's rules, and a note says that
// hiprim's fill picks its own lengths within them.
#include <algorithm>
#include <sstream>

#include "cli/miopen/commands.hpp"
#include "core/ctc_problem.hpp"

namespace hiprim::mdriver {
namespace {

// GetInputLengthsFromCmdLine, with MIOpenDriver's undefined case (no integer at all) rejected.
std::vector<long long> sequence_lengths(const std::string& flag, const std::string& text, long long batch, const std::string& who) {
  std::vector<long long> v;
  std::stringstream ss(text);
  int e = 0;
  while (static_cast<long long>(v.size()) < batch && ss >> e) {
    if (ss.peek() == ',' || ss.peek() == ' ') ss.ignore();
    v.push_back(e);
  }
  if (v.empty()) reject(who + ": " + flag + " '" + text + "' holds no integer (MIOpenDriver pads the batch with in_len[-1])");
  while (static_cast<long long>(v.size()) < batch) v.push_back(v.back());
  return v;
}

}  // namespace

std::vector<FlagSpec> ctc_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "1", false, U::problem, "1 or 0 (or odd): the loss and its gradient (one run); 2 and other even values: nothing (refused)"},
      {"apply_softmax_layer", 'm', "1", false, U::problem, "1: probs are logits (softmax over C first); else probabilities"},
      {"blank_label_id", 'b', "0", false, U::problem, "the blank's class id (in [0, num_class])"},
      {"input_len", 'k', "20", false, U::problem, "input lengths per sequence (',' or ' ' separated): T = the largest"},
      {"label_len", 'l', "5", false, U::problem, "label lengths per sequence: L = the largest (each <= its input length)"},
      {"num_class", 'c', "9", false, U::problem, "classes without the blank: C = num_class + 1"},
      {"batchsize", 'n', "4", false, U::problem, "N"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"verify_path", 'v', "1", false, U::run, "MIOpenDriver's CPU verification path (hiprim's reference is its own)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"dump_output", 'o', "0", false, U::data, "dump buffers"},
      {"ctcalgo", 'a', "0", false, U::run, "0 deterministic, 1 non-deterministic: hiprim's solver is deterministic either way"},
  };
}

Translation translate_ctc(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, ctc_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  const int forw = f.integer("forw");
  (void)f.integer("time");
  const long long batch = f.integer("batchsize"), num_class = f.integer("num_class");
  const int blank = f.integer("blank_label_id"), softmax = f.integer("apply_softmax_layer"), algo = f.integer("ctcalgo");
  require_length("-n", batch, c.command);
  require_length("-c + 1 (C)", num_class + 1, c.command);
  const auto in_len = sequence_lengths("-k", f.str("input_len"), batch, who);
  const auto label_len = sequence_lengths("-l", f.str("label_len"), batch, who);
  const long long T = *std::max_element(in_len.begin(), in_len.end());
  require_length("-k (the largest input length, T)", T, c.command);
  for (long long b = 0; b < batch; ++b)
    if (label_len[b] > in_len[b])  // repeats only add to the label length
      reject(who + ": sequence " + std::to_string(b) + ": label length " + std::to_string(label_len[b]) + " > input length " +
             std::to_string(in_len[b]) + " (MIOpen: \"Error: label length exceeds input time step\")");
  if (softmax != 0 && softmax != 1) f.note("-m " + std::to_string(softmax) + " is not 1: MIOpenDriver applies no softmax (probabilities)");
  if (algo != 0) f.note("-a " + std::to_string(algo) + ": hiprim's ctc solver is deterministic; the problem is the same");
  const Directions dirs = main_directions(forw);
  if (!dirs.fwd)
    c.cannot(who + ": -F " + std::to_string(forw) + " runs only CTCDriver::RunBackwardGPU, which is empty (the loss and the gradient "
             "are both RunForwardGPU's): nothing to run; use -F 1");
  if (blank < 0 || blank > num_class)
    c.cannot(who + ": -b " + std::to_string(blank) + " is not a class id in [0, " + std::to_string(num_class) +
             "] (MIOpen does not check it; hiprim's blank must be one of the C classes)");
  const long long min_in = *std::min_element(in_len.begin(), in_len.end());
  const long long min_label = *std::min_element(label_len.begin(), label_len.end());
  if (min_in < 1) c.cannot(who + ": an input length " + std::to_string(min_in) + " < 1 (hiprim's data rules: 1 <= T_b <= T)");
  if (min_label < 0) c.cannot(who + ": a label length " + std::to_string(min_label) + " < 0");
  c.finish_checks();

  Translation t = start_translation(c, f);
  CtcProblem p;
  p.dtype = dtype;
  p.t = T;
  p.n = batch;
  p.c = num_class + 1;
  p.l = std::max<long long>(1, *std::max_element(label_len.begin(), label_len.end()));
  p.blank = blank;
  p.softmax = softmax == 1;
  t.notes.push_back("ctc: the line's lengths give T = " + std::to_string(p.t) + " and L = " + std::to_string(p.l) +
                    "; hiprim's fill draws each sequence's input length in [1, T] and label length in [0, L] (as MIOpenDriver draws "
                    "its labels and probabilities), so the sequences' own lengths are not the line's");
  t.ops.push_back(make_op_problem(p));
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
