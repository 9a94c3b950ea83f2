// hiprim_bench_cpu_cost: the host work `hiprim bench --verify full` does for a ResNet-50 suite,
// without a GPU, so the device runs can be sized: per unique problem (key: fp32, channels first)
// the shared exact-tier reference (ref::conv without abs_sum, every hardware thread), and per
// dtype x layout variant the runner's input fills (PreparedCase), the judge's correct output, one
// fast verdict (an output identical to the correct one: a bitwise comparison), one full compare()
// (what a wrong output costs), the runner's determinism check (compare_bitwise of two outputs), and
// the byte conversion of one downloaded output (to and from bytes).
//   hiprim_bench_cpu_cost [--batch 32] [--dtype fp32,bf16,fp16] [--layout nchw,nhwc]
//                         [--dir fwd,bwd-data,bwd-weights] [--layers N] [--json FILE]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/bench_check.hpp"
#include "bench/reference_cache.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "verify/runner.hpp"
#include "verify/suite.hpp"

namespace {

using namespace hiprim;
using namespace hiprim::verify;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }


}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Host cost of the bench's full verification of a ResNet-50 suite (references, fills, judging)"};
  std::int64_t batch = 32;
  std::string dtypes = "fp32,bf16,fp16", layouts = "nchw,nhwc", dirs = "fwd,bwd-data,bwd-weights", json_path;
  int layers = 0;
  app.add_option("--batch", batch)->check(CLI::PositiveNumber);
  app.add_option("--dtype", dtypes);
  app.add_option("--layout", layouts);
  app.add_option("--dir", dirs);
  app.add_option("--layers", layers, "only the first N ResNet-50 layers (0: all 23)")->check(CLI::NonNegativeNumber);
  app.add_option("--json", json_path);
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<DType> dts;
    for (const auto& d : split_list(dtypes)) {
      auto t = parse_dtype(d);
      if (!t) throw InputError("--dtype: unknown dtype '" + d + "'");
      dts.push_back(*t);
    }
    std::vector<bool> cls;
    for (const auto& l : split_list(layouts)) {
      if (l != "nchw" && l != "nhwc") throw InputError("--layout: '" + l + "' is not nchw or nhwc");
      cls.push_back(l == "nhwc");
    }
    std::vector<ConvDir> ds;
    for (const auto& d : split_list(dirs)) {
      bool found = false;
      for (ConvDir v : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
        if (conv_dir_name(v) == d) {
          ds.push_back(v);
          found = true;
        }
      if (!found) throw InputError("--dir: unknown direction '" + d + "' (fwd, bwd-data, bwd-weights)");
    }
    auto all = resnet50_layers();
    if (layers > 0 && layers < static_cast<int>(all.size())) all.resize(static_cast<std::size_t>(layers));
    double load[1] = {-1.0};
    getloadavg(load, 1);
    std::printf("hardware threads %u, load average %.2f; batch %lld, %zu layers x %zu dirs x %zu variants\n",
                std::thread::hardware_concurrency(), load[0], static_cast<long long>(batch), all.size(), ds.size(),
                dts.size() * cls.size());
    nlohmann::json out{{"hardware_threads", std::thread::hardware_concurrency()}, {"load_average_1min", load[0]},
                       {"batch", batch}, {"problems", nlohmann::json::array()}};
    double ref_s = 0, fill_s = 0, judge_build_s = 0, fast_s = 0, compare_s = 0, convert_s = 0, bitwise_s = 0;
    std::int64_t out_elements = 0;
    for (ConvDir d : ds)
      for (const auto& l : all) {
        const ConvProblem key = resnet50_problem(l, batch, DType::fp32, false, d);
        auto t0 = Clock::now();
        auto ref = std::make_shared<const ref::ConvOutput>(exact_reference(key, 1));
        const double r = since(t0);
        ref_s += r;
        nlohmann::json pj{{"problem", to_string(key)}, {"reference_s", r}, {"variants", nlohmann::json::array()}};
        for (DType dt : dts)
          for (bool cl : cls) {
            const ConvProblem p = resnet50_problem(l, batch, dt, cl, d);
            RunOptions ro;
            ro.fill = FillTier::exact;
            t0 = Clock::now();
            const PreparedCase pc(p, ro);
            const double f = since(t0);
            t0 = Clock::now();
            const TensorDesc od = output_desc(p);
            const ExactJudge judge(ref, od);
            const double jb = since(t0);
            HostTensor got(od);  // the correct output, as a passing solver returns it
            for_each_index(od.dims, [&](const Dims& i) {
              got.at(i) = round_to(dt, ref->value[static_cast<std::size_t>(ref->desc.offset(i))]);
            });
            t0 = Clock::now();
            const auto bytes = got.to_bytes();
            HostTensor back(od);
            back.from_bytes(bytes.data());
            const double cv = since(t0);
            const Tolerance tol = tolerance_for(p, FillTier::exact);
            (void)judge.judge(back, tol);  // first call also compares the correct output once
            t0 = Clock::now();
            const Verdict v = judge.judge(back, tol);
            const double fv = since(t0);
            t0 = Clock::now();
            const Verdict full = compare(back, ref->value, ref->abs_sum, ref->desc, tol);
            const double cf = since(t0);
            t0 = Clock::now();
            const Verdict bits = compare_bitwise(back, got);  // the runner's determinism check
            const double cb = since(t0);
            if (v.status != Status::passed || full.status != Status::passed || bits.status != Status::passed)
              throw RuntimeError("the correct output of " + to_string(p) + " did not pass: " + full.reason);
            fill_s += f;
            judge_build_s += jb;
            fast_s += fv;
            compare_s += cf;
            convert_s += cv;
            bitwise_s += cb;
            out_elements += od.elements();
            pj["variants"].push_back({{"problem", to_string(p)}, {"fill_s", f}, {"judge_build_s", jb}, {"fast_verdict_s", fv},
                                      {"full_compare_s", cf}, {"convert_s", cv}, {"bitwise_s", cb},
                                      {"output_elements", od.elements()}});
          }
        std::printf("%-78s ref %6.2f s\n", to_string(key).c_str(), r);
        std::fflush(stdout);
        out["problems"].push_back(std::move(pj));
      }
    const double ns = out_elements > 0 ? 1e9 / static_cast<double>(out_elements) : 0;
    std::printf("\nreferences (shared by every variant): %.1f s\n", ref_s);
    std::printf("per variant, summed over all variants: fills %.1f s, judge build %.1f s, fast verdict %.2f s (%.2f ns/element), "
                "full compare %.1f s (%.1f ns/element), byte conversion %.1f s (%.2f ns/element), determinism "
                "compare_bitwise %.1f s (%.1f ns/element); %lld output elements\n",
                fill_s, judge_build_s, fast_s, fast_s * ns, compare_s, compare_s * ns, convert_s, convert_s * ns, bitwise_s,
                bitwise_s * ns, static_cast<long long>(out_elements));
    out["totals"] = {{"reference_s", ref_s}, {"fill_s", fill_s}, {"judge_build_s", judge_build_s}, {"fast_verdict_s", fast_s},
                     {"full_compare_s", compare_s}, {"convert_s", convert_s}, {"bitwise_s", bitwise_s},
                     {"output_elements", out_elements}};
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << out.dump(2) << "\n";
      if (!f) throw RuntimeError("cannot write " + json_path);
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
