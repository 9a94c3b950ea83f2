// hiprim_fft_accuracy: the accuracy table of the FFT solvers (issue 17), on the CPU. Per layer and
// transform size T: the runner's bounded fill (seeded), the double reference (ref::conv), and two fp32
// evaluations of the same data:
//   fft     ref::fft_conv_fp32 (the order conv.fft.t<T> follows; bit for bit what the emulated solvers
//           compute), judged by its derived bound (verify::fft_tolerance, S = sum_c ||x tile|| ||w_kc||);
//   direct  the fp32 direct sum of the FMA implicit GEMM's arithmetic (bench/direct_fp32.hpp), judged by
//           the direct bound (gamma(L) sum |w x|).
// Columns: worst error/bound, RMS relative error (MIOpen's), max abs error, and fft's RMS over direct's.
//   hiprim_fft_accuracy [--batch 1] [--tiles 16,32,64] [--layers all|N] [--seed 1] [--markdown FILE]
// Layers: the stride-1 5x5 / 7x7 layers of bench/suites/fft_fp32.txt and one 3x3 for comparison.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/accuracy_cli.hpp"
#include "bench/direct_fp32.hpp"
#include "core/error.hpp"
#include "core/fft_tiles.hpp"
#include "core/text.hpp"
#include "reference/fft_conv.hpp"
#include "verify/compare.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace {

using namespace hiprim;

struct Layer {
  int c, k, hw, f;
};
const Layer kLayers[] = {{64, 64, 56, 5}, {128, 128, 28, 5}, {32, 32, 112, 7}, {256, 256, 14, 5}, {64, 64, 56, 3}};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The FFT solvers' accuracy table on the CPU (fp32 model vs the FMA direct sum, same data)"};
  AccuracyOptions opt;
  std::string tiles = "16,32,64";
  add_accuracy_options(app, opt);
  app.add_option("--tiles", tiles, "Comma-separated transform sizes T (16, 32, 64)");
  CLI11_PARSE(app, argc, argv);
  try {
    const std::vector<int> ts = int_choices("--tiles", tiles, {16, 32, 64});
    std::ostringstream md;
    md << "| layer | T | fft worst err/bound | fft RMS rel | direct worst err/bound | direct RMS rel | RMS fft / direct | fft max abs | "
          "direct max abs |\n|---|---|---|---|---|---|---|---|---|\n";
    int done = 0, failed = 0;
    for (const Layer& L : kLayers) {
      if (opt.layers > 0 && done++ >= opt.layers) break;
      const std::string hw = std::to_string(L.hw), f = std::to_string(L.f), pad = std::to_string(L.f / 2);
      const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n" + std::to_string(opt.batch) + " c" + std::to_string(L.c) + " k" +
                                               std::to_string(L.k) + " in" + hw + "x" + hw + " f" + f + "x" + f + " pad" + pad + "x" + pad);
      verify::RunOptions o;
      o.seed = opt.seed;
      o.fill = verify::FillTier::bounded;
      verify::PreparedCase c(p, o);
      const ref::ConvInputs in = verify::conv_inputs(c);
      const ref::ConvOutput& exp = verify::conv_expected(c, false);
      const HostTensor direct = as_tensor(p.y_desc(), direct_fp32(p, *in.x, *in.w));
      const verify::Verdict dv = verify::compare(direct, exp.value, exp.abs_sum, exp.desc, verify::tolerance_for(p, verify::FillTier::bounded));
      for (const int t : ts) {
        const HostTensor fft = as_tensor(p.y_desc(), ref::fft_conv_fp32(p, ref::fft_conv_plan(p, t), *in.x, *in.w));
        const verify::Verdict fv =
            verify::compare(fft, exp.value, ref::fft_conv_abs_sum(p, t, *in.x, *in.w), exp.desc, verify::fft_tolerance(p, t));
        failed += fv.status != verify::Status::passed;
        const double ratio = dv.metrics.rms_rel_error > 0 ? fv.metrics.rms_rel_error / dv.metrics.rms_rel_error : 0.0;
        char buf[512];
        std::snprintf(buf, sizeof buf, "| c%d k%d %dx%d f%dx%d pad%s | %d | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g |\n", L.c, L.k, L.hw,
                      L.hw, L.f, L.f, pad.c_str(), t, fv.metrics.worst_ratio, fv.metrics.rms_rel_error, dv.metrics.worst_ratio,
                      dv.metrics.rms_rel_error, ratio, fv.metrics.max_abs_error, dv.metrics.max_abs_error);
        md << buf;
        std::fputs(buf, stdout);
        std::fflush(stdout);
      }
    }
    if (!opt.markdown.empty()) std::ofstream(opt.markdown) << md.str();
    if (failed > 0) std::fprintf(stderr, "hiprim_fft_accuracy: %d rows exceed their derived bound\n", failed);
    return failed > 0 ? 1 : 0;
  } catch (const InputError& e) {
    std::fprintf(stderr, "hiprim_fft_accuracy: %s\n", e.what());
    return 2;
  }
}
