// The entry points of the MIOpenDriver front end: command names (driver/driver.hpp ParseBaseArg,
// driver/dm_*.cpp), hiprim's own options on the line, whole lines and MIOPEN_ENABLE_LOGGING_CMD
// lines (src/include/miopen/logger.hpp MIOPEN_LOG_DRIVER_COMMAND:
// "<prefix>Command [<function>] ./bin/MIOpenDriver <args>").
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

#include "cli/miopen/commands.hpp"

namespace hiprim::mdriver {
namespace {

using Translator = Translation (*)(Context&, const std::vector<std::string>&);

struct CommandEntry {
  std::string family;
  DriverType type = DriverType::fp32;
  bool suffixed = false;
  DriverType param = DriverType::fp32, stats = DriverType::fp32;
  Translator translate = nullptr;
  std::string note;  // said when the command is used (e.g. dropped from ParseBaseArg)
};

const std::map<std::string, CommandEntry>& table() {
  using T = DriverType;
  static const std::map<std::string, CommandEntry> t = [] {
    std::map<std::string, CommandEntry> m;
    const std::string dropped = "MIOpenDriver's ParseBaseArg lost this name in July 2024 (#2883) while its driver (dm_*.cpp) is still built";
    m["conv"] = {"conv", T::fp32, false, T::fp32, T::fp32, translate_conv, ""};
    m["convfp16"] = {"conv", T::fp16, true, T::fp16, T::fp16, translate_conv, ""};
    m["convbfp16"] = {"conv", T::bf16, true, T::bf16, T::bf16, translate_conv, ""};
    m["convint8"] = {"conv", T::int8, true, T::int8, T::int8, translate_conv, ""};
    m["convfp8"] = {"conv", T::fp8, true, T::fp8, T::fp8, translate_conv, dropped};
    m["convbfp8"] = {"conv", T::bf8, true, T::bf8, T::bf8, translate_conv, dropped};
    m["CBAInfer"] = {"CBAInfer", T::fp32, false, T::fp32, T::fp32, translate_cbainfer, dropped};
    m["CBAInferfp16"] = {"CBAInfer", T::fp16, true, T::fp16, T::fp16, translate_cbainfer, dropped};
    // Every primitive of core/primitives.def: MIOpenDriver <name> (fp32 data) and <name>fp16.
#define HIPRIM_PRIMITIVE(name, fill)                                        \
  m[#name] = {#name, T::fp32, false, T::fp32, T::fp32, translate_##name, ""}; \
  m[#name "fp16"] = {#name, T::fp16, true, T::fp16, T::fp16, translate_##name, ""};
#define HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill)  // no MIOpenDriver command of its own
#include "core/primitives.def"
    // dm_bnorm.cpp: BatchNormDriver<Tgpu, Tref, Tmix>: x, y and scale/bias in Tgpu, the
    // statistics (and backward's dy, dx, dscale, dbias) in Tmix.
    m["bnormfp16fp32"] = {"bnorm", T::fp16, true, T::fp16, T::fp32, translate_bnorm, ""};
    m["bnormbfp16fp32"] = {"bnorm", T::bf16, true, T::bf16, T::fp32, translate_bnorm, ""};
    m["tensoropfp16"].note = dropped;
    m["reducefp64"] = {"reduce", T::fp64, true, T::fp64, T::fp64, translate_reduce, ""};
    m.erase("ctcfp16");  // driver.hpp ParseBaseArg: "ctc" only (CTCDriver<float>)
    return m;
  }();
  return t;
}

// MIOpenDriver commands of primitives hiprim does not have (driver.hpp ParseBaseArg).
const std::vector<std::string>& other_commands() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out = {"rnn_seq", "rnn_seqfp16", "gemm", "gemmfp16", "sum", "sumfp16", "sumbfp16",
                                    "adam", "adamfp16", "ampadam", "adamw", "adamwfp16", "ampadamw", "transformersadamw",
                                    "transformersadamwfp16", "transformersampadamw"};
    for (const char* base : {"layernorm", "groupnorm", "cat", "addlayernorm", "t5layernorm", "reduceextreme", "getitem",
                             "reducecalculation", "rope", "prelu", "kthvalue", "glu", "softmarginloss", "multimarginloss"})
      for (const char* sfx : {"", "fp16", "bfp16"}) out.push_back(std::string(base) + sfx);
    return out;
  }();
  return v;
}

// Names MIOpen's loggers print that MIOpenDriver has no driver for.
const std::map<std::string, std::string>& logger_only_names() {
  static const std::map<std::string, std::string> m = {
      {"bnormbfp16", "src/driver_arguments.cpp BnDataType prints it for bf16 x with bf16 statistics; MIOpenDriver has bnormbfp16fp32 only"},
      {"reducefp", "src/reducetensor_api.cpp LogCmdRedux prints it for fp32; MIOpenDriver's fp32 command is reduce"},
      {"reduceint", "LogCmdRedux prints it for int32 data; MIOpenDriver has reduce, reducefp16, reducefp64"},
      {"reduceint8", "LogCmdRedux prints it for int8 data; MIOpenDriver has reduce, reducefp16, reducefp64"},
      {"reducebfp16", "LogCmdRedux prints it for bf16 data; MIOpenDriver has reduce, reducefp16, reducefp64"},
      {"reducefp8", "LogCmdRedux prints it for fp8 data; MIOpenDriver has reduce, reducefp16, reducefp64"},
      {"reducebfp8", "LogCmdRedux prints it for bf8 data; MIOpenDriver has reduce, reducefp16, reducefp64"},
      {"???", "src/pooling_api.cpp prints it for a pooling dtype it cannot name"},
  };
  return m;
}

// hiprim options taking a value / not; `only` restricts one to a family.
struct HiprimOption {
  bool takes_value;
  std::string only;
};
const std::map<std::string, HiprimOption>& hiprim_options() {
  static const std::map<std::string, HiprimOption> m = {
      {"dtype", {true, ""}},        {"layout", {true, ""}},      {"solver", {true, ""}},       {"seed", {true, ""}},
      {"fill", {true, ""}},         {"report", {true, ""}},      {"dump", {true, ""}},         {"print-problem", {false, ""}},
      {"no-determinism-check", {false, ""}}, {"philox", {false, "dropout"}}, {"epsilon", {true, "bnorm"}},
      {"momentum", {true, "bnorm"}}, {"activation", {true, "activ"}}, {"dims", {true, "tensorop"}}, {"b_dims", {true, "tensorop"}},
  };
  return m;
}

double option_real(const std::string& name, const std::string& v) {
  bool clean = false;
  const double x = c_atof(v, &clean);
  if (!clean) reject("--" + name + " '" + v + "' is not a number");
  return x;
}

// Takes hiprim's options out of args, walking the line as InputFlags::Parse does (every
// MIOpenDriver flag consumes the next argument), so a value is never mistaken for an option.
std::vector<std::string> take_hiprim_options(const std::string& family, const std::vector<FlagSpec>& specs,
                                             const std::vector<std::string>& args, HiprimOptions& o) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      const std::string name = a.substr(2);
      const bool miopen_has = std::any_of(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.long_name == name; });
      auto it = hiprim_options().find(name);
      if (!miopen_has && it != hiprim_options().end()) {
        if (!it->second.only.empty() && it->second.only != family)
          reject("--" + name + " is hiprim's option for " + it->second.only + " only, not " + family);
        std::string v;
        if (it->second.takes_value) {
          if (i + 1 >= args.size()) reject("--" + name + " needs a value");
          v = args[++i];
        }
        if (name == "dtype") o.dtype = v;
        else if (name == "layout") o.layout = v;
        else if (name == "solver") o.solver = v;
        else if (name == "fill") {
          if (v != "exact" && v != "bounded") reject("--fill '" + v + "': expected exact or bounded");
          o.fill = v;
        } else if (name == "report") o.report = v;
        else if (name == "dump") o.dump = v;
        else if (name == "seed") {
          bool clean = false;
          const long long s = c_atoll(v, &clean);
          if (!clean || s < 0) reject("--seed '" + v + "' is not a non-negative integer");
          o.seed = static_cast<std::uint64_t>(s);
          o.seed_given = true;
        } else if (name == "print-problem") o.print_problem = true;
        else if (name == "no-determinism-check") o.no_determinism_check = true;
        else if (name == "philox") o.philox = true;
        else if (name == "epsilon") o.epsilon = option_real(name, v);
        else if (name == "momentum") o.momentum = option_real(name, v);
        else if (name == "activation") o.activation = v;
        else if (name == "dims") o.dims = v;
        else if (name == "b_dims") o.b_dims = v;
        continue;
      }
    }
    rest.push_back(a);
    // A MIOpenDriver flag: its value goes along unread (InputFlags::Parse takes the next argument).
    if (!a.empty() && a[0] == '-' && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  return rest;
}

