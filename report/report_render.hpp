// Rendered views of any report (conformance, performance, fuzz): Markdown and one self-contained
// HTML file (inline CSS and SVG, no external resources). Both come from one document model, so the
// two views hold the same tables.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiprim::verify {

// A chart of a performance report: name is a file-name stem ("time_bf16_nhwc_fwd", "roofline_bf16").
struct Chart {
  std::string name, title, svg;
};
// Performance reports: one time chart (hiprim vs the peer per layer) per conv (dtype, layout, dir),
// one bandwidth chart (hiprim GB/s vs the copy ceiling per problem) per op group (bench_group), and
// one roofline per dtype. Other kinds: none.
std::vector<Chart> report_charts(const nlohmann::json& report);

// chart_links: paths of the written chart files in report_charts() order, linked as images where
// each chart belongs; empty: charts are left out.
std::string render_markdown(const nlohmann::json& report, const std::vector<std::string>& chart_links = {});
std::string render_html(const nlohmann::json& report);

// "c64 k64 in56x56 f3x3 pad1x1 str1x1 n32": a problem string without direction, dtype, layout and
// default tokens (for tables grouped by those). Op problems: without the op, its first token, dtype
// and layout ("spatial c64 in56x56 eps1e-05 momentum0.1 n32").
std::string short_problem(const std::string& problem);

}  // namespace hiprim::verify
