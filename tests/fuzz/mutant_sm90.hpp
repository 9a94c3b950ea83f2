// GPU mutants of conv.igemm.wgmma's Hopper pipeline (issue 11): the production kernel path
// (igemm_sm90_kernel / igemm_sm90_reduce / launch_tile) with one planted bug each, selected by the
// IgemmMutant template parameter (gpu/conv/igemm_sm90_mutant.hpp) and instantiated only in
// tests/fuzz/mutant_sm90.hip, for one config: bf16 NHWC fwd, m128n128k64.s3 .ws.tma, split-K 3 where
// the mutant's policy asks for it (else 1). Solvers "sm90.mutant.<name>" for the fuzzer; the control
// (none) is the unmodified kernel run the same way.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"
#include "gpu/conv/igemm_sm90_mutant.hpp"

namespace hiprim::fuzz_test {

using gpu::sm90::IgemmMutant;

std::string sm90_mutant_name(IgemmMutant m);         // "none", "parity", ...
std::string sm90_mutant_description(IgemmMutant m);  // the bug, and where it is planted
// How the fuzzer catches it: "wrong answer", "watchdog error (deadlock)", "nondeterminism (second run differs)",
// or a combination ("wrong answer or watchdog error").
std::string sm90_mutant_expected_catch(IgemmMutant m);
std::vector<IgemmMutant> all_sm90_mutants();         // none excluded
std::optional<IgemmMutant> sm90_mutant_by_name(const std::string& name);

// The config a mutant runs p with (split-K 3 for splitk_order and for the split control when p has at
// least 3 k-blocks, else 1): host-only, for tests without a GPU too.
std::string sm90_mutant_config(const ConvProblem& p, bool split);
// Whether mutant m uses the split-K config (splitk_order); the control runs both (split = true covers
// the reduction path and, below 3 k-blocks, the direct one).
bool sm90_mutant_splits(IgemmMutant m);
// Whether surviving a hunt is an accepted outcome: no_fence (ptxas re-inserts the wgmma.fence itself,
// warning C7520, so only the proxy fence is missing, and that race need not show in a bounded hunt).
bool sm90_mutant_may_survive(IgemmMutant m);

// The solver (Backend::device). run() synchronises its stream and throws RuntimeError ("watchdog: ...")
// when an mbarrier wait of the mutant kernel timed out. split: the split-K config policy.
std::shared_ptr<const ConvSolver> make_sm90_mutant(IgemmMutant m, bool split);

}  // namespace hiprim::fuzz_test