Result run_translator(const std::string& command, const std::vector<std::string>& args, bool from_log, const std::string& log_fn) {
  Result r;
  try {
    if (command.empty()) reject("no MIOpenDriver command on the line");
    if (command == "--version") throw Refuse{RefusalKind::help, "MIOpenDriver --version prints MIOpen's version and runs nothing"};
    if (command == "-h" || command == "--help" || command == "-?")
      throw Refuse{RefusalKind::help, "MIOpenDriver " + command + " prints its usage (the command names) and runs nothing"};
    for (char ch : command)
      if (ch == '$') reject("'" + command + "' is an unexpanded shell variable, not an MIOpenDriver command");
    auto it = table().find(command);
    if (it == table().end()) {
      if (std::find(other_commands().begin(), other_commands().end(), command) != other_commands().end())
        throw Refuse{RefusalKind::unsupported, "MIOpenDriver " + command + " is a primitive hiprim does not have"};
      auto lo = logger_only_names().find(command);
      if (lo != logger_only_names().end())
        reject("MIOpenDriver has no command '" + command + "' (\"Invalid Base Input Argument\"): " + lo->second);
      reject("MIOpenDriver has no command '" + command + "' (\"FAILED: Invalid Base Input Argument\")");
    }
    const CommandEntry& e = it->second;
    Context c;
    c.command = command;
    c.family = e.family;
    c.type = e.type;
    c.suffixed = e.suffixed;
    c.param_type = e.param;
    c.stats_type = e.stats;
    c.from_log = from_log;
    c.log_function = log_fn;
    for (const auto& a : args)
      if (a.find("${") != std::string::npos || (a.size() > 1 && a[0] == '$'))
        reject("'" + a + "' is an unexpanded shell variable: MIOpenDriver sees what the shell expands it to");
    const std::vector<std::string> rest = take_hiprim_options(e.family, family_flags(e.family), args, c.opts);
    Translation t = e.translate(c, rest);
    if (!e.note.empty()) t.notes.insert(t.notes.begin(), command + ": " + e.note);
    r.accepted = std::move(t);
  } catch (const Refuse& x) {
    r.refused = Refusal{x.kind, x.reason, command};
  }
  return r;
}

