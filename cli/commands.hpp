// Subcommands of the hiprim CLI. Each add_* registers its options on the app and returns the
// function to call after parsing; that function returns the process exit code
// (0 all passed, 1 a case failed or errored, 2 bad input).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace hiprim::cli {

using Command = std::function<int()>;

Command add_conv(CLI::App& app);     // cli/cmd_driver.cpp: MIOpenDriver conv
// Every other MIOpenDriver command (convfp16, bnorm, pool, ..., with their dtype suffixes) and
// `hiprim driver <line>` (cli/cmd_driver.cpp).
std::vector<std::pair<CLI::App*, Command>> add_miopen_commands(CLI::App& app);
Command add_repro(CLI::App& app);
Command add_check(CLI::App& app);
Command add_list(CLI::App& app);
Command add_bench(CLI::App& app);   // cli/cmd_bench.cpp
Command add_report(CLI::App& app);  // cli/cmd_report.cpp
Command add_fuzz(CLI::App& app);     // cli/cmd_fuzz.cpp
struct RunFlags;
// hiprim repro --special KIND: a fuzz case with special input values (cli/cmd_fuzz.cpp).
int run_special_repro(const std::string& problem, const std::string& solver_glob, const RunFlags& flags, const std::string& special,
                      const std::string& report);
// hiprim check --suite corpus [--corpus DIR]: the fuzz corpus replayed (embedded fuzz/corpus without DIR).
int run_corpus_check(const std::string& corpus_dir, const std::string& solver_glob, const std::string& report, bool verbose);

}  // namespace hiprim::cli
