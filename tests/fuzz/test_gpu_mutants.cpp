// GPU mutants (tests/fuzz/mutant_gpu.hip) against the fuzzer, on the device: the control survives a
// campaign and every mutant, the missing barrier included, is caught and shrunk. Skips without a GPU.
// HIPRIM_FUZZ_MUTANT_REPORT=<path> writes the report (scripts/device_fuzz.sh does).
#include <gtest/gtest.h>

#include "fuzz/corpus.hpp"
#include "fuzz/gpu_oracle.hpp"
#include "tests/fuzz/mutant_gpu.hpp"
#include "tests/fuzz/mutant_hunt.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz_test {
namespace {

constexpr std::int64_t kMaxCases = 3000;      // each mutant must be caught within this many cases
constexpr std::int64_t kControlCases = 1500;
constexpr double kMaxShrunkMacs = 20000;      // a race needs a few warps of work: larger than the CPU bound

TEST(FuzzGpuMutants, ControlSurvivesAndEveryMutantIsCaught) {
  std::string why;
  if (!fuzz::gpu_oracle_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  const auto control_solver = make_gpu_mutant(GpuBug::none);
  const Hunt control = hunt(control_solver, gpu_bug_description(GpuBug::none), kControlCases);
  for (const auto& f : control.result.failures) ADD_FAILURE() << "control failed: " << f.shrunk.repro << ": " << f.shrunk.verdict.reason;
  EXPECT_GT(control.result.cases, kControlCases / 2) << "too many discards: the domain probe missed a refusal";
  std::vector<MutantHunts> hunts;
  for (GpuBug b : all_gpu_bugs()) {
    hunts.push_back({hunt(make_gpu_mutant(b), gpu_bug_description(b), kMaxCases)});
    const Hunt& h = hunts.back().front();
    SCOPED_TRACE(h.solver);
    const fuzz::Failure* f = h.catch_failure();
    if (!f) {
      ADD_FAILURE() << h.solver << " survived " << h.result.cases << " cases";
      continue;
    }
    EXPECT_LE(f->shrunk_size, kMaxShrunkMacs) << f->shrunk.problem;
    const fuzz::ConvCase c = fuzz::conv_case_from_repro(fuzz::parse_repro_line(f->shrunk.repro));
    EXPECT_NE(fuzz::run_conv_case(c, *control_solver).verdict.status, verify::Status::failed) << "the shrunk case fails without the bug";
    std::printf("%-28s caught after %4lld cases; shrunk %10.0f -> %6.0f MACs: %s\n    %s\n", h.solver.c_str(),
                static_cast<long long>(f->cases_to_catch), f->found_size, f->shrunk_size, f->shrunk.repro.c_str(), f->shrunk.verdict.reason.c_str());
  }
  const std::string path = write_mutant_report_if_asked(hunts, control, "test_fuzz_gpu --gtest_filter=FuzzGpuMutants.*");
  if (!path.empty()) {
    EXPECT_TRUE(verify::check_report_schema(verify::read_json(path)).empty());
  }
}

}  // namespace
}  // namespace hiprim::fuzz_test
