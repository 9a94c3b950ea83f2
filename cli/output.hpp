// Console output shared by the subcommands: one line per case, the summary table, exit codes.
#pragma once
#include <string>
#include <vector>

#include "verify/report.hpp"

namespace hiprim::cli {

// Whether the case failed, errored or was mistrusted (its line gets a repro line; the exit code is 1).
bool is_bad(const verify::CaseRecord& r);
void print_case_line(const verify::CaseRecord& r);
// The table of statuses by solver, then the not_run_line() of the cases that did not run for want of a GPU.
void print_summary(const std::vector<verify::CaseRecord>& cases);
// 1 when a case failed, errored or was mistrusted, or (require_gpu, --require-gpu) when a case did not
// run for want of a GPU, which is then said on stderr; else 0.
int exit_code_for(const std::vector<verify::CaseRecord>& cases, bool require_gpu = false);
// "56 cases did not run: no GPU device: <why>; the GPU solvers (conv.igemm.wgmma) were NOT checked":
// `count` things (`noun`: "cases", "solvers") of the device `solvers` kept from running by `reason`
// (verify::backend_unavailable's); `verb`: what did not happen to them ("checked", "fuzzed").
std::string not_run_line(std::size_t count, const std::string& noun, const std::string& reason, const std::vector<std::string>& solvers,
                         const std::string& verb);
// The not_run_line() of the cases of `cases` that did not run for want of a GPU (verify::not_run_no_device); "" when none.
std::string not_run_line(const std::vector<verify::CaseRecord>& cases);
// With --require-gpu: says "hiprim: --require-gpu: <line>" on stderr and returns 1 when `line` is not
// empty; else returns 0.
int require_gpu_exit(bool require_gpu, const std::string& line);
// Writes the conformance report when path is non-empty and prints where it went.
void write_report_if_asked(const std::string& path, const std::vector<verify::CaseRecord>& cases);
// The process's command line (recorded in reports), set once by main.
void set_command_line(int argc, char** argv);
const std::string& command_line();
// The raw argv of set_command_line (argv[0] as given).
const std::vector<std::string>& command_args();

}  // namespace hiprim::cli
