// hiprim_winograd_accuracy: the accuracy table of the Winograd solvers (issue 17), on the CPU. Per
// layer, dtype and tile F(m x m, 3 x 3): the runner's bounded fill (seeded, inputs rounded to the
// dtype), the double reference (ref::conv), and two fp32 evaluations of the same data:
//   winograd  ref::winograd_conv_fp32 (the order the solvers follow; bit for bit what the emulated
//             conv.winograd.* solvers compute), judged by its derived bound (verify::winograd_tolerance,
//             S = the algorithm on absolute values);
//   direct    the fp32 direct sum of the FMA implicit GEMM's arithmetic (one fused multiply-add per
//             term, taps (r, s) then channels c ascending), judged by the direct bound (gamma(L) sum |w x|);
// both rounded once to the dtype. Columns: worst error/bound, RMS relative error (MIOpen's
// sqrt(sum (got - exp)^2 / sum exp^2)), max abs error, and winograd's RMS over direct's.
// bwd-weights (--dir): winograd = ref::winograd_wgrad_fp32 with the solver's default split of the
// tile sum at that batch; direct = dw[k][c][r][s] as one fma chain over the pixels (n, p, q) ascending.
// --operands bf16: conv.winograd.tc.f<m>x3's model instead (fp16/bf16 data only): U and V (D and V) rounded to bf16
// before the GEMM, the SIMT config's order and split, judged by the bound with u_T and the solver's factor 2.
//   hiprim_winograd_accuracy [--batch 1] [--dtype fp32,fp16,bf16] [--tiles 2,4,5,6] [--dir fwd,bwd-weights] [--operands fp32]
//                            [--layers all|N] [--from I] [--seed 1] [--markdown FILE] [--json FILE]
// Layers (bench/suites/winograd_fp32.txt): ResNet-50 v1.5's 3x3 stride-1 layers, VGG-16's from conv3 on, then
// (added in session 28, after them so the earlier tables keep their order) VGG-16's conv1_1 .. conv2_2,
// conv3_1 and conv4_1. --from I starts at layer I (0-based), --layers N takes N from there.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "bench/accuracy_cli.hpp"
#include "bench/direct_fp32.hpp"
#include "core/winograd_transforms.hpp"
#include "gpu/conv/winograd_tc_plan.hpp"
#include "reference/winograd.hpp"
#include "verify/compare.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"
#include "verify/solvers.hpp"

