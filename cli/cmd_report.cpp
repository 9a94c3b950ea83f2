// hiprim report html|markdown|merge|diff|summary|validate: views and tools over JSON reports.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "fuzz/campaign.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"
#include "report/report_diff.hpp"
#include "report/report_render.hpp"

namespace hiprim::cli {

namespace {

// Reads a report and checks it against the schema; InputError naming the path and the first violation.
nlohmann::json read_report(const std::string& path) {
  auto r = verify::read_json(path);
  auto errs = verify::check_report_schema(r);
  if (!errs.empty())
    throw InputError("'" + path + "' is not a valid hiprim report (" + std::to_string(errs.size()) + " violations; first: " + errs.front() + ")");
  return r;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw RuntimeError("cannot open '" + path + "' for writing");
  f << text;
  if (!f.flush()) throw RuntimeError("failed writing '" + path + "'");
}

// REPORT.json -> REPORT<ext>
std::string beside(const std::string& report, const std::string& ext) {
  std::filesystem::path p(report);
  return p.replace_extension(ext).string();
}

}  // namespace

Command add_report(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "Render, merge, compare and validate JSON reports (conformance or performance)");
  sub->require_subcommand(1);
  struct Flags {
    std::string input, output, old_path, new_path, max_slowdown = "5%";
    std::vector<std::string> inputs;
    bool no_charts = false;
  };
  auto f = std::make_shared<Flags>();
  auto* html = sub->add_subcommand("html", "Render a report to one self-contained HTML file (tables, inline SVG charts)");
  html->add_option("report", f->input, "Report JSON")->required();
  html->add_option("-o,--output", f->output, "HTML file (default: the report's path with .html)");
  auto* md = sub->add_subcommand("markdown", "Render a report as Markdown (stdout, or -o FILE with the charts as FILE-stem.<chart>.svg)");
  md->add_option("report", f->input, "Report JSON")->required();
  md->add_option("-o,--output", f->output, "Markdown file (default: stdout, without charts)");
  md->add_flag("--no-charts", f->no_charts, "Do not write or link the SVG charts");
  auto* merge = sub->add_subcommand("merge", "Concatenate the cases of same-kind reports; recompute summary (and totals)");
  merge->add_option("reports", f->inputs, "Report JSON files")->required()->expected(1, -1);
  merge->add_option("-o,--output", f->output, "Merged report")->required();
  auto* diff = sub->add_subcommand("diff", "Regressions from OLD to NEW: exit 1 if a passed case no longer passes or a timed case slowed "
                                           "beyond --max-slowdown; 0 otherwise; 2 on bad input");
  diff->add_option("old", f->old_path, "Baseline report")->required();
  diff->add_option("new", f->new_path, "New report")->required();
  diff->add_option("--max-slowdown", f->max_slowdown, "Allowed growth of a median time, percent (5% or 5)")->capture_default_str();
  auto* summary = sub->add_subcommand("summary", "Print a report's status counts (and totals of a performance report)");
  summary->add_option("report", f->input, "Report JSON")->required();
  auto* validate = sub->add_subcommand("validate", "Check reports against the schema; exit 1 listing the violations");
  validate->add_option("reports", f->inputs, "Report JSON files")->required()->expected(1, -1);

  return [=] {
    if (html->parsed()) {
      const auto r = read_report(f->input);
      const std::string out = f->output.empty() ? beside(f->input, ".html") : f->output;
      write_text(out, verify::render_html(r));
      std::printf("html: %s\n", out.c_str());
      return 0;
    }
    if (md->parsed()) {
      const auto r = read_report(f->input);
      if (f->output.empty()) {
        std::fputs(verify::render_markdown(r).c_str(), stdout);
        return 0;
      }
      std::vector<std::string> links;
      if (!f->no_charts) {
        const std::filesystem::path out(f->output);
        for (const auto& c : verify::report_charts(r)) {
          const std::string file = out.stem().string() + "." + c.name + ".svg";
          write_text((out.parent_path() / file).string(), c.svg);
          links.push_back(file);
        }
      }
      write_text(f->output, verify::render_markdown(r, links));
      std::printf("markdown: %s (%zu charts)\n", f->output.c_str(), links.size());
      return 0;
    }
    if (merge->parsed()) {
      std::vector<nlohmann::json> reports;
      for (const auto& p : f->inputs) reports.push_back(verify::read_json(p));
      auto merged = verify::merge_reports(reports, f->inputs, command_line());
      if (merged.value("kind", "") == "fuzz") {  // shard reports: sum the campaign counters too
        std::vector<nlohmann::json> campaigns;
        for (const auto& r : reports)
          if (r.contains("campaign")) campaigns.push_back(r["campaign"]);
        merged["campaign"] = fuzz::merge_fuzz_campaigns(campaigns);
      }
      verify::write_json(f->output, merged);
      std::printf("merged %zu reports, %zu cases: %s\n", reports.size(), merged["cases"].size(), f->output.c_str());
      return 0;
    }
    if (diff->parsed()) {
      const double limit = verify::parse_slowdown(f->max_slowdown);
      const auto d = verify::diff_reports(verify::read_json(f->old_path), verify::read_json(f->new_path), limit);
      for (const auto& n : d.notes) std::printf("note: %s\n", n.c_str());
      for (const auto& r : d.regressions) std::printf("REGRESSION: %s\n", r.c_str());
      std::printf("%d cases compared (%d timed in both): %zu regressions\n", d.compared, d.timed, d.regressions.size());
      return d.regressions.empty() ? 0 : 1;
    }
    if (summary->parsed()) {
      const auto r = read_report(f->input);
      const auto& s = r["summary"];
      std::printf("%s report, %s: %lld cases: %lld passed, %lld failed, %lld mistrusted, %lld unsupported, %lld error\n",
                  r["kind"].get<std::string>().c_str(), r["created"].get<std::string>().c_str(),
                  static_cast<long long>(s["total"].get<std::int64_t>()), static_cast<long long>(s["passed"].get<std::int64_t>()),
                  static_cast<long long>(s["failed"].get<std::int64_t>()), static_cast<long long>(s["mistrusted"].get<std::int64_t>()),
                  static_cast<long long>(s["unsupported"].get<std::int64_t>()), static_cast<long long>(s["error"].get<std::int64_t>()));
      if (const auto not_run = verify::count_not_run_no_device(r["cases"]); not_run > 0)
        std::printf("%lld cases did not run: no GPU device or no GPU backend; the GPU solvers were NOT checked\n", static_cast<long long>(not_run));
      if (r["kind"] == "performance") std::printf("%s", verify::totals_text(r["totals"]).c_str());
      return 0;
    }
    int bad = 0;  // validate
    for (const auto& p : f->inputs) {
      auto errs = verify::check_report_schema(verify::read_json(p));
      std::printf("%s: %s\n", p.c_str(), errs.empty() ? "valid" : (std::to_string(errs.size()) + " violations").c_str());
      for (const auto& e : errs) std::printf("  %s\n", e.c_str());
      bad += errs.empty() ? 0 : 1;
    }
    return bad ? 1 : 0;
  };
}

}  // namespace hiprim::cli