bool is_driver_word(const std::string& w) {
  auto ends = [&](const std::string& s) { return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0; };
  return w == "MIOpenDriver" || ends("/MIOpenDriver") || ends("\\MIOpenDriver") || w == "MIOpenDriver.exe" || ends("/MIOpenDriver.exe") ||
         ends("\\MIOpenDriver.exe");
}

}  // namespace

std::vector<FlagSpec> family_flags(const std::string& family) {
  if (family == "conv") return conv_flags();
  if (family == "CBAInfer") return cbainfer_flags();
#define HIPRIM_PRIMITIVE(name, fill) \
  if (family == #name) return name##_flags();
#define HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill)  // no MIOpenDriver command of its own
#include "core/primitives.def"
  return {};
}

const std::vector<std::string>& command_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (auto& [name, e] : table()) out.push_back(name);
    return out;
  }();
  return v;
}

std::vector<std::string> command_families() {
  std::vector<std::string> out{"conv"};  // conv first, then the table's primitives in its order, then CBAInfer
#define HIPRIM_PRIMITIVE(name, fill) out.push_back(#name);
#define HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill)  // no MIOpenDriver command of its own
#include "core/primitives.def"
  out.push_back("CBAInfer");
  return out;
}

std::vector<std::string> command_forms(const std::string& family) {
  std::vector<std::string> out;
  for (auto& [name, e] : table())
    if (e.family == family && name != family) out.push_back(name);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
  return out;
}

