// Console output shared by the subcommands: one line per case, the summary table, exit codes.
#pragma once
#include <string>
#include <vector>

#include "verify/report.hpp"

namespace hiprim::cli {

void print_case_line(const verify::CaseRecord& r);
void print_summary(const std::vector<verify::CaseRecord>& cases);
int exit_code_for(const std::vector<verify::CaseRecord>& cases);
// Writes the conformance report when path is non-empty and prints where it went.
void write_report_if_asked(const std::string& path, const std::vector<verify::CaseRecord>& cases);
// The process's command line (recorded in reports), set once by main.
void set_command_line(int argc, char** argv);
const std::string& command_line();

}  // namespace hiprim::cli
