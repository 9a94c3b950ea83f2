#include "reference/op_reference.hpp"

#include <map>
#include <mutex>

#include "core/error.hpp"

namespace hiprim::ref {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, OpReferenceWithOptionsFn, std::less<>> fns;
};

Registry& storage() {
  static Registry r;
  return r;
}

void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, [] { register_builtin_op_references(); });
}

OpReferenceWithOptionsFn find(std::string_view op) {
  ensure_builtins();
  Registry& r = storage();
  std::lock_guard lock(r.mutex);
  auto it = r.fns.find(op);
  return it == r.fns.end() ? OpReferenceWithOptionsFn() : it->second;
}

}  // namespace

OpExpected make_expected(const std::string& name, const TensorDesc& d, std::string rule) {
  const auto n = static_cast<std::size_t>(d.storage_elements());
  return OpExpected{name, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::move(rule)};
}

void register_op_reference(std::string op, OpReferenceFn fn) {
  register_op_reference(std::move(op), OpReferenceWithOptionsFn(
                                           [fn = std::move(fn)](const OpProblem& p, const std::vector<const HostTensor*>& in,
                                                                const OpReferenceOptions&) { return fn(p, in); }));
}

void register_op_reference(std::string op, OpReferenceWithOptionsFn fn) {
  Registry& r = storage();
  std::lock_guard lock(r.mutex);
  r.fns[std::move(op)] = std::move(fn);
}

bool has_op_reference(std::string_view op) { return static_cast<bool>(find(op)); }

std::vector<OpExpected> op_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs,
                                    const OpReferenceOptions& options) {
  const OpReferenceWithOptionsFn fn = find(p.op());
  if (!fn) throw InputError("no CPU reference for op '" + p.op() + "'");
  const std::vector<OpTensor> ts = p.tensors();
  if (inputs.size() != ts.size())
    throw InputError("reference of " + p.op() + ": got " + std::to_string(inputs.size()) + " tensors, the problem has " +
                     std::to_string(ts.size()));
  std::size_t outputs = 0;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].role != OpTensor::Role::input) ++outputs;
    if (ts[i].role == OpTensor::Role::output) continue;
    if (!inputs[i]) throw InputError("reference of " + p.op() + ": tensor " + ts[i].name + " is missing");
    if (inputs[i]->desc.dims != ts[i].desc.dims || inputs[i]->desc.dtype != ts[i].desc.dtype)
      throw InputError("reference of " + p.op() + ": tensor " + ts[i].name + " is " + inputs[i]->desc.str() + ", expected " +
                       ts[i].desc.str());
  }
  std::vector<OpExpected> out = fn(p, inputs, options);
  if (out.size() != outputs)
    throw RuntimeError("reference of " + p.op() + " returned " + std::to_string(out.size()) + " tensors, expected " +
                       std::to_string(outputs));
  std::size_t k = 0;
  for (const OpTensor& t : ts) {
    if (t.role == OpTensor::Role::input) continue;
    const OpExpected& e = out[k++];
    const auto n = static_cast<std::size_t>(t.desc.storage_elements());
    if (e.tensor != t.name || e.value.size() != n || e.bound.size() != n)
      throw RuntimeError("reference of " + p.op() + ": answer for tensor '" + e.tensor + "' does not match tensor " + t.name +
                         " " + t.desc.str());
  }
  return out;
}

}  // namespace hiprim::ref
