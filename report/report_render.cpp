#include "report/report_render.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/conv_problem.hpp"
#include "core/op_problem.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"
#include "report/report_svg.hpp"

namespace hiprim::verify {

using nlohmann::json;

namespace {

// ---- Document model ----

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
struct Block {
  enum class Kind { heading, text, code, table, chart } kind = Kind::text;
  int level = 2;
  std::string text;
  Table table;
  int chart = -1;  // index into report_charts()
};
using Doc = std::vector<Block>;

void heading(Doc& d, int level, const std::string& t) { d.push_back({Block::Kind::heading, level, t, {}, -1}); }
void para(Doc& d, const std::string& t) { d.push_back({Block::Kind::text, 0, t, {}, -1}); }
void code(Doc& d, const std::string& t) { d.push_back({Block::Kind::code, 0, t, {}, -1}); }
void table(Doc& d, Table t) { d.push_back({Block::Kind::table, 0, "", std::move(t), -1}); }
void chart(Doc& d, int i) { d.push_back({Block::Kind::chart, 0, "", {}, i}); }

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A JSON value as a table cell: numbers with f, null/missing as "-".
std::string cell(const json& o, const char* k, const char* f = "%.3g") {
  auto it = o.find(k);
  if (it == o.end() || it->is_null()) return "-";
  if (it->is_number()) return fmt(f, it->get<double>());
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

const json& empty_array() {
  static const json a = json::array();
  return a;
}

const json& at_or_null(const json& o, const char* k) {
  static const json null_value = nullptr;
  auto it = o.find(k);
  return it == o.end() ? null_value : *it;
}

double median(const json& owner) {
  const json& t = at_or_null(owner, "timing");
  return t.is_object() ? number_from_json(t["median_ms"]) : -1;
}

std::string machine_line(const json& r) {
  const json& m = at_or_null(r, "machine");
  if (!m.is_object()) return "";
  std::string s = "host " + cell(m, "host") + ", " + cell(m, "os") + ", " + cell(m, "cpu_cores", "%.0f") + " cores, git " + cell(m, "git_commit");
  const json& g = at_or_null(m, "gpu");
  if (g.is_object())
    s += "; GPU " + cell(g, "name") + " (cc " + cell(g, "compute_capability") + ", " + cell(g, "sm_count", "%.0f") +
         " SMs), driver " + cell(g, "driver_version") + ", runtime " + cell(g, "runtime_version");
  else
    s += "; no GPU";
  return s;
}

void summary_table(Doc& d, const json& r) {
  const json& s = at_or_null(r, "summary");
  Table t{{"total", "passed", "failed", "mistrusted", "unsupported", "error"}, {{}}};
  for (const auto& h : t.header) t.rows[0].push_back(cell(s, h.c_str(), "%.0f"));
  table(d, std::move(t));
}

// Cases that did not pass (unsupported ones grouped by solver and reason).
void problem_cases(Doc& d, const json& cases) {
  Table bad{{"status", "solver", "problem", "reason", "repro"}, {}};
  std::map<std::pair<std::string, std::string>, int> unsupported;
  for (const json& c : cases) {
    const std::string st = c.value("status", "");
    if (st == "unsupported")
      ++unsupported[{c.value("solver", ""), c.value("reason", "")}];
    else if (st != "passed")
      bad.rows.push_back({st, c.value("solver", ""), c.value("problem", ""), c.value("reason", ""), c.value("repro", "")});
  }
  heading(d, 2, "Cases that did not pass");
  if (const std::int64_t not_run = count_not_run_no_device(cases); not_run > 0)
    para(d, std::to_string(not_run) + " cases did not run: no GPU device or no GPU backend (reason below); the GPU solvers were NOT checked.");
  if (bad.rows.empty()) para(d, "None: every case passed or was unsupported.");
  else table(d, std::move(bad));
  if (unsupported.empty()) return;
  heading(d, 3, "Unsupported (the solver refused the problem, or no GPU could run it)");
  Table u{{"solver", "reason", "cases"}, {}};
  for (auto& [k, n] : unsupported) u.rows.push_back({k.first, k.second, std::to_string(n)});
  table(d, std::move(u));
}

void conformance_body(Doc& d, const json& cases) {
  struct PerSolver {
    std::map<std::string, int> n;
    double worst_ratio = 0;
  };
  std::map<std::string, PerSolver> by;
  for (const json& c : cases) {
    PerSolver& s = by[c.value("solver", "")];
    ++s.n[c.value("status", "")];
    const json& m = at_or_null(c, "metrics");
    if (c.value("status", "") == "passed" && m.is_object() && m.contains("worst_ratio"))
      s.worst_ratio = std::max(s.worst_ratio, number_from_json(m["worst_ratio"]));
  }
  heading(d, 2, "By solver");
  Table t{{"solver", "passed", "failed", "mistrusted", "unsupported", "error", "worst err/bound (passed)"}, {}};
  for (auto& [name, s] : by) {
    std::vector<std::string> row{name};
    for (const char* st : {"passed", "failed", "mistrusted", "unsupported", "error"}) row.push_back(std::to_string(s.n[st]));
    row.push_back(fmt("%.3g", s.worst_ratio));
    t.rows.push_back(std::move(row));
  }
  table(d, std::move(t));
}

// ---- Performance ----

using GroupKey = std::tuple<std::string, std::string, std::string>;  // dtype, layout, dir

GroupKey group_of(const std::string& problem) {
  const BenchGroup g = bench_group(problem);
  return {g.dtype, g.layout, g.dir};
}

// A chart file-name stem: spaces (in op groups such as "bnorm fwd-train") become '_'.
std::string stem(std::string s) {
  for (char& c : s)
    if (c == ' ') c = '_';
  return s;
}

// Problems in report order, grouped; per problem its cases.
std::map<GroupKey, std::vector<std::vector<const json*>>> problems_by_group(const json& cases) {
  std::map<GroupKey, std::vector<std::vector<const json*>>> out;
  std::map<std::string, std::pair<GroupKey, std::size_t>> where;
  for (const json& c : cases) {
    const std::string p = c.value("problem", "");
    auto it = where.find(p);
    if (it == where.end()) {
      GroupKey g = group_of(p);
      out[g].emplace_back();
      it = where.emplace(p, std::make_pair(g, out[g].size() - 1)).first;
    }
    out[it->second.first][it->second.second].push_back(&c);
  }
  return out;
}

const json* best_of(const std::vector<const json*>& cs) {
  for (const json* c : cs)
    if (c->value("best", false)) return c;
  return nullptr;
}

std::string peer_name(const json& r) {
  const json& p = at_or_null(r, "peer");
  return p.is_object() ? (p.value("name", "peer") == "cudnn" ? "cuDNN" : p.value("name", "peer")) : "peer";
}

// One op group (memory-bound: bandwidth against the copy ceiling): a table and a bandwidth chart.
void op_group(Doc& d, const GroupKey& g, const std::vector<std::vector<const json*>>& problems, const std::string& pn,
              double copy_gbps, std::vector<Chart>* charts) {
  const auto& [dt, layout, dir] = g;
  std::vector<BarRow> bars;
  Table t{{"problem", "count", "best solver", "median ms", "min-max ms", "MB moved", "GB/s", "% of copy", pn}, {}};
  for (const auto& cs : problems) {
    const json& first = *cs.front();
    const json* b = best_of(cs);
    const json& pr = at_or_null(first, "peer");
    const std::string label = short_problem(first.value("problem", ""));
    const std::int64_t n = first.value("count", std::int64_t{1});
    const double gbps = b && (*b)["gbps"].is_number() ? (*b)["gbps"].get<double>() : -1;
    std::string bar_label;  // the chart's margin is narrow: without bnorm's eps and momentum
    std::istringstream words(label);
    for (std::string w; words >> w;)
      if (w.rfind("eps", 0) != 0 && w.rfind("momentum", 0) != 0) bar_label += (bar_label.empty() ? "" : " ") + w;
    bars.push_back({n != 1 ? bar_label + " (x" + std::to_string(n) + ")" : bar_label, gbps, copy_gbps > 0 ? copy_gbps : -1});
    const json& pt = b ? at_or_null(*b, "timing") : json();
    t.rows.push_back({label, cell(first, "count", "%.0f"), b ? (*b)["solver"].get<std::string>() : "none passed",
                      b ? fmt("%.4f", median(*b)) : "-",
                      pt.is_object() ? fmt("%.4f", number_from_json(pt["min_ms"])) + "-" + fmt("%.4f", number_from_json(pt["max_ms"])) : "-",
                      fmt("%.2f", number_from_json(first["bytes"]) * 1e-6), b ? cell(*b, "gbps", "%.0f") : "-",
                      b && (*b)["fraction_of_copy_ceiling"].is_number() ? fmt("%.1f", 100 * (*b)["fraction_of_copy_ceiling"].get<double>()) : "-",
                      pr.is_object() ? pr.value("status", "") : "-"});
  }
  if (charts) {
    charts->push_back({"bandwidth_" + dt + "_" + layout + "_" + stem(dir), "Bandwidth per problem: " + dt + " " + layout + " " + dir,
                       svg_bars("Achieved bandwidth, " + dt + " " + layout + " " + dir + " (higher is better)",
                                {"hiprim (best solver)", "device copy (ceiling)", "GB/s (bytes moved / median time)", "GB/s", "%.0f"}, bars)});
    chart(d, static_cast<int>(charts->size()) - 1);
  }
  table(d, std::move(t));
}

void performance_body(Doc& d, const json& r, std::vector<Chart>* charts) {
  const json& settings = at_or_null(r, "settings");
  const json& ceil = at_or_null(r, "ceilings");
  const json& peer = at_or_null(r, "peer");
  const std::string pn = peer_name(r);
  heading(d, 2, "Settings");
  if (settings.is_object()) {
    Table t{{"setting", "value"}, {}};
    for (auto& [k, v] : settings.items()) t.rows.push_back({k, v.is_string() ? v.get<std::string>() : v.dump()});
    table(d, std::move(t));
  }
  heading(d, 2, "Ceilings (measured at the start of the run)");
  Table ct{{"ceiling", "value", "how"}, {}};
  const json& copy = ceil.is_object() ? at_or_null(ceil, "copy") : ceil;
  if (copy.is_object()) ct.rows.push_back({"device copy", cell(copy, "gbps", "%.0f") + " GB/s", cell(copy, "method")});
  if (ceil.is_object() && at_or_null(ceil, "gemm").is_object())
    for (auto& [dt, g] : ceil["gemm"].items())
      ct.rows.push_back({"GEMM " + dt, cell(g, "tflops", "%.1f") + " TFLOP/s",
                         "best of hiprim gemm() " + cell(g, "hiprim_gemm_tflops", "%.1f") + " and cuDNN 1x1 conv " +
                             cell(g, "cudnn_tflops", "%.1f") + " (" + cell(g, "cudnn_algo") + ") at " + cell(g, "shape")});
  if (ct.rows.empty()) para(d, "Not measured.");
  else table(d, std::move(ct));
  heading(d, 2, "Peer");
  if (!peer.is_object()) para(d, "No peer (--peer none).");
  else if (!peer.value("available", false)) para(d, pn + " unavailable: " + peer.value("reason", ""));
  else para(d, pn + " " + cell(peer, "version", "%.0f") + " from " + cell(peer, "library") + ". " + cell(peer, "math") + ". " +
                   cell(peer, "selection") + ". Check: " + cell(peer, "check") + ".");

  heading(d, 2, "Suite totals (sum over layers of count x median)");
  Table tt{{"dtype", "layout", "dir", "problems", "layers", "hiprim ms", "GB/s", pn + " ms", pn + " time / hiprim time"}, {}};
  for (const json& t : at_or_null(r, "totals").is_array() ? r["totals"] : json::array()) {
    auto ms = [&](const char* k, const char* miss) {
      if (t[miss] == t["problems"] || t[k].get<double>() == 0) return std::string("-");  // none timed (ops have no peer)
      return fmt("%.3f", t[k].get<double>()) + (t[miss].get<std::int64_t>() > 0 ? " (partial: " + std::to_string(t[miss].get<std::int64_t>()) + " missing)" : "");
    };
    tt.rows.push_back({cell(t, "dtype"), cell(t, "layout"), cell(t, "dir"), cell(t, "problems", "%.0f"), cell(t, "layers", "%.0f"),
                       ms("hiprim_ms", "hiprim_missing"), cell(t, "gbps", "%.0f"), ms("peer_ms", "peer_missing"),
                       cell(t, "speedup_vs_peer", "%.2f")});
  }
  table(d, std::move(tt));
  // Runs stopped by --time-limit: their totals cover fewer layers than the suite.
  json sources = r.contains("merged_from") ? r["merged_from"] : json::array({settings.is_object() ? settings : json::object()});
  for (const json& src : sources)
    if (src.is_object() && src.contains("problems_run") && src.contains("problems_planned") &&
        src["problems_run"] != src["problems_planned"])
      para(d, "Partial run" + (src.contains("name") ? " (" + src["name"].get<std::string>() + ")" : std::string()) + ": " +
                  src["problems_run"].dump() + " of " + src["problems_planned"].dump() +
                  " problems (stopped by --time-limit); its totals cover only those.");

  const json& cases = at_or_null(r, "cases").is_array() ? r["cases"] : empty_array();
  const auto groups = problems_by_group(cases);  // pointers into r: cases must outlive groups
  std::map<std::string, std::vector<RoofPoint>> roof;  // per dtype
  const double copy_gbps = copy.is_object() && copy["gbps"].is_number() ? copy["gbps"].get<double>() : 0;
  for (auto& [g, problems] : groups) {
    const auto& [dt, layout, dir] = g;
    heading(d, 2, dt + " " + layout + " " + dir);
    if (first_token(problems.front().front()->value("problem", "")) != "conv") {
      op_group(d, g, problems, pn, copy_gbps, charts);
      continue;
    }
    std::vector<BarRow> bars;
    Table t{{"layer", "count", "best solver", "median ms", "min-max ms", "TFLOP/s", "% GEMM ceil", "GB/s", "% copy",
             pn + " algo", pn + " ms", pn + " check", pn + " time / hiprim time"}, {}};
    for (const auto& cs : problems) {
      const json& first = *cs.front();
      const json* b = best_of(cs);
      const json& pr = at_or_null(first, "peer");
      const std::string label = short_problem(first.value("problem", ""));
      const std::int64_t n = first.value("count", std::int64_t{1});
      BarRow row{n > 1 ? label + " (x" + std::to_string(n) + ")" : label, b ? median(*b) : -1, pr.is_object() ? median(pr) : -1};
      bars.push_back(row);
      if (b) roof[dt].push_back({label + " " + dir, number_from_json((*b)["intensity"]), number_from_json((*b)["tflops"]), false});
      if (pr.is_object() && pr.contains("tflops") && pr["tflops"].is_number())
        roof[dt].push_back({label + " " + dir + " (" + pn + ")", number_from_json(first["intensity"]), pr["tflops"].get<double>(), true});
      const json& pt = b ? at_or_null(*b, "timing") : json();
      t.rows.push_back({label, cell(first, "count", "%.0f"), b ? (*b)["solver"].get<std::string>() : "none passed",
                        b ? fmt("%.4f", median(*b)) : "-",
                        pt.is_object() ? fmt("%.4f", number_from_json(pt["min_ms"])) + "-" + fmt("%.4f", number_from_json(pt["max_ms"])) : "-",
                        b ? cell(*b, "tflops", "%.2f") : "-", b ? fmt("%.1f", 100 * (*b).value("fraction_of_gemm_ceiling", 0.0)) : "-",
                        b ? cell(*b, "gbps", "%.0f") : "-", b ? fmt("%.1f", 100 * (*b).value("fraction_of_copy_ceiling", 0.0)) : "-",
                        pr.is_object() ? (pr.value("algo", "") + " " + pr.value("math", "")) : "-",
                        pr.is_object() && median(pr) > 0 ? fmt("%.4f", median(pr)) : (pr.is_object() ? pr.value("status", "") : "-"),
                        pr.is_object() && pr.contains("check") && pr["check"].is_object()
                            ? pr["check"].value("status", "") + " (" + cell(pr["check"], "worst_ratio", "%.2g") + ")" : "-",
                        b ? cell(*b, "speedup_vs_peer", "%.2f") : "-"});
    }
    if (charts) {
      charts->push_back({"time_" + dt + "_" + layout + "_" + stem(dir), "Median time per layer: " + dt + " " + layout + " " + dir,
                         svg_time_bars("Median time per layer, " + dt + " " + layout + " " + dir + " (lower is better)", pn, bars)});
      chart(d, static_cast<int>(charts->size()) - 1);
    }
    table(d, std::move(t));
  }
  if (charts && !roof.empty()) {
    heading(d, 2, "Rooflines");
    for (auto& [dt, pts] : roof) {
      const double gemm = ceil.is_object() && ceil.contains("gemm") && ceil["gemm"].contains(dt) && ceil["gemm"][dt]["tflops"].is_number()
                              ? ceil["gemm"][dt]["tflops"].get<double>() : 0;
      const double bw = copy.is_object() && copy["gbps"].is_number() ? copy["gbps"].get<double>() : 0;
      charts->push_back({"roofline_" + dt, "Roofline " + dt, svg_roofline("Roofline, " + dt + " (measured ceilings)", pn, gemm, bw, pts)});
      chart(d, static_cast<int>(charts->size()) - 1);
    }
  }
  heading(d, 2, "Every timed solver");
  Table all{{"problem", "solver", "status", "median ms", "min ms", "max ms", "runs", "TFLOP/s", "GB/s", "best"}, {}};
  for (const json& c : cases) {
    const json& t = at_or_null(c, "timing");
    if (!t.is_object()) continue;
    all.rows.push_back({c.value("problem", ""), c.value("solver", ""), c.value("status", ""), cell(t, "median_ms", "%.4f"),
                        cell(t, "min_ms", "%.4f"), cell(t, "max_ms", "%.4f"), cell(t, "runs", "%.0f"), cell(c, "tflops", "%.2f"),
                        cell(c, "gbps", "%.0f"), c.value("best", false) ? "yes" : ""});
  }
  table(d, std::move(all));
  Table dis{{"problem", "disagreement"}, {}};
  for (const json& c : cases)
    if (c.contains("peer_disagreement") && c["peer_disagreement"].is_string())
      dis.rows.push_back({c.value("problem", ""), c["peer_disagreement"].get<std::string>()});
  heading(d, 2, "Disagreements between hiprim, " + pn + " and the reference");
  if (dis.rows.empty()) para(d, "None.");
  else table(d, std::move(dis));
}

Doc build_doc(const json& r, std::vector<Chart>* charts) {
  Doc d;
  const std::string kind = r.value("kind", "unknown");
  heading(d, 1, "hiprim " + kind + " report");
  para(d, "Created " + r.value("created", "?") + ". " + machine_line(r) + ".");
  code(d, r.value("command", ""));
  heading(d, 2, "Summary");
  summary_table(d, r);
  const json cases = r.value("cases", json::array());
  if (kind == "performance") performance_body(d, r, charts);
  else conformance_body(d, cases);
  problem_cases(d, cases);
  return d;
}

std::string md_cell(std::string s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

}  // namespace

std::string short_problem(const std::string& problem) {
  std::istringstream in(problem);
  std::string tok, out;
  std::string n;
  int i = 0;
  const bool op = first_token(problem) != "conv";
  while (in >> tok) {
    if (op && (i++ < 2 || parse_dtype(tok) || tok == "nchw" || tok == "nhwc" || tok == "ncdhw" || tok == "ndhwc"))
      continue;  // an op's group (op and first token), dtype and layout
    if (!op && i++ < 4 && (tok == "conv" || tok == "fwd" || tok == "bwd-data" || tok == "bwd-weights" || parse_dtype(tok) ||
                    tok == "nchw" || tok == "nhwc" || tok == "ncdhw" || tok == "ndhwc"))
      continue;
    if (tok == "g1" || tok == "dil1x1" || tok == "dil1x1x1" || tok == "pad0x0" || tok == "pad0x0x0" || tok == "str1x1" ||
        tok == "str1x1x1")
      continue;
    if (tok[0] == 'n' && tok.size() > 1 && std::isdigit(static_cast<unsigned char>(tok[1]))) {
      n = tok;
      continue;
    }
    out += (out.empty() ? "" : " ") + tok;
  }
  return n.empty() ? out : out + " " + n;
}

std::vector<Chart> report_charts(const json& report) {
  std::vector<Chart> charts;
  if (report.value("kind", "") == "performance") build_doc(report, &charts);
  return charts;
}

std::string render_markdown(const json& report, const std::vector<std::string>& chart_links) {
  std::vector<Chart> charts;
  const Doc d = build_doc(report, chart_links.empty() ? nullptr : &charts);
  std::string o;
  for (const Block& b : d) {
    switch (b.kind) {
      case Block::Kind::heading: o += std::string(static_cast<std::size_t>(b.level), '#') + " " + b.text + "\n\n"; break;
      case Block::Kind::text: o += b.text + "\n\n"; break;
      case Block::Kind::code: o += "```\n" + b.text + "\n```\n\n"; break;
      case Block::Kind::chart:
        if (b.chart >= 0 && static_cast<std::size_t>(b.chart) < chart_links.size())
          o += "![" + charts[static_cast<std::size_t>(b.chart)].title + "](" + chart_links[static_cast<std::size_t>(b.chart)] + ")\n\n";
        break;
      case Block::Kind::table: {
        auto row = [&](const std::vector<std::string>& r) {
          o += "|";
          for (const auto& c : r) o.append(" ").append(md_cell(c)).append(" |");
          o += "\n";
        };
        row(b.table.header);
        o += "|";
        for (std::size_t i = 0; i < b.table.header.size(); ++i) o += "---|";
        o += "\n";
        for (const auto& r : b.table.rows) row(r);
        o += "\n";
        break;
      }
    }
  }
  return o;
}

std::string render_html(const json& report) {
  std::vector<Chart> charts;
  const Doc d = build_doc(report, &charts);
  std::string o = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hiprim " + xml_escape(report.value("kind", "")) +
                  " report</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;"
                  "margin:0.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left}"
                  "th{background:#f0f0f0}pre{background:#f6f6f6;padding:0.5em;white-space:pre-wrap}</style>\n</head><body>\n";
  for (const Block& b : d) {
    switch (b.kind) {
      case Block::Kind::heading: {
        const std::string h = "h" + std::to_string(b.level);
        o += "<" + h + ">" + xml_escape(b.text) + "</" + h + ">\n";
        break;
      }
      case Block::Kind::text: o += "<p>" + xml_escape(b.text) + "</p>\n"; break;
      case Block::Kind::code: o += "<pre>" + xml_escape(b.text) + "</pre>\n"; break;
      case Block::Kind::chart: o += "<div>" + charts[static_cast<std::size_t>(b.chart)].svg + "</div>\n"; break;
      case Block::Kind::table:
        o += "<table><tr>";
        for (const auto& h : b.table.header) o += "<th>" + xml_escape(h) + "</th>";
        o += "</tr>\n";
        for (const auto& r : b.table.rows) {
          o += "<tr>";
          for (const auto& c : r) o += "<td>" + xml_escape(c) + "</td>";
          o += "</tr>\n";
        }
        o += "</table>\n";
        break;
    }
  }
  return o + "</body></html>\n";
}

}  // namespace hiprim::verify
