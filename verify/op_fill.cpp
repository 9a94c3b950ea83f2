#include "verify/op_fill.hpp"

#include <cmath>
#include <map>
#include <mutex>

#include "core/error.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, OpFillFn, std::less<>> fns;
};

Registry& storage() {
  static Registry r;
  return r;
}

OpFillFn find(std::string_view op) {
  static std::once_flag once;
  std::call_once(once, [] { register_builtin_op_fills(); });
  Registry& r = storage();
  std::lock_guard lock(r.mutex);
  auto it = r.fns.find(op);
  return it == r.fns.end() ? OpFillFn() : it->second;
}

}  // namespace

void register_op_fill(std::string op, OpFillFn fn) {
  Registry& r = storage();
  std::lock_guard lock(r.mutex);
  r.fns[std::move(op)] = std::move(fn);
}

bool has_op_fill(std::string_view op) { return static_cast<bool>(find(op)); }

HostTensor hashed_tensor(const TensorDesc& d, std::uint64_t seed, std::uint64_t tag, const std::function<double(double unit)>& value) {
  HostTensor t(d);
  std::uint64_t i = 0;
  for_each_index(d.dims, [&](const Dims& idx) {
    // Top 53 bits of the hash -> a double in [0, 1) exactly (as verify/fill.cpp's bounded tier).
    const double unit = std::ldexp(static_cast<double>(fill_hash(seed, tag, i++) >> 11), -53);
    t.data[static_cast<std::size_t>(d.offset(idx))] = round_to(d.dtype, value(unit));
  });
  return t;
}

HostTensor uniform_tensor(const TensorDesc& d, std::uint64_t seed, std::uint64_t tag, double lo, double hi) {
  return hashed_tensor(d, seed, tag, [lo, hi](double u) { return lo + (hi - lo) * u; });
}

std::vector<HostTensor> fill_op_tensors(const OpProblem& p, const std::function<HostTensor(std::size_t, const OpTensor&)>& fill_one) {
  std::vector<HostTensor> out;
  const auto ts = p.tensors();
  for (std::size_t i = 0; i < ts.size(); ++i)
    out.push_back(ts[i].role == OpTensor::Role::output ? HostTensor(ts[i].desc) : fill_one(i, ts[i]));
  return out;
}

std::vector<HostTensor> default_op_fill(const OpProblem& p, std::uint64_t seed) {
  return fill_op_tensors(p, [&](std::size_t i, const OpTensor& t) { return uniform_tensor(t.desc, seed, i + 1, -1.0, 1.0); });
}

std::vector<HostTensor> op_fill(const OpProblem& p, std::uint64_t seed) {
  const OpFillFn fn = find(p.op());
  std::vector<HostTensor> out = fn ? fn(p, seed) : default_op_fill(p, seed);
  const auto ts = p.tensors();
  if (out.size() != ts.size())
    throw RuntimeError("fill of " + p.op() + " returned " + std::to_string(out.size()) + " tensors, the problem has " +
                       std::to_string(ts.size()));
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!(out[i].desc == ts[i].desc) || out[i].data.size() != static_cast<std::size_t>(ts[i].desc.storage_elements()))
      throw RuntimeError("fill of " + p.op() + ": tensor " + ts[i].name + " is " + out[i].desc.str() + ", expected " +
                         ts[i].desc.str());
  return out;
}

}  // namespace hiprim::verify
