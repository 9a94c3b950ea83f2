// Subcommands of the hiprim CLI. Each add_* registers its options on the app and returns the
// function to call after parsing; that function returns the process exit code
// (0 all passed, 1 a case failed or errored, 2 bad input).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace hiprim::cli {

using Command = std::function<int()>;

Command add_conv(CLI::App& app);
Command add_repro(CLI::App& app);
Command add_check(CLI::App& app);
Command add_list(CLI::App& app);

}  // namespace hiprim::cli
