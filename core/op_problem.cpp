#include "core/op_problem.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.hpp"
#include "core/op_solver.hpp"

namespace hiprim {

std::string_view op_tensor_role_name(OpTensor::Role r) {
  switch (r) {
    case OpTensor::Role::input: return "input";
    case OpTensor::Role::output: return "output";
    case OpTensor::Role::in_out: return "in_out";
  }
  return "?";
}

double op_tensor_bytes(const std::vector<OpTensor>& tensors) {
  double b = 0;
  for (const OpTensor& t : tensors) {
    const double one = static_cast<double>(t.desc.elements()) * static_cast<double>(dtype_size(t.desc.dtype));
    b += t.role == OpTensor::Role::in_out ? 2 * one : one;
  }
  return b;
}

namespace {

struct ParserRegistry {
  std::mutex mutex;
  std::map<std::string, OpParser, std::less<>> parsers;
};

ParserRegistry& registry_storage() {
  static ParserRegistry r;
  return r;
}

// The built-in parsers go in before the first lookup (register_op_parser itself does not wait for
// this, so the catalog can call it).
void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, [] { register_builtin_op_parsers(); });
}

}  // namespace

void register_op_parser(std::string op, OpParser parse) {
  ParserRegistry& r = registry_storage();
  std::lock_guard lock(r.mutex);
  r.parsers[std::move(op)] = std::move(parse);
}

std::vector<std::string> op_names() {
  ensure_builtins();
  ParserRegistry& r = registry_storage();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (auto& [name, fn] : r.parsers) names.push_back(name);
  return names;
}

std::string first_token(std::string_view s) {
  std::istringstream is{std::string(s)};
  std::string w;
  is >> w;
  return w;
}

OpProblemPtr parse_op_problem(std::string_view s) {
  const std::string op = first_token(s);
  if (op.empty()) throw InputError("problem string is empty; expected '<op> ...', e.g. \"activ fwd relu fp32 nchw n1 c3 in8x8\"");
  OpParser parse;
  {
    ensure_builtins();
    ParserRegistry& r = registry_storage();
    std::lock_guard lock(r.mutex);
    auto it = r.parsers.find(op);
    if (it != r.parsers.end()) parse = it->second;
  }
  if (!parse) {
    std::string known;
    for (auto& n : op_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("problem string: token 1 '" + op + "': unknown primitive; known: " + known);
  }
  return parse(s);
}

void throw_invalid_problem(std::string_view op, std::string_view source, const std::vector<std::string>& errors) {
  std::string msg = "invalid " + std::string(op) + " problem";
  if (!source.empty()) msg += " \"" + std::string(source) + "\"";
  msg += ":";
  for (auto& e : errors) msg += "\n  - " + e;
  throw InputError(msg);
}

void check_op_run(const std::string& solver, const OpProblem& p, bool right_type, std::size_t buffers,
                  std::size_t ws_bytes, std::size_t ws_needed) {
  if (!right_type) throw InputError(solver + ": not a problem of its op: " + p.str());
  const std::size_t need = p.tensors().size();
  if (buffers != need)
    throw InputError(solver + ": got " + std::to_string(buffers) + " buffers, the problem has " + std::to_string(need) + " tensors");
  if (ws_bytes < ws_needed)
    throw InputError(solver + ": workspace of " + std::to_string(ws_bytes) + " bytes, needs " + std::to_string(ws_needed));
}

}  // namespace hiprim
