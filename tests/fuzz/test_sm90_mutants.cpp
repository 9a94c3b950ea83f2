// conv.igemm.wgmma's GPU mutants (issue 11; tests/fuzz/mutant_sm90.hpp) against the fuzzer, on an
// sm_90 GPU. Sm90Mutants.EachCaughtAndShrunkInItsOwnProcess runs this binary again once per mutant
// (and once for the control), as Sm90MutantChild.Hunt with HIPRIM_SM90_MUTANT_CHILD=<name>, so a
// mutant that wrecks its CUDA context (a trap, a sticky error) or hangs past the watchdog spoils
// only its own process: the parent kills a child after kChildSeconds and reports it.
// Each child hunts its mutant with a fuzz campaign (shape domain: what the mutant's config accepts),
// requires a catch (a wrong answer, a watchdog error or a second run that differs, as each mutant
// expects), a shrunk case no larger that still fails, and the control kernel passing both the found
// and the shrunk case. HIPRIM_SM90_MUTANT_REPORT=<path>: the merged JSON report (per mutant: cases
// run, first failing case, shrunk case, shrink steps, seconds). Skips without an sm_90 GPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/corpus.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "tests/fuzz/mutant_hunt.hpp"
#include "tests/fuzz/mutant_sm90.hpp"
#include "verify/report.hpp"
#include "verify/runner.hpp"

extern char** environ;

