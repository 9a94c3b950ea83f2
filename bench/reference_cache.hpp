// The bench's CPU references, shared between the dtype x layout variants of one problem, and the
// exact-tier judge that checks a solver's (or a peer plan's) full output against one of them.
//
// Why one reference serves every dtype and layout (exact tier only): fill_value(exact, ...) is the
// integer (h mod (2r+1)) - r of h = hash(seed, tag, logical index): it ignores the dtype, the
// logical index does not depend on the layout, and r = exact_fill_range(L) depends only on the dot
// product length L, which dtype and layout do not change. Every such integer (|v| <= 4) is exact in
// fp32, fp16 and bf16, so round_to(dtype, v) = v and the reference (double sums of the same logical
// terms) is the same number at every logical index. compare() reads the expected values through
// their own descriptor, so the reference laid out for the key problem (fp32, channels first) judges
// an output in any layout; the output dtype enters only through the tolerance (round_to(out, e)).
// The bounded tier rounds reals to the dtype: no sharing there.
//
// The bench computes references ahead of the device work on a background thread (ref::conv_fast
// spreads each one over every hardware thread) and keeps each until the last problem that declared
// it has released it.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"

namespace hiprim::verify {

// p with dtype fp32 and channels first (nchw / ncdhw): the problem whose reference is shared.
ConvProblem reference_key_problem(const ConvProblem& p);
// to_string(reference_key_problem(p)).
std::string reference_key(const ConvProblem& p);

// The exact-tier reference of a key problem: inputs filled as PreparedCase fills them (seed, tags
// kTagX.., r = exact_fill_range(p)), output in double, no abs_sum (the exact tier needs none).
// InputError when p's dot products are too long for the exact tier (exact_fill_range = 0).
ref::ConvOutput exact_reference(const ConvProblem& key, std::uint64_t seed);

class ReferenceCache {
 public:
  explicit ReferenceCache(std::uint64_t seed) : seed_(seed) {}
  // Declares one more future get/release of p's key (the entry is dropped after the last release).
  void expect(const ConvProblem& p);
  // The shared reference of p's key, computed on first use (other callers of the same key wait for
  // it); thread-safe. Keys never declared are kept until clear().
  std::shared_ptr<const ref::ConvOutput> get(const ConvProblem& p);
  // One declared use of p's key is over.
  void release(const ConvProblem& p);
  void clear();

  struct Stats {
    int computed = 0, hits = 0, held = 0;
    double compute_s = 0;  // wall time spent computing
  };
  Stats stats() const;

 private:
  struct Entry {
    std::shared_ptr<const ref::ConvOutput> value;
    bool computing = false;
    int declared = 0;  // uses still expected
  };
  std::uint64_t seed_;
  mutable std::mutex m_;
  std::condition_variable ready_;
  std::map<std::string, Entry> entries_;
  Stats stats_;
};

// Judges outputs of one problem against its exact-tier reference. The correct output (the reference
// rounded to the output dtype, laid out as `out_desc`) is built once with its verdict, compare() on
// it; an output whose stored values equal it bit for bit gets that same verdict without a second
// scan (compare() is a function of those values, so the verdict is the one compare() would give).
// Any other output goes through compare() in full. Thread-safe after construction.
class ExactJudge {
 public:
  // InputError when out_desc's dims differ from the reference's.
  ExactJudge(std::shared_ptr<const ref::ConvOutput> reference, const TensorDesc& out_desc);
  Verdict judge(const HostTensor& got, const Tolerance& tol) const;
  // The same for an output as the device stores it (out_desc's storage in its dtype): bytes equal to
  // the correct output's give its verdict without converting them; others are converted and judged.
  Verdict judge_bytes(const std::vector<unsigned char>& bytes, const Tolerance& tol) const;
  const ref::ConvOutput& reference() const { return *ref_; }
  int fast_verdicts() const;  // outputs judged by the bitwise match

 private:
  std::shared_ptr<const ref::ConvOutput> ref_;
  HostTensor correct_;
  std::vector<unsigned char> correct_bytes_;
  mutable std::mutex m_;
  mutable std::map<std::string, Verdict> correct_verdict_;  // by Tolerance::describe()
  mutable int fast_ = 0;
};

}  // namespace hiprim::verify