std::vector<std::string> refused_command_names() {
  std::vector<std::string> out = other_commands();
  for (auto& [name, why] : logger_only_names())
    if (name != "???") out.push_back(name);
  return out;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quote) {
      if (ch == quote) quote = 0;
      else if (ch == '\\' && quote == '"' && i + 1 < line.size()) cur += line[++i];
      else cur += ch;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (ch == '\'' || ch == '"') quote = ch;
    else if (ch == '\\' && i + 1 < line.size()) cur += line[++i];
    else cur += ch;
  }
  if (in_word) out.push_back(cur);
  return out;
}

Result translate(std::string_view command, const std::vector<std::string>& args) {
  return run_translator(std::string(command), args, false, "");
}

Result translate_line(std::string_view line) { return translate_words(split_words(line)); }

Result translate_words(const std::vector<std::string>& w) {
  // A logging line: "... Command [LogCmdX] ./bin/MIOpenDriver conv ...".
  std::string log_fn;
  for (auto& x : w)
    if (x.size() > 2 && x.front() == '[' && x.back() == ']' && x.compare(1, 6, "LogCmd") == 0) log_fn = x.substr(1, x.size() - 2);
  std::size_t start = 0;
  bool found = false;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (is_driver_word(w[i])) {
      start = i + 1;
      found = true;
      break;
    }
  if (!found && !log_fn.empty()) {
    // A log line without the driver's path: the command follows the "[LogCmd...]" word.
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] == "[" + log_fn + "]") start = i + 1;
  } else if (!found) {
    // No driver word: the line starts with the command itself (or an environment assignment).
    while (start < w.size() && w[start].find('=') != std::string::npos && w[start][0] != '-') ++start;
  }
  // Shell operators end the MIOpenDriver arguments (a pasted "... -F 1 2>&1 | tee log").
  std::size_t stop = w.size();
  for (std::size_t i = start; i < w.size(); ++i) {
    const std::string& x = w[i];
    if (x == "|" || x == "||" || x == "&&" || x == ";" || x == "&" || x[0] == '>' || x[0] == '<' || x[0] == '|' ||
        x.rfind("2>", 0) == 0 || x.rfind("1>", 0) == 0 || x.rfind("&>", 0) == 0) {
      stop = i;
      break;
    }
  }
  if (start >= w.size()) {
    Result r;
    r.refused = Refusal{RefusalKind::rejected, "no MIOpenDriver command on the line (MIOpenDriver: \"Invalid Number of Input Arguments\")", ""};
    return r;
  }
  const std::string command = w[start];
  std::vector<std::string> args(w.begin() + static_cast<std::ptrdiff_t>(start) + 1, w.begin() + static_cast<std::ptrdiff_t>(stop));
  Result r = run_translator(command, args, !log_fn.empty(), log_fn);
  if (r.ok() && stop < w.size()) r.accepted->notes.push_back("the shell's '" + w[stop] + " ...' after the MIOpenDriver arguments is not part of the line");
  return r;
}

std::string help_text(std::string_view command) {
  auto it = table().find(std::string(command));
  if (it == table().end()) {
    std::string bases;
    for (const std::string& f : command_families()) bases += f + " ";
    return "MIOpenDriver commands known to hiprim: " + bases + "(and their dtype suffixes); `hiprim <command> --help` lists a command's flags\n";
  }
  std::string out = "hiprim " + std::string(command) + ": MIOpenDriver " + std::string(command) +
                    "'s flags (-x VALUE or --name VALUE; MIOpenDriver's defaults) and what hiprim makes of them\n";
  for (auto& s : family_flags(it->second.family)) {
    char line[160];
    std::snprintf(line, sizeof line, "  -%c  --%-20s %-18s ", s.short_name, s.long_name.c_str(),
                  s.default_value.empty() ? "(empty)" : s.default_value.c_str());
    out += line + s.meaning + "\n";
  }
  out += "hiprim's own options: --print-problem, --solver GLOB, --seed N, --fill exact|bounded, --report FILE, --dump DIR, "
         "--no-determinism-check, --dtype fp32|fp16|bf16 (commands without a dtype suffix), --layout nchw|nhwc|ncdhw|ndhwc "
         "(where the command has no layout flag)";
  const std::string fam = it->second.family;
  if (fam == "bnorm") out += ", --epsilon E, --momentum M";
  if (fam == "activ") out += ", --activation NAME";
  if (fam == "tensorop") out += ", --dims A,B,.., --b_dims A,B,..";
  if (fam == "dropout") out += ", --philox";
  return out + "\n";
}

}  // namespace hiprim::mdriver
