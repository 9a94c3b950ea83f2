// hiprim: conformance checking of deep-learning primitives. See README.md for the subcommands.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/report.hpp"

int main(int argc, char** argv) {
  hiprim::cli::set_command_line(argc, argv);
  CLI::App app{"hiprim: deep-learning primitives, verified against a CPU reference"};
  app.require_subcommand(1);
  // The version and the build's provenance (cmake/provenance.cmake), so a device log names its build.
  const hiprim::verify::BuildProvenance prov = hiprim::verify::build_provenance();
  app.set_version_flag("--version", "hiprim 0.1.0 (build " + prov.describe + (prov.dirty ? ", diff sha256 " + prov.diff_sha256 : "") + ")");
  std::vector<std::pair<CLI::App*, hiprim::cli::Command>> cmds;
  auto reg = [&](hiprim::cli::Command (*add)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    auto cmd = add(app);
    cmds.emplace_back(app.get_subcommands({})[before], std::move(cmd));
  };
  reg(hiprim::cli::add_conv);
  reg(hiprim::cli::add_repro);
  reg(hiprim::cli::add_fusion);
  reg(hiprim::cli::add_check);
  reg(hiprim::cli::add_list);
  reg(hiprim::cli::add_fuzz);
  reg(hiprim::cli::add_bench);
  reg(hiprim::cli::add_report);
  reg(hiprim::cli::add_db);
  reg(hiprim::cli::add_find);
  reg(hiprim::cli::add_tune);
  reg(hiprim::cli::add_run);
  for (auto& c : hiprim::cli::add_miopen_commands(app)) cmds.push_back(std::move(c));
  app.footer(hiprim::cli::miopen_commands_footer());
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "hiprim: %s\nRun 'hiprim --help' for usage.\n", e.what());
    return 2;
  }
  try {
    for (auto& [sub, run] : cmds)
      if (sub->parsed()) return run();
  } catch (const hiprim::InputError& e) {
    std::fprintf(stderr, "hiprim: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hiprim: error: %s\n", e.what());
    return 1;
  }
  return 2;
}
