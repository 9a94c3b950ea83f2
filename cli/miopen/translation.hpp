// The MIOpenDriver front end's result: an MIOpenDriver command line becomes the hiprim problems
// MIOpenDriver would run (one per direction, in MIOpenDriver's order) plus run settings, or a
// refusal with the reason. Pure translation (no solvers, no I/O); cli/cmd_driver.cpp runs it.
//
// Sources of truth (ROCm/MIOpen, develop of 2024-10): driver/main.cpp (which directions run),
// driver/driver.hpp (ParseBaseArg: command names), driver/dm_*.cpp (command -> data types),
// driver/InputFlags.cpp (parsing), driver/<op>_driver.hpp (AddCmdLineArgs, ParseCmdLineArgs,
// GetandSetData: defaults and meanings), src/*_api.cpp LogCmd* (the MIOPEN_ENABLE_LOGGING_CMD format).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/op_problem.hpp"

namespace hiprim::mdriver {

// hiprim's own long options, accepted where the MIOpenDriver command defines no flag of that name.
struct HiprimOptions {
  std::string dtype;   // --dtype: data dtype for a command without a dtype suffix
  std::string layout;  // --layout (conv, pool, activ, softmax, lrn, tensorop: nchw|nhwc|ncdhw|ndhwc)
  std::string solver = "*", fill, report, dump;
  std::uint64_t seed = 1;
  bool seed_given = false;
  bool print_problem = false, no_determinism_check = false;
  bool philox = false;                       // dropout: run hiprim's Philox-mask dropout instead
  std::optional<double> epsilon, momentum;   // bnorm: override MIOpenDriver's 1e-3 and 1/(i+1)
  std::string activation;                    // activ: a hiprim mode by name (gelu, silu, ...)
  std::string dims, b_dims;                  // tensorop: rank 1..5 and a broadcast B
};

struct Translation {
  std::string command;              // as written, e.g. "convfp16"
  std::vector<ConvProblem> conv;    // conv commands: in run order
  std::vector<OpProblemPtr> ops;    // the other commands
  std::vector<std::string> notes;   // what is ignored or differs (stderr, "hiprim: note: ...")
  HiprimOptions hiprim;
  // The canonical problem strings, one per line (what --print-problem prints).
  std::vector<std::string> problem_strings() const;
};

// Why a line does not run.
enum class RefusalKind {
  rejected,       // MIOpenDriver itself rejects the line (or MIOpen rejects the descriptor)
  inexpressible,  // MIOpenDriver runs it, hiprim cannot express that meaning (dtype, mode, ...)
  unsupported,    // a primitive hiprim does not have (rnn, gemm, ...) or fusion
  help,           // -h / --help / -?: MIOpenDriver prints its flags and runs nothing
};
std::string_view refusal_kind_name(RefusalKind k);  // "rejected", "inexpressible", ...

struct Refusal {
  RefusalKind kind = RefusalKind::rejected;
  std::string reason;
  std::string command;  // the command word of the line ("" when none was found)
};

struct Result {
  std::optional<Translation> accepted;
  std::optional<Refusal> refused;
  bool ok() const { return accepted.has_value(); }
};

// `hiprim <command> <args...>`: the command (conv, convfp16, bnorm, ...) and its arguments.
Result translate(std::string_view command, const std::vector<std::string>& args);
// `hiprim driver <line>`: a whole line, optionally starting with MIOpenDriver or a path to it
// (./bin/MIOpenDriver, MIOpenDriver.exe), or a pasted MIOPEN_ENABLE_LOGGING_CMD line
// ("MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 ...").
Result translate_line(std::string_view line);
// The same for a line already split into words.
Result translate_words(const std::vector<std::string>& words);
// MIOpenDriver's flags of a command with their defaults and hiprim's meaning, and hiprim's own
// options (what -h / --help print).
std::string help_text(std::string_view command);
// Splits a line like a POSIX shell would for plain words ('..', "..", backslash), no expansion.
std::vector<std::string> split_words(std::string_view line);
// Every MIOpenDriver command name this front end translates (conv, convfp16, bnorm, ...).
const std::vector<std::string>& command_names();
// The command families: conv, every primitive of core/primitives.def in its order, CBAInfer.
std::vector<std::string> command_families();
// A family's other command names that MIOpenDriver still parses (dtype suffixes: convfp16, ...),
// shortest first.
std::vector<std::string> command_forms(const std::string& family);
// The other names of MIOpenDriver commands (rnn, gemm, ...) and of its loggers (reducefp, ...):
// recognized and refused with the reason.
std::vector<std::string> refused_command_names();

// Thrown inside the translators; translate() turns it into Result::refused.
struct Refuse {
  RefusalKind kind;
  std::string reason;
};
[[noreturn]] inline void reject(std::string why) { throw Refuse{RefusalKind::rejected, std::move(why)}; }
[[noreturn]] inline void inexpressible(std::string why) { throw Refuse{RefusalKind::inexpressible, std::move(why)}; }

}  // namespace hiprim::mdriver
