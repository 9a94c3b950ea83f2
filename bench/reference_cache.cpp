#include "bench/reference_cache.hpp"

#include <chrono>
#include <cstring>

#include "core/error.hpp"
#include "verify/fill.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify {

ConvProblem reference_key_problem(const ConvProblem& p) {
  ConvProblem q = p;
  q.dtype = DType::fp32;
  q.channels_last = false;
  return q;
}

std::string reference_key(const ConvProblem& p) { return to_string(reference_key_problem(p)); }

ref::ConvOutput exact_reference(const ConvProblem& key, std::uint64_t seed) {
  if (exact_fill_range(key) == 0)
    throw InputError("exact_reference: the dot products of " + to_string(key) + " (L = " +
                     std::to_string(key.reduction_length()) + ") are too long for exact integer sums in fp32");
  RunOptions ro;
  ro.seed = seed;
  ro.fill = FillTier::exact;
  const PreparedCase c(key, ro);  // the runner's own fills: the same inputs every variant gets
  return ref::conv(key, conv_inputs(c), /*with_abs_sum=*/false);
}

void ReferenceCache::expect(const ConvProblem& p) {
  std::lock_guard<std::mutex> lock(m_);
  ++entries_[reference_key(p)].declared;
}

std::shared_ptr<const ref::ConvOutput> ReferenceCache::get(const ConvProblem& p) {
  const std::string key = reference_key(p);
  std::unique_lock<std::mutex> lock(m_);
  Entry& e = entries_[key];
  ready_.wait(lock, [&] { return !e.computing; });
  if (e.value) {
    ++stats_.hits;
    return e.value;
  }
  e.computing = true;
  lock.unlock();
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const ref::ConvOutput> value;
  try {
    value = std::make_shared<const ref::ConvOutput>(exact_reference(reference_key_problem(p), seed_));
  } catch (...) {
    lock.lock();
    e.computing = false;
    ready_.notify_all();
    throw;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  lock.lock();
  e.value = value;
  e.computing = false;
  ++stats_.computed;
  stats_.compute_s += s;
  ready_.notify_all();
  return value;
}

void ReferenceCache::release(const ConvProblem& p) {
  std::lock_guard<std::mutex> lock(m_);
  auto it = entries_.find(reference_key(p));
  if (it == entries_.end() || it->second.declared <= 0) return;
  if (--it->second.declared == 0 && !it->second.computing) entries_.erase(it);
}

void ReferenceCache::clear() {
  std::lock_guard<std::mutex> lock(m_);
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second.computing ? std::next(it) : entries_.erase(it);
}

ReferenceCache::Stats ReferenceCache::stats() const {
  std::lock_guard<std::mutex> lock(m_);
  Stats s = stats_;
  s.held = 0;
  for (const auto& [k, e] : entries_) s.held += e.value ? 1 : 0;
  return s;
}

// ---- ExactJudge ----

ExactJudge::ExactJudge(std::shared_ptr<const ref::ConvOutput> reference, const TensorDesc& out_desc)
    : ref_(std::move(reference)), correct_(out_desc) {
  if (!ref_) throw InputError("ExactJudge: no reference");
  if (ref_->desc.dims != out_desc.dims)
    throw InputError("ExactJudge: output " + out_desc.str() + " and reference " + ref_->desc.str() + " have different dims");
  for_each_index(out_desc.dims, [&](const Dims& i) {
    correct_.at(i) = round_to(out_desc.dtype, ref_->value[static_cast<std::size_t>(ref_->desc.offset(i))]);
  });
  correct_bytes_ = correct_.to_bytes();
}

Verdict ExactJudge::judge(const HostTensor& got, const Tolerance& tol) const {
  if (tol.tier != FillTier::exact) throw InputError("ExactJudge: the tolerance is not the exact tier's: " + tol.describe());
  const bool identical = got.desc == correct_.desc && got.data.size() == correct_.data.size() &&
                         std::memcmp(got.data.data(), correct_.data.data(), got.data.size() * sizeof(float)) == 0;
  if (!identical) return compare(got, ref_->value, ref_->abs_sum, ref_->desc, tol);
  const std::string key = tol.describe();
  std::lock_guard<std::mutex> lock(m_);
  ++fast_;
  auto it = correct_verdict_.find(key);
  if (it == correct_verdict_.end())
    it = correct_verdict_.emplace(key, compare(correct_, ref_->value, ref_->abs_sum, ref_->desc, tol)).first;
  return it->second;
}

Verdict ExactJudge::judge_bytes(const std::vector<unsigned char>& bytes, const Tolerance& tol) const {
  if (tol.tier != FillTier::exact) throw InputError("ExactJudge: the tolerance is not the exact tier's: " + tol.describe());
  if (bytes.size() != correct_bytes_.size())
    throw InputError("ExactJudge::judge_bytes: " + std::to_string(bytes.size()) + " bytes for an output of " +
                     std::to_string(correct_bytes_.size()) + " (" + correct_.desc.str() + ")");
  if (bytes == correct_bytes_) return judge(correct_, tol);  // the same values: the correct output's verdict
  HostTensor got(correct_.desc);
  got.from_bytes(bytes.data());
  return judge(got, tol);
}

int ExactJudge::fast_verdicts() const {
  std::lock_guard<std::mutex> lock(m_);
  return fast_;
}

}  // namespace hiprim::verify
