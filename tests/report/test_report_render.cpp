// The rendered views: SVG charts (geometry on hand-picked values), Markdown and HTML of both report
// kinds, escaping, chart lists.
#include <gtest/gtest.h>

#include <regex>

#include "tests/report/report_fixture.hpp"
#include "bench/bench_report.hpp"
#include "report/report_render.hpp"
#include "report/report_svg.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using hiprim::testutil::kBwdData1x1;
using hiprim::testutil::kFwd1x1;
using hiprim::testutil::kFwd3x3;
using nlohmann::json;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The values of attribute `name` on elements `<tag ...` in document order.
std::vector<double> attr(const std::string& svg, const std::string& tag, const std::string& name) {
  std::vector<double> out;
  const std::regex re("<" + tag + " [^>]*" + name + "=\"([-0-9.]+)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) out.push_back(std::stod((*it)[1]));
  return out;
}

json two_group_report() {
  json a = json::array({testutil::perf_case(kFwd3x3, "conv.gemm.im2col", Status::passed, 2.0, 3),
                        testutil::perf_case(kFwd3x3, "conv.naive", Status::passed, 9.0, 3)});
  json b = json::array({testutil::perf_case(kBwdData1x1, "conv.gemm.1x1", Status::failed, -1, 2)});
  mark_best(a), mark_best(b);
  attach_peer(a, testutil::peer(1.0, Status::passed));
  attach_peer(b, testutil::peer(0.5, Status::passed));
  json cases = json::array();
  for (json* g : {&a, &b})
    for (auto& c : *g) cases.push_back(c);
  return testutil::perf_report(cases);
}

}  // namespace

TEST(ReportSvg, EscapeAndSteps) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_DOUBLE_EQ(nice_step(7), 2);     // 7/5 = 1.4 -> 2
  EXPECT_DOUBLE_EQ(nice_step(0.23), 0.05);
  EXPECT_DOUBLE_EQ(nice_step(100), 20);
  EXPECT_DOUBLE_EQ(nice_step(0), 1);
}

TEST(ReportSvg, BarsAreProportionalToTime) {
  const std::string svg = svg_time_bars("t", "cuDNN", {{"l1", 2.0, 1.0}, {"l2", 4.0, -1}});
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "</svg>"), 1u);
  EXPECT_EQ(count(svg, "n/a"), 1u);  // l2 has no peer time
  // Bars are the rects with a <title>; legend squares have none. Widths 2:1:4 (all start at x = 250).
  std::vector<double> w;
  const std::regex re("<rect x=\"250.0\" y=\"[-0-9.]+\" width=\"([0-9.]+)\"[^>]*><title>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) w.push_back(std::stod((*it)[1]));
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NEAR(w[0] / w[1], 2.0, 0.01);
  EXPECT_NEAR(w[2] / w[0], 2.0, 0.01);
}

TEST(ReportSvg, RooflinePlacesPointsByRate) {
  const std::string svg = svg_roofline("r", "cuDNN", 700, 3000, {{"slow", 100, 10, false}, {"fast", 100, 100, false}, {"p", 10, 20, true}});
  const auto cy = attr(svg, "circle", "cy");
  const auto cx = attr(svg, "circle", "cx");
  ASSERT_GE(cy.size(), 2u);  // the two points (the legend adds one more circle at the end)
  EXPECT_LT(cy[1], cy[0]);   // 100 TFLOP/s is drawn above 10
  EXPECT_DOUBLE_EQ(cx[0], cx[1]);
  EXPECT_NE(svg.find("GEMM 700.0 TFLOP/s"), std::string::npos);
  EXPECT_NE(svg.find("copy 3000 GB/s"), std::string::npos);
  EXPECT_EQ(count(svg, "stroke=\"#ff7f0e\""), 2u);  // one peer point and its legend mark
}

TEST(ReportRender, ShortProblemDropsGroupAndDefaults) {
  EXPECT_EQ(short_problem(kFwd3x3), "c64 k64 in56x56 f3x3 pad1x1 n32");
  EXPECT_EQ(short_problem("conv bwd-weights fp32 nchw n32 c3 k64 in224x224 f7x7 pad3x3 str2x2 dil1x1 g1"),
            "c3 k64 in224x224 f7x7 pad3x3 str2x2 n32");
}

TEST(ReportRender, PerformanceChartsAndTables) {
  const json r = two_group_report();
  const auto charts = report_charts(r);
  ASSERT_EQ(charts.size(), 3u);  // two groups' time charts, one bf16 roofline
  EXPECT_EQ(charts[0].name, "time_bf16_nhwc_bwd-data");
  EXPECT_EQ(charts[2].name, "roofline_bf16");
  const std::string md = render_markdown(r, {"x.time1.svg", "x.time2.svg", "x.roof.svg"});
  EXPECT_EQ(count(md, "]("), 3u);
  EXPECT_NE(md.find("| conv.gemm.im2col |"), std::string::npos);
  EXPECT_NE(md.find("none passed"), std::string::npos);  // the bwd-data layer has no passed solver
  EXPECT_NE(md.find("## Suite totals"), std::string::npos);
  EXPECT_EQ(render_markdown(r).find("]("), std::string::npos);  // no links without files
  const std::string html = render_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<svg"), 3u);
  EXPECT_EQ(count(html, "<table>"), count(html, "</table>"));
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));  // no external resources
}

TEST(ReportRender, ConformanceViewsListFailuresWithRepro) {
  using testutil::record;
  const json r = testutil::conf_report({record(kFwd3x3, "s1", Status::passed),
                                        record(kFwd3x3, "s2", Status::failed, "element [0,1] <wrong> | by 3"),
                                        record(kFwd1x1, "s3", Status::unsupported, "needs groups == 1")});
  EXPECT_TRUE(report_charts(r).empty());
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("# hiprim conformance report"), std::string::npos);
  EXPECT_NE(md.find("| 3 | 1 | 1 | 0 | 1 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("<wrong> \\| by 3"), std::string::npos);  // '|' escaped inside a cell
  EXPECT_NE(md.find("hiprim repro \"" + kFwd3x3 + "\" --solver s2"), std::string::npos);
  EXPECT_NE(md.find("| s3 | needs groups == 1 | 1 |"), std::string::npos);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("&lt;wrong&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<wrong>"), std::string::npos);
}

TEST(ReportRender, PartialRunsAreFlagged) {
  json r = two_group_report();
  EXPECT_EQ(render_markdown(r).find("Partial run"), std::string::npos);
  r["settings"]["problems_planned"] = 69;
  r["settings"]["problems_run"] = 40;
  EXPECT_NE(render_markdown(r).find("Partial run: 40 of 69 problems"), std::string::npos);
}