namespace hiprim::fuzz_test {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxCases = 1500;     // each mutant must be caught within this many cases
constexpr std::int64_t kControlCases = 600;
constexpr double kHuntSeconds = 45;          // and within this many seconds (then 20 s of shrinking at most)
constexpr int kChildSeconds = 120;           // a child past this is killed (a hang the watchdog missed)
constexpr const char* kChildEnv = "HIPRIM_SM90_MUTANT_CHILD";         // the mutant a child hunts
constexpr const char* kChildOutEnv = "HIPRIM_SM90_MUTANT_CHILD_OUT";  // where it writes its entry
constexpr const char* kReportEnv = "HIPRIM_SM90_MUTANT_REPORT";

fuzz::ConvTargetOptions hunt_options() {
  fuzz::ConvTargetOptions o;
  o.limits.max_channels_per_group = 64;  // reductions past the 3-stage ring (parity, early_release need > 3 k-blocks)
  return o;
}

bool fails(verify::Status s) { return s != verify::Status::passed && s != verify::Status::unsupported; }
verify::CaseRecord rerun(const std::string& repro, const ConvSolver& s) {
  return fuzz::run_conv_case(fuzz::conv_case_from_repro(fuzz::parse_repro_line(repro)), s);
}
// The shrunk case of a racy mutant need not fail every time: up to kReruns tries, the first failure
// (s22's device run: early_release's shrunk case passed 3 reruns once, failed on the first in the run before).
constexpr int kReruns = 20;
verify::CaseRecord rerun_until_failure(const std::string& repro, const ConvSolver& s, int& tries) {
  verify::CaseRecord r;
  for (tries = 1; tries <= kReruns; ++tries)
    if (fails((r = rerun(repro, s)).verdict.status)) break;
  return r;
}

// ---- host-only checks (no GPU) ----

ConvProblem fwd_problem(std::int64_t c, std::int64_t f, std::int64_t pad, std::int64_t w) {
  return parse_conv_problem("conv fwd bf16 nhwc n1 c" + std::to_string(c) + " k64 in5x" + std::to_string(w) + " f" + std::to_string(f) +
                            "x" + std::to_string(f) + " pad" + std::to_string(pad) + "x" + std::to_string(pad) + " str1x1 dil1x1 g1");
}

TEST(Sm90MutantsHost, NamesRoundTripAndHostSideMutantsRunTheProductionKernel) {
  std::vector<std::string> names;
  for (IgemmMutant m : all_sm90_mutants()) {
    names.push_back(sm90_mutant_name(m));
    EXPECT_EQ(sm90_mutant_by_name(names.back()), m);
    EXPECT_NE(sm90_mutant_description(m).find(".hpp"), std::string::npos) << "names no planted site: " << names.back();
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
  EXPECT_EQ(names.size(), 6u);
  EXPECT_FALSE(sm90_mutant_by_name("nope"));
  EXPECT_EQ(gpu::sm90::kernel_mutant(IgemmMutant::tma_edge), IgemmMutant::none);       // a TMA map change
  EXPECT_EQ(gpu::sm90::kernel_mutant(IgemmMutant::splitk_order), IgemmMutant::none);   // a reduction change
  EXPECT_EQ(gpu::sm90::kernel_mutant(IgemmMutant::parity), IgemmMutant::parity);
}

TEST(Sm90MutantsHost, ConfigPolicySplitsOnlyWithThreeKBlocks) {
  const ConvProblem nine_kb = fwd_problem(64, 3, 1, 5), two_kb = fwd_problem(128, 1, 0, 5);  // kred 576, 128
  EXPECT_EQ(sm90_mutant_config(nine_kb, true), "m128n128k64.s3.splitk3.ws.tma");
  EXPECT_EQ(sm90_mutant_config(nine_kb, false), "m128n128k64.s3.splitk1.ws.tma");
  EXPECT_EQ(sm90_mutant_config(two_kb, true), "m128n128k64.s3.splitk1.ws.tma");
  for (const ConvProblem& p : {nine_kb, two_kb}) {
    const auto pl = gpu::sm90::plan_igemm(p);
    for (bool split : {false, true}) {
      const auto c = gpu::sm90::parse_igemm_config(sm90_mutant_config(p, split));
      ASSERT_TRUE(c);
      EXPECT_EQ(gpu::sm90::igemm_config_refusal(pl, *c), "") << to_string(p);
    }
  }
  EXPECT_TRUE(sm90_mutant_splits(IgemmMutant::splitk_order));
  EXPECT_FALSE(sm90_mutant_splits(IgemmMutant::k_tail));
  for (IgemmMutant m : all_sm90_mutants()) EXPECT_EQ(sm90_mutant_may_survive(m), m == IgemmMutant::no_fence) << sm90_mutant_name(m);
}

// tma_edge's planted shift (upper W corner + 1) changes the im2col traversal: base positions per
// output row = (W - 1 + upper - lower) / stride + 1, Q without the bug, Q + 1 with it.
TEST(Sm90MutantsHost, TmaEdgeWidensTheTraversalByOnePixelPerRow) {
  for (std::int64_t w : {5, 9, 16}) {
    const ConvProblem p = fwd_problem(64, 3, 1, w);
    const auto pl = gpu::sm90::plan_igemm(p);
    ASSERT_TRUE(pl.params.a_im2col) << to_string(p);
    const gpu::sm90::ActGather& g = pl.params.cls[0].act;
    const gpu::sm90::Im2colCorners b = gpu::sm90::im2col_corners(g);
    auto positions = [&](int upper) { return (g.sw - 1 + upper - b.lower_x) / g.rx_mul + 1; };
    EXPECT_EQ(positions(b.upper_x), p.out()[1]);
    EXPECT_EQ(positions(b.upper_x + 1), p.out()[1] + 1);
  }
}

// ---- the hunts (GPU) ----

// One child's hunt: the mutant `name` (or the control), its report entry written to $kChildOutEnv.
TEST(Sm90MutantChild, Hunt) {
  const char* name = std::getenv(kChildEnv);
  if (!name) GTEST_SKIP() << "run by Sm90Mutants.EachCaughtAndShrunkInItsOwnProcess (" << kChildEnv << " names the mutant)";
  const auto m = sm90_mutant_by_name(name);
  ASSERT_TRUE(m) << "unknown mutant " << name;
  if (const std::string why = gpu::igemm_sm90_unavailable(); !why.empty()) GTEST_SKIP() << "needs an sm_90 GPU: " << why;
  const bool control = *m == IgemmMutant::none, split = control || sm90_mutant_splits(*m);
  const auto solver = make_sm90_mutant(*m, split);
  const Hunt h = hunt(solver, sm90_mutant_description(*m), control ? kControlCases : kMaxCases, 1, hunt_options(),
                       kHuntSeconds);
  json e = hunt_entry(h);
  e["mutant"] = name;
  e["expected_catch"] = sm90_mutant_expected_catch(*m);
  e["config"] = split ? "m128n128k64.s3.splitk3.ws.tma (splitk1 below 3 k-blocks)" : "m128n128k64.s3.splitk1.ws.tma";
  e["domain"] = h.result.targets.empty() ? "" : h.result.targets.front().domain;
  e["failures"] = h.result.failures.size();
  if (control) {
    for (const auto& f : h.result.failures) ADD_FAILURE() << "control failed: " << f.shrunk.repro << ": " << f.shrunk.verdict.reason;
    EXPECT_GE(h.result.cases, 100) << "the control ran too few cases to vouch for the config";
    EXPECT_LT(h.result.discards, h.result.cases) << "too many discards: the domain probe missed a refusal";
  } else if (const fuzz::Failure* f = h.catch_failure(); !f) {
    e["survival_allowed"] = sm90_mutant_may_survive(*m);
    if (!sm90_mutant_may_survive(*m)) ADD_FAILURE() << h.solver << " survived " << h.result.cases << " cases";
    else std::printf("%s survived %lld cases (allowed: %s)\n", h.solver.c_str(), static_cast<long long>(h.result.cases),
                     sm90_mutant_expected_catch(*m).c_str());
  } else {
    // (No MAC-count check: the shrinker shrinks the generator's genome, and a simpler case, e.g. stride or
    // dilation 1 instead of 3, can have more MACs than the one found: s22's splitk_order, 27648 -> 34560.)
    const auto ctl = make_sm90_mutant(IgemmMutant::none, split);
    int tries = 0;
    const verify::CaseRecord again = rerun_until_failure(f->shrunk.repro, *solver, tries);
    const verify::CaseRecord ctl_shrunk = rerun(f->shrunk.repro, *ctl), ctl_found = rerun(f->found.repro, *ctl);
    EXPECT_TRUE(fails(again.verdict.status)) << "the shrunk case passed " << kReruns << " reruns: " << f->shrunk.repro;
    e["rerun_tries"] = tries;
    EXPECT_EQ(ctl_shrunk.verdict.status, verify::Status::passed) << "the shrunk case fails without the bug: " << ctl_shrunk.verdict.reason;
    EXPECT_EQ(ctl_found.verdict.status, verify::Status::passed) << "the found case fails without the bug: " << ctl_found.verdict.reason;
    e["shrunk_fails_on_rerun"] = fails(again.verdict.status);
    e["control_on_found"] = std::string(verify::status_name(ctl_found.verdict.status));
    e["control_on_shrunk"] = std::string(verify::status_name(ctl_shrunk.verdict.status));
    std::printf("%-26s caught after %4lld cases (%s); shrunk %.0f -> %.0f MACs in %d steps\n  repro: %s\n  %s\n", h.solver.c_str(),
                static_cast<long long>(f->cases_to_catch), std::string(verify::status_name(f->shrunk.verdict.status)).c_str(),
                f->found_size, f->shrunk_size, f->shrink_steps, f->shrunk.repro.c_str(), f->shrunk.verdict.reason.c_str());
  }
  if (const char* out = std::getenv(kChildOutEnv)) verify::write_json(out, e);
}

struct Child {
  int status = -1;  // exit code, or 128 + signal
  bool timed_out = false;
  double seconds = 0;
};

// This binary again with the child's filter and environment, its output to `log`; killed after
// `limit` seconds.
Child run_child(const std::string& mutant, const std::string& out, const std::string& log, int limit) {
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.push_back(std::string(kChildEnv) + "=" + mutant);
  env_s.push_back(std::string(kChildOutEnv) + "=" + out);
  std::vector<char*> envp, argv;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=Sm90MutantChild.Hunt", brief = "--gtest_brief=1";
  argv = {exe.data(), filter.data(), brief.data(), nullptr};
  Child c;
  pid_t pid = 0;
  const auto t0 = std::chrono::steady_clock::now();
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&io, STDOUT_FILENO, STDERR_FILENO);
  const int spawned = posix_spawn(&pid, exe.c_str(), &io, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&io);
  if (spawned != 0) return c;
  int st = 0;
  for (;;) {
    // The deadline first: a child that exits before the first poll must still be killed at limit 0 (the test of
    // the kill path raced with a fast child under load and once saw it exit 0).
    if (std::chrono::steady_clock::now() - t0 >= std::chrono::seconds(limit)) {
      c.timed_out = true;
      kill(pid, SIGKILL);  // our own child, by its pid
      waitpid(pid, &st, 0);
      break;
    }
    if (waitpid(pid, &st, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
  return c;
}

// The isolation itself (no GPU needed): a child runs and exits 0 (its hunt skips without an sm_90
// GPU, or hunts the control with one), and one past its limit is killed, not waited for.
TEST(Sm90MutantsHost, ChildProcessRunsAndIsKilledPastItsLimit) {
  if (std::getenv(kChildEnv)) GTEST_SKIP() << "a child process";
  const std::string out = (std::filesystem::temp_directory_path() / ("hiprim_sm90_child." + std::to_string(getpid()) + ".json")).string();
  if (gpu::igemm_sm90_unavailable().empty()) GTEST_SKIP() << "with a GPU the child would run a whole hunt here";
  const std::string log = out + ".log";
  const Child ok = run_child("none", out, log, 60);
  EXPECT_EQ(ok.status, 0);
  EXPECT_FALSE(ok.timed_out);
  const Child killed = run_child("none", out, log, 0);
  EXPECT_TRUE(killed.timed_out);
  EXPECT_EQ(killed.status, 128 + SIGKILL);
  std::filesystem::remove(out);
  std::filesystem::remove(log);
}

TEST(Sm90Mutants, EachCaughtAndShrunkInItsOwnProcess) {
  if (std::getenv(kChildEnv)) GTEST_SKIP() << "a child process";
  if (const std::string why = gpu::igemm_sm90_unavailable(); !why.empty()) GTEST_SKIP() << "needs an sm_90 GPU: " << why;
  const auto dir = std::filesystem::temp_directory_path() / ("hiprim_sm90_mutants." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::vector<IgemmMutant> order = {IgemmMutant::none};
  for (IgemmMutant m : all_sm90_mutants()) order.push_back(m);
  json mutants = json::array(), control;
  int caught = 0;
  for (IgemmMutant m : order) {
    const std::string name = sm90_mutant_name(m), out = (dir / (name + ".json")).string();
    std::printf("== %s (%s)\n", name.c_str(), sm90_mutant_expected_catch(m).c_str());
    std::fflush(stdout);
    const Child c = run_child(name, out, out + ".log", kChildSeconds);
    if (std::ifstream in(out + ".log"); in) std::cout << in.rdbuf() << std::flush;  // the child's output
    json e = std::filesystem::exists(out) ? verify::read_json(out) : json{{"mutant", name}, {"caught", false}};
    e["child_exit"] = c.status, e["child_timed_out"] = c.timed_out, e["child_seconds"] = c.seconds;
    EXPECT_EQ(c.status, 0) << name << ": its child failed" << (c.timed_out ? " (killed after the time limit: a hang)" : "");
    EXPECT_TRUE(std::filesystem::exists(out)) << name << ": its child wrote no entry";
    if (m == IgemmMutant::none) {
      control = e;
    } else {
      caught += e.value("caught", false) ? 1 : 0;
      mutants.push_back(e);
    }
  }
  std::filesystem::remove_all(dir);
  std::printf("%d of %zu mutants caught\n", caught, mutants.size());
  if (const char* path = std::getenv(kReportEnv); path && *path) {
    const json r = {{"kind", "sm90_mutants"},
                    {"command", "test_sm90_mutants --gtest_filter=Sm90Mutants.*"},
                    {"machine", verify::machine_json(verify::gpu_json())},
                    {"solver_path", "conv.igemm.wgmma: igemm_sm90_kernel / igemm_sm90_reduce / launch_tile, bf16 NHWC fwd"},
                    {"max_cases", kMaxCases},
                    {"control_cases", kControlCases},
                    {"caught", caught},
                    {"mutant_count", mutants.size()},
                    {"control", control},
                    {"mutants", mutants}};
    verify::write_json(path, r);
  }
}

}  // namespace
}  // namespace hiprim::fuzz_test
