// SVG charts of performance reports, written directly (no dependencies). Each function returns one
// self-contained <svg> element: it inlines into HTML and stands alone as an .svg file.
#pragma once
#include <string>
#include <vector>

namespace hiprim::verify {

// Escapes & < > " ' for XML text and attributes.
std::string xml_escape(const std::string& s);

// One row of the time chart: hiprim's best time and the peer's (a negative value: none); svg_bars
// uses the two values for other quantities.
struct BarRow {
  std::string label;
  double hiprim_ms = -1, peer_ms = -1;
};
// Horizontal bars, two per row (hiprim, the peer) on one linear millisecond axis from 0.
std::string svg_time_bars(const std::string& title, const std::string& peer_name, const std::vector<BarRow>& rows);
// The same bars for any quantity: the legend names of the two values of a row (hiprim_ms, peer_ms),
// the axis label, the unit and the printf format of the values (e.g. GB/s of hiprim and of the copy).
struct BarAxis {
  std::string first, second, label, unit;
  const char* value_format = "%.3f";
};
std::string svg_bars(const std::string& title, const BarAxis& axis, const std::vector<BarRow>& rows);

// A point of the roofline: arithmetic intensity (FLOP/byte) and achieved TFLOP/s.
struct RoofPoint {
  std::string label;
  double intensity = 0, tflops = 0;
  bool peer = false;  // the peer's point (hollow square) or hiprim's (filled circle)
};
// Log-log roofline: attainable TFLOP/s = min(gemm_tflops, intensity x copy_gbps / 1000) (GB/s x
// FLOP/byte = GFLOP/s); a ceiling <= 0 is not drawn. Points with non-positive values are skipped.
std::string svg_roofline(const std::string& title, const std::string& peer_name, double gemm_tflops, double copy_gbps,
                         const std::vector<RoofPoint>& points);

// The axis step for a linear axis up to max: 1, 2 or 5 times a power of ten, giving 4 to 10 ticks.
double nice_step(double max);

}  // namespace hiprim::verify
