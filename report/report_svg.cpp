#include "report/report_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hiprim::verify {

namespace {

constexpr const char* kHiprimColor = "#1f77b4";
constexpr const char* kPeerColor = "#ff7f0e";
constexpr const char* kFont = "font-family=\"sans-serif\"";

std::string num(double v, const char* f = "%.1f") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A number for an axis label: no trailing zeros ("0.25", "10", "1e+03" only beyond 1e4).
std::string label(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start", int size = 11) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + kFont + " font-size=\"" + std::to_string(size) +
         "\" text-anchor=\"" + anchor + "\">" + xml_escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* color, double width = 1, const char* dash = nullptr) {
  std::string s = "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
                  "\" stroke=\"" + color + "\" stroke-width=\"" + num(width) + "\"";
  if (dash) s += std::string(" stroke-dasharray=\"") + dash + "\"";
  return s + "/>\n";
}

std::string open_svg(int w, int h) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) +
         "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) + "\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

// A legend mark (filled square, hollow square or filled circle, as the chart draws it) and its name.
enum class Mark { square, hollow_square, circle };
std::string legend_entry(double x, double y, const char* color, const std::string& name, Mark m) {
  const std::string fill = m == Mark::hollow_square ? std::string("fill=\"none\" stroke=\"") + color + "\" stroke-width=\"1.5\""
                                                    : std::string("fill=\"") + color + "\"";
  std::string mark = m == Mark::circle ? "<circle cx=\"" + num(x + 5) + "\" cy=\"" + num(y - 4) + "\" r=\"4\" " + fill + "/>\n"
                                       : "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"10\" height=\"10\" " + fill + "/>\n";
  return mark + text(x + 14, y, name);
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

double nice_step(double max) {
  if (!(max > 0) || !std::isfinite(max)) return 1;
  const double raw = max / 5, p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

std::string svg_time_bars(const std::string& title, const std::string& peer_name, const std::vector<BarRow>& rows) {
  return svg_bars(title, {"hiprim (best solver)", peer_name, "median time per run (ms)", "ms", "%.3f"}, rows);
}

std::string svg_bars(const std::string& title, const BarAxis& axis, const std::vector<BarRow>& rows) {
  const double left = 250, right = 90, top = 50, row_h = 24, bar_h = 9, width = 900;
  const double plot_w = width - left - right, height = top + row_h * static_cast<double>(rows.size()) + 40;
  double max_ms = 0;
  for (const BarRow& r : rows) max_ms = std::max({max_ms, r.hiprim_ms, r.peer_ms});
  const double step = nice_step(max_ms), axis_max = step * std::ceil(std::max(max_ms, 1e-9) / step);
  auto x_of = [&](double ms) { return left + plot_w * ms / axis_max; };
  std::string s = open_svg(static_cast<int>(width), static_cast<int>(height));
  s += text(width / 2, 18, title, "middle", 14);
  s += legend_entry(left, 38, kHiprimColor, axis.first, Mark::square);
  s += legend_entry(left + 170, 38, kPeerColor, axis.second, Mark::square);
  const double bottom = top + row_h * static_cast<double>(rows.size());
  for (double v = 0; v <= axis_max * (1 + 1e-9); v += step) {
    s += line(x_of(v), top, x_of(v), bottom, "#dddddd");
    s += text(x_of(v), bottom + 14, label(v), "middle", 10);
  }
  s += text(left + plot_w / 2, bottom + 32, axis.label, "middle");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
    const double y = top + row_h * static_cast<double>(i);
    s += text(left - 6, y + row_h / 2 + 4, r.label, "end", 10);
    auto bar = [&](double ms, double y0, const char* color) {
      if (ms < 0) {
        s += text(left + 4, y0 + bar_h - 1, "n/a", "start", 9);
        return;
      }
      s += "<rect x=\"" + num(left) + "\" y=\"" + num(y0) + "\" width=\"" + num(std::max(0.5, x_of(ms) - left)) + "\" height=\"" +
           num(bar_h) + "\" fill=\"" + color + "\"><title>" + xml_escape(r.label + ": " + num(ms, axis.value_format) + " " + axis.unit) +
           "</title></rect>\n";
      s += text(x_of(ms) + 3, y0 + bar_h - 1, num(ms, axis.value_format), "start", 9);
    };
    bar(r.hiprim_ms, y + 2, kHiprimColor);
    bar(r.peer_ms, y + 3 + bar_h, kPeerColor);
  }
  return s + "</svg>\n";
}

std::string svg_roofline(const std::string& title, const std::string& peer_name, double gemm_tflops, double copy_gbps,
                         const std::vector<RoofPoint>& points) {
  const double width = 760, height = 500, left = 70, right = 30, top = 50, bottom = 50;
  const double pw = width - left - right, ph = height - top - bottom;
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const RoofPoint& p : points)
    if (p.intensity > 0 && p.tflops > 0) {
      xmin = std::min(xmin, p.intensity), xmax = std::max(xmax, p.intensity);
      ymin = std::min(ymin, p.tflops), ymax = std::max(ymax, p.tflops);
    }
  const double ridge = gemm_tflops > 0 && copy_gbps > 0 ? gemm_tflops * 1000 / copy_gbps : 0;
  if (ridge > 0) xmin = std::min(xmin, ridge), xmax = std::max(xmax, ridge);
  if (gemm_tflops > 0) ymax = std::max(ymax, gemm_tflops), ymin = std::min(ymin, gemm_tflops);
  if (xmax <= 0) xmin = 1, xmax = 1000;
  if (ymax <= 0) ymin = 0.1, ymax = 1000;
  // Whole decades around the data.
  const double lx0 = std::floor(std::log10(xmin)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(xmax)));
  const double ly0 = std::floor(std::log10(ymin)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(ymax * 1.01)));
  auto X = [&](double v) { return left + pw * (std::log10(v) - lx0) / (lx1 - lx0); };
  auto Y = [&](double v) { return top + ph * (1 - (std::log10(v) - ly0) / (ly1 - ly0)); };
  std::string s = open_svg(static_cast<int>(width), static_cast<int>(height));
  s += text(width / 2, 18, title, "middle", 14);
  for (double d = lx0; d <= lx1; ++d) {
    s += line(X(std::pow(10, d)), top, X(std::pow(10, d)), top + ph, "#dddddd");
    s += text(X(std::pow(10, d)), top + ph + 14, label(std::pow(10, d)), "middle", 10);
  }
  for (double d = ly0; d <= ly1; ++d) {
    s += line(left, Y(std::pow(10, d)), left + pw, Y(std::pow(10, d)), "#dddddd");
    s += text(left - 4, Y(std::pow(10, d)) + 4, label(std::pow(10, d)), "end", 10);
  }
  s += text(left + pw / 2, height - 12, "arithmetic intensity (FLOP / byte, least traffic)", "middle");
  s += "<text x=\"16\" y=\"" + num(top + ph / 2) + "\" " + kFont + " font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 16 " +
       num(top + ph / 2) + ")\">TFLOP/s</text>\n";
  const double xa = std::pow(10, lx0), xb = std::pow(10, lx1);
  if (copy_gbps > 0) {  // bandwidth roof: TFLOP/s = intensity x GB/s / 1000, up to the ridge
    const double x_end = ridge > 0 ? ridge : xb;
    double x_start = std::max(xa, std::pow(10, ly0) * 1000 / copy_gbps);
    if (x_start < x_end) s += line(X(x_start), Y(x_start * copy_gbps / 1000), X(x_end), Y(x_end * copy_gbps / 1000), "#555555", 2);
    s += text(X(x_start) + 4, Y(x_start * copy_gbps / 1000) - 6, "copy " + num(copy_gbps, "%.0f") + " GB/s", "start", 10);
  }
  if (gemm_tflops > 0) {
    s += line(X(ridge > 0 ? ridge : xa), Y(gemm_tflops), X(xb), Y(gemm_tflops), "#555555", 2);
    s += text(X(xb) - 4, Y(gemm_tflops) - 6, "GEMM " + num(gemm_tflops, "%.1f") + " TFLOP/s", "end", 10);
  }
  for (const RoofPoint& p : points) {
    if (!(p.intensity > 0 && p.tflops > 0)) continue;
    const std::string tip = "<title>" + xml_escape(p.label + ": " + num(p.tflops, "%.2f") + " TFLOP/s at " + num(p.intensity, "%.1f") + " FLOP/B") + "</title>";
    if (p.peer)
      s += "<rect x=\"" + num(X(p.intensity) - 4) + "\" y=\"" + num(Y(p.tflops) - 4) + "\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"" +
           kPeerColor + "\" stroke-width=\"1.5\">" + tip + "</rect>\n";
    else
      s += "<circle cx=\"" + num(X(p.intensity)) + "\" cy=\"" + num(Y(p.tflops)) + "\" r=\"4\" fill=\"" + kHiprimColor + "\">" + tip + "</circle>\n";
  }
  s += legend_entry(left + 10, 38, kHiprimColor, "hiprim (best solver)", Mark::circle);
  s += legend_entry(left + 180, 38, kPeerColor, peer_name, Mark::hollow_square);
  return s + "</svg>\n";
}

}  // namespace hiprim::verify
