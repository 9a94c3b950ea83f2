// Subcommands of the hiprim CLI. Each add_* registers its options on the app and returns the
// function to call after parsing; that function returns the process exit code
// (0 all passed, 1 a case failed or errored, or with --require-gpu a GPU solver did not run for want
// of a GPU, 2 bad input).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <utility>
#include <vector>

namespace hiprim::cli {

using Command = std::function<int()>;

Command add_conv(CLI::App& app);     // cli/cmd_driver.cpp: MIOpenDriver conv
// Every other MIOpenDriver command (convfp16, bnorm, pool, ..., with their dtype suffixes) and
// `hiprim driver <line>` (cli/cmd_driver.cpp).
std::vector<std::pair<CLI::App*, Command>> add_miopen_commands(CLI::App& app);
// hiprim --help's footer: the MIOpenDriver command families and their dtype forms (the driver table).
std::string miopen_commands_footer();
Command add_repro(CLI::App& app);   // cli/cmd_repro.cpp
Command add_fusion(CLI::App& app);  // cli/cmd_repro.cpp: a fusion chain as words
Command add_check(CLI::App& app);   // cli/cmd_check.cpp (--suite corpus too)
Command add_list(CLI::App& app);    // cli/cmd_list.cpp
Command add_bench(CLI::App& app);   // cli/cmd_bench.cpp
Command add_report(CLI::App& app);  // cli/cmd_report.cpp
Command add_fuzz(CLI::App& app);    // cli/cmd_fuzz.cpp
Command add_db(CLI::App& app);      // cli/cmd_db.cpp: the tuning dbs
Command add_find(CLI::App& app);    // cli/cmd_find.cpp: Find into the find db
Command add_tune(CLI::App& app);    // cli/cmd_find.cpp: perf-config tuning into the perf db
Command add_run(CLI::App& app);     // cli/cmd_run.cpp: immediate mode's pick, run and verified

}  // namespace hiprim::cli