namespace {

using namespace hiprim;

struct Layer {
  const char* net;
  int c, k, hw;
};
const Layer kLayers[] = {{"ResNet-50", 64, 64, 56},  {"ResNet-50", 128, 128, 28}, {"ResNet-50", 256, 256, 14}, {"ResNet-50", 512, 512, 7},
                         {"VGG-16", 256, 256, 56},   {"VGG-16", 512, 512, 28},    {"VGG-16", 512, 512, 14},
                         {"VGG-16", 3, 64, 224},     {"VGG-16", 64, 64, 224},     {"VGG-16", 64, 128, 112},
                         {"VGG-16", 128, 128, 112},  {"VGG-16", 128, 256, 56},    {"VGG-16", 256, 512, 28}};
constexpr int kLayerCount = static_cast<int>(sizeof kLayers / sizeof kLayers[0]);


// dw as one fma chain per weight over the pixels (n, oh, ow) ascending (x zero in the padding).
std::vector<float> direct_wgrad_fp32(const ConvProblem& p, const HostTensor& x, const HostTensor& dy) {
  const TensorDesc wd = p.w_desc();
  std::vector<float> dw(static_cast<std::size_t>(wd.storage_elements()), 0.0f);
  const Dims out = p.out();
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  for (std::int64_t k = 0; k < p.k; ++k)
    for (std::int64_t cc = 0; cc < cg; ++cc)
      for (std::int64_t r = 0; r < p.filter[0]; ++r)
        for (std::int64_t s = 0; s < p.filter[1]; ++s) {
          float acc = 0.0f;
          for (std::int64_t n = 0; n < p.n; ++n)
            for (std::int64_t oh = 0; oh < out[0]; ++oh)
              for (std::int64_t ow = 0; ow < out[1]; ++ow) {
                const std::int64_t h = oh - p.pad[0] + r, ww = ow - p.pad[1] + s;
                if (h < 0 || h >= p.in[0] || ww < 0 || ww >= p.in[1]) continue;
                acc = std::fma(dy.at({n, k, oh, ow}), x.at({n, (k / kg) * cg + cc, h, ww}), acc);
              }
          dw[static_cast<std::size_t>(wd.offset({k, cc, r, s}))] = acc;
        }
  return dw;
}

// The tile sum's run length of conv.winograd.f<m>x3's default config on p (0: one run; also 0 in a
// build without the GPU solvers).
std::int64_t default_chunk(const ConvProblem& p, int m) {
  const ConvSolverList found = verify::select_conv_solvers("conv.winograd.f" + std::to_string(m) + "x3");
  if (found.empty()) return 0;
  const std::string cfg = found.front()->default_config_for(p);
  const std::size_t at = cfg.find(".sk");
  const std::int64_t terms = ref::winograd_wgrad_terms(p, m), s = at == std::string::npos ? 1 : std::stoll(cfg.substr(at + 3));
  const std::int64_t chunk = std::max<std::int64_t>(8, ((terms + s - 1) / s + 7) / 8 * 8);
  return chunk >= terms ? 0 : chunk;
}

nlohmann::json metrics_json(const verify::Verdict& v) {
  return {{"status", std::string(verify::status_name(v.status))},
          {"worst_ratio", v.metrics.worst_ratio},
          {"rms_rel_error", v.metrics.rms_rel_error},
          {"max_abs_error", v.metrics.max_abs_error},
          {"max_rel_error", v.metrics.max_rel_error}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The Winograd solvers' accuracy table on the CPU (fp32 model vs the FMA direct sum, same data)"};
  AccuracyOptions opt;
  std::string dtypes = "fp32,fp16,bf16", tiles = "2,4,6", dirs = "fwd,bwd-weights", operands_name = "fp32", json_path;
  int from = 0;
  add_accuracy_options(app, opt);
  app.add_option("--from", from, "Start at layer I (0-based; see the list at the top of the source)")
      ->check(CLI::Range(0, kLayerCount - 1));
  app.add_option("--dtype", dtypes, "Comma-separated dtypes");
  app.add_option("--dir", dirs, "Comma-separated directions (fwd, bwd-weights)");
  app.add_option("--tiles", tiles, "Comma-separated output tiles m of F(m x m, 3 x 3) (2, 4, 5, 6)");
  app.add_option("--operands", operands_name, "The transformed operands' dtype: fp32 (conv.winograd.f<m>x3) or bf16 "
                                              "(conv.winograd.tc.f<m>x3, fp16/bf16 data)");
  app.add_option("--json", json_path, "Write every row as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    const std::vector<int> ms = int_choices("--tiles", tiles, {2, 4, 5, 6});
    const std::optional<DType> operands = parse_dtype(operands_name);
    if (!operands || *operands == DType::fp16) throw InputError("--operands: '" + operands_name + "' is not fp32 or bf16");
    const bool tc = *operands == DType::bf16;
    const double factor = tc ? 2.0 : 1.0;  // the solver's accumulation factor (tc: the tensor core's truncating adds)
    std::ostringstream md;
    md << "| layer | dir | dtype | F(m) | winograd worst err/bound | winograd RMS rel | direct worst err/bound | direct RMS rel | "
          "RMS winograd / direct | winograd max abs | direct max abs |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    nlohmann::json rows = nlohmann::json::array();
    int done = 0, failed = 0;
    for (const auto& dir : split_list(dirs))
      if (dir != "fwd" && dir != "bwd-weights") throw InputError("--dir: '" + dir + "' is not fwd or bwd-weights");
    for (const auto& dir : split_list(dirs)) {
      const bool wgrad = dir == "bwd-weights";
      done = 0;
      for (int li = from; li < kLayerCount; ++li) {
        const Layer& L = kLayers[li];
        if (opt.layers > 0 && done++ >= opt.layers) break;
        for (const auto& dts : split_list(dtypes)) {
          const auto dt = parse_dtype(dts);
          if (!dt) throw InputError("--dtype: unknown dtype '" + dts + "'");
          if (tc && *dt == DType::fp32) throw InputError("--operands bf16 takes fp16/bf16 data (the tc solvers refuse fp32)");
          const std::string line = "conv " + dir + " " + dts + " nchw n" + std::to_string(opt.batch) + " c" + std::to_string(L.c) + " k" +
                                   std::to_string(L.k) + " in" + std::to_string(L.hw) + "x" + std::to_string(L.hw) + " f3x3 pad1x1";
          const ConvProblem p = parse_conv_problem(line);
          verify::RunOptions o;
          o.seed = opt.seed;
          o.fill = verify::FillTier::bounded;
          verify::PreparedCase c(p, o);
          const ref::ConvInputs in = verify::conv_inputs(c);
          const ref::ConvOutput& exp = verify::conv_expected(c, false);
          const TensorDesc out_desc = wgrad ? p.w_desc() : p.y_desc();
          const HostTensor direct = as_tensor(out_desc, wgrad ? direct_wgrad_fp32(p, *in.x, *in.y) : direct_fp32(p, *in.x, *in.w));
          const verify::Verdict dv =
              verify::compare(direct, exp.value, exp.abs_sum, exp.desc, verify::tolerance_for(p, verify::FillTier::bounded));
          for (const int m : ms) {
            const WinogradTransforms t = winograd_f3(m);
            const std::int64_t chunk = !wgrad ? 0 : tc ? gpu::winograd_tc_wgrad_run_length<gpu::GemmTileDefault>(p, m) : default_chunk(p, m);
            const std::vector<double> s_sum = wgrad ? ref::winograd_wgrad_abs_sum(p, t, *in.x, *in.y, *operands)
                                                    : ref::winograd_abs_sum(p, t, *in.x, *in.w, *operands);
            const HostTensor wino = as_tensor(out_desc, wgrad ? ref::winograd_wgrad_fp32(p, t, *in.x, *in.y, chunk, *operands)
                                                              : ref::winograd_conv_fp32(p, t, *in.x, *in.w, *operands));
            const verify::Verdict wv =
                verify::compare(wino, exp.value, s_sum, exp.desc, verify::winograd_tolerance(p, m, factor, *operands));
            failed += wv.status != verify::Status::passed;
            const double ratio = dv.metrics.rms_rel_error > 0 ? wv.metrics.rms_rel_error / dv.metrics.rms_rel_error : 0.0;
            char buf[512];
            const std::string runs = chunk ? " runs of " + std::to_string(chunk) : "";
            std::snprintf(buf, sizeof buf, "| %s c%d k%d %dx%d | %s | %s | F(%dx%d)%s | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g |\n",
                          L.net, L.c, L.k, L.hw, L.hw, dir.c_str(), dts.c_str(), m, m, runs.c_str(), wv.metrics.worst_ratio,
                          wv.metrics.rms_rel_error, dv.metrics.worst_ratio, dv.metrics.rms_rel_error, ratio, wv.metrics.max_abs_error,
                          dv.metrics.max_abs_error);
            md << buf;
            std::fputs(buf, stdout);
            std::fflush(stdout);
            rows.push_back({{"problem", to_string(p)}, {"net", L.net}, {"dir", dir}, {"dtype", dts}, {"m", m}, {"chunk", chunk},
                            {"operands", operands_name},
                            {"seed", opt.seed}, {"winograd", metrics_json(wv)},
                            {"direct", metrics_json(dv)}, {"rms_ratio", ratio}});
          }
        }
      }
    }
    if (!opt.markdown.empty()) std::ofstream(opt.markdown) << md.str();
    if (!json_path.empty()) std::ofstream(json_path) << nlohmann::json{{"rows", rows}}.dump(1) << "\n";
    if (failed > 0) std::fprintf(stderr, "hiprim_winograd_accuracy: %d rows exceed their derived bound\n", failed);
    return failed > 0 ? 1 : 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "hiprim_winograd_accuracy: %s\n", e.what());
    return 2;
  }
}
