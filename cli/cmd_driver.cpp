// The MIOpenDriver front end's subcommands: `hiprim <MIOpenDriver command> <its flags>` (conv,
// convfp16, bnorm, poolfp16, ...) and `hiprim driver <line>` / `hiprim driver --file F`. Thin: the
// meaning of a line is cli/miopen/translation.hpp's; this file prints notes and refusals (exit 2)
// and runs the problems with the conformance runner.
#include <cstdio>
#include <fstream>
#include <map>

#include "cli/commands.hpp"
#include "cli/miopen/translation.hpp"
#include "cli/options.hpp"
#include "cli/run_command.hpp"
#include "core/error.hpp"
#include "core/primitives.hpp"

namespace hiprim::cli {
namespace {

void print_notes(const mdriver::Translation& t) {
  for (auto& n : t.notes) std::fprintf(stderr, "hiprim: note: %s\n", n.c_str());
}

// Runs an accepted translation (or prints its problems); a refusal throws InputError (exit 2).
int run_result(const mdriver::Result& r, const std::string& command) {
  if (!r.ok()) {
    if (r.refused->kind == mdriver::RefusalKind::help) {
      std::printf("%s", mdriver::help_text(command).c_str());
      return 0;
    }
    throw InputError(std::string(mdriver::refusal_kind_name(r.refused->kind)) + ": " + r.refused->reason);
  }
  const mdriver::Translation& t = *r.accepted;
  print_notes(t);
  if (t.hiprim.print_problem) {
    for (auto& s : t.problem_strings()) std::printf("%s\n", s.c_str());
    return 0;
  }
  RunCommandFlags o;
  o.solver = t.hiprim.solver;
  o.report = t.hiprim.report;
  o.dump = t.hiprim.dump;
  o.run.seed = t.hiprim.seed;
  o.run.fill = t.hiprim.fill;
  o.run.no_determinism = t.hiprim.no_determinism_check;
  std::vector<OpProblemPtr> problems;
  for (auto& p : t.conv) problems.push_back(make_op_problem(p));
  problems.insert(problems.end(), t.ops.begin(), t.ops.end());
  return run_problems(problems, o);
}

// `hiprim driver --file F`: every line translated, nothing run; one line of output per input line.
int translate_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--file " + path + ": cannot read it");
  std::string line;
  std::map<std::string, int> counts;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const mdriver::Result r = mdriver::translate_line(line);
    if (r.ok()) {
      std::string probs;
      for (auto& s : r.accepted->problem_strings()) probs += (probs.empty() ? "" : " | ") + s;
      std::printf("%d: ok: %s\n", n, probs.c_str());
      ++counts["ok"];
    } else {
      std::printf("%d: %s: %s\n", n, std::string(mdriver::refusal_kind_name(r.refused->kind)).c_str(), r.refused->reason.c_str());
      ++counts[std::string(mdriver::refusal_kind_name(r.refused->kind))];
    }
  }
  std::string summary;
  for (auto& [k, v] : counts) summary += (summary.empty() ? "" : ", ") + k + " " + std::to_string(v);
  std::fprintf(stderr, "hiprim driver: %s\n", summary.empty() ? "no lines" : summary.c_str());
  return 0;
}

CLI::App* add_passthrough(CLI::App& app, const std::string& name, const std::string& help) {
  auto* sub = app.add_subcommand(name, help);
  sub->prefix_command();  // every argument goes to the MIOpenDriver parser, in order
  sub->set_help_flag();   // -h / --help are MIOpenDriver's
  return sub;
}

}  // namespace

Command add_conv(CLI::App& app) {
  auto* sub = add_passthrough(app, "conv", "MIOpenDriver conv (convfp16, convbfp16): its flags and defaults; --print-problem, --solver, ...");
  return [sub] { return run_result(mdriver::translate("conv", sub->remaining()), "conv"); };
}

std::string miopen_commands_footer() {
  std::string list;
  for (const std::string& f : mdriver::command_families()) {
    if (f == "CBAInfer") continue;
    list += (list.empty() ? "" : ", ") + f;
    for (const std::string& c : mdriver::command_forms(f)) list += ", " + c;
  }
  return "MIOpenDriver commands (" + list + ") take MIOpenDriver's flags with MIOpenDriver's meaning; `hiprim <command> --help` "
         "lists them. See README.md.";
}

std::vector<std::pair<CLI::App*, Command>> add_miopen_commands(CLI::App& app) {
  std::vector<std::pair<CLI::App*, Command>> out;
  // Listed with a line: conv's and every primitive's base command (core/primitives.def), naming its
  // dtype forms; the forms and the dropped names are accepted but not listed.
  std::map<std::string, std::string> shown;
  for (const std::string& f : mdriver::command_families()) {
    std::string forms;
    for (const std::string& c : mdriver::command_forms(f)) forms += (forms.empty() ? " (" : ", ") + c;
    shown[f] = "MIOpenDriver " + f + forms + (forms.empty() ? "" : ")");
  }
  shown["dropout"] += ": refused, MIOpen's XORWOW mask; --philox runs hiprim's";
  for (const std::string& name : mdriver::command_names()) {
    if (name == "conv") continue;  // add_conv
    auto it = shown.find(name);
    auto* sub = add_passthrough(app, name, it != shown.end() ? it->second : "MIOpenDriver " + name);
    if (it == shown.end() || name == "CBAInfer") sub->group("");
    out.emplace_back(sub, [sub, name] { return run_result(mdriver::translate(name, sub->remaining()), name); });
  }
  for (const std::string& name : mdriver::refused_command_names()) {
    auto* sub = add_passthrough(app, name, "MIOpenDriver " + name + " (refused with the reason)");
    sub->group("");
    out.emplace_back(sub, [sub, name] { return run_result(mdriver::translate(name, sub->remaining()), name); });
  }
  auto* drv = app.add_subcommand("driver", "A whole MIOpenDriver line (or a MIOPEN_ENABLE_LOGGING_CMD line) as one argument or words; "
                                           "--file F translates every line of F without running");
  drv->prefix_command();
  drv->set_help_flag("--help-driver", "Print this help message and exit");
  out.emplace_back(drv, [drv] {
    std::vector<std::string> words = drv->remaining();
    if (words.size() == 2 && words[0] == "--file") return translate_file(words[1]);
    if (words.empty()) throw InputError("hiprim driver: give an MIOpenDriver line, e.g. hiprim driver \"MIOpenDriver conv -n 2 -c 8\"");
    // Words with blanks (a quoted line, then maybe hiprim's options) are split like a shell would.
    std::vector<std::string> all;
    for (auto& w : words) {
      if (w.find_first_of(" \t") == std::string::npos) {
        all.push_back(w);
        continue;
      }
      for (auto& x : mdriver::split_words(w)) all.push_back(x);
    }
    const mdriver::Result r = mdriver::translate_words(all);
    return run_result(r, r.ok() ? r.accepted->command : std::string());
  });
  return out;
}

}  // namespace hiprim::cli
