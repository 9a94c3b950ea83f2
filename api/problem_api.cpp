// The C API's problem-string entry points (include/hiprim/hiprim.h): any primitive of the one
// problem model, parsed by parse_op_problem, run by the backend's first solver of
// verify::all_solvers() that takes it, its buffers in the order of OpProblem::tensors().
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/api_objects.hpp"
#include "core/op_problem.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"

using hiprim::api::ApiError;

namespace {

hiprim::OpProblemPtr problem_of(hiprimHandle& h, const char* text) {
  if (text == nullptr) throw ApiError(hiprimStatusInvalidValue, "problem is null");
  hiprim::OpProblemPtr p = hiprim::parse_op_problem(text);  // InputError: the parser's message
  if (auto errors = p->validate(); !errors.empty()) throw ApiError(hiprimStatusBadParm, "invalid problem: " + errors.front());
  (void)h;
  return p;
}

std::size_t tensor_bytes(const hiprim::OpTensor& t) {
  return static_cast<std::size_t>(t.desc.storage_elements()) * hiprim::dtype_size(t.desc.dtype);
}

}  // namespace

extern "C" {

hiprimStatus_t hiprimProblemTensorCount(hiprimHandle_t handle, const char* problem, int* count) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (count == nullptr) throw ApiError(hiprimStatusInvalidValue, "count is null");
    *count = static_cast<int>(problem_of(h, problem)->tensors().size());
  });
}

hiprimStatus_t hiprimProblemTensorInfo(hiprimHandle_t handle, const char* problem, int index, const char** name, size_t* bytes,
                                       int* role) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (name == nullptr || bytes == nullptr || role == nullptr) throw ApiError(hiprimStatusInvalidValue, "an output pointer is null");
    const auto tensors = problem_of(h, problem)->tensors();
    if (index < 0 || index >= static_cast<int>(tensors.size()))
      throw ApiError(hiprimStatusInvalidValue, "tensor index " + std::to_string(index) + " outside [0, " + std::to_string(tensors.size()) + ")");
    h.last_tensor_name = tensors[static_cast<std::size_t>(index)].name;  // valid until the handle's next info call
    *name = h.last_tensor_name.c_str();
    *bytes = tensor_bytes(tensors[static_cast<std::size_t>(index)]);
    *role = static_cast<int>(tensors[static_cast<std::size_t>(index)].role);
  });
}

hiprimStatus_t hiprimProblemWorkSpaceSize(hiprimHandle_t handle, const char* problem, size_t* workspace_size) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) {
    if (workspace_size == nullptr) throw ApiError(hiprimStatusInvalidValue, "workspace_size is null");
    const auto p = problem_of(h, problem);
    const auto c = hiprim::api::choose_op_solver(h, *p);
    *workspace_size = c.solver->config_workspace_bytes(*p, c.config);
  });
}

hiprimStatus_t hiprimRunProblem(hiprimHandle_t handle, const char* problem, void* const* buffers, int buffer_count, void* workspace,
                                size_t workspace_size) {
  return hiprim::api::guarded(handle, [&](hiprimHandle& h) { hiprim::api::run_problem(h, problem, buffers, buffer_count, workspace, workspace_size); });
}

}  // extern "C"

namespace hiprim::api {

verify::Chosen<OpSolver> choose_op_solver(const hiprimHandle& h, const OpProblem& p) {
  return first_solver(h, verify::all_solvers(), p, p.str(), [&](const OpSolver& s) { return s.op() == p.op(); });
}

void run_chosen(hiprimHandle& h, const OpProblem& p, const verify::Chosen<OpSolver>& c, const std::vector<void*>& buffers, void* workspace,
                std::size_t workspace_size, bool own_workspace) {
  const OpSolver& s = *c.solver;
  const std::size_t need = s.config_workspace_bytes(p, c.config);
  if (need > 0 && workspace == nullptr && own_workspace) workspace = handle_workspace(h, need), workspace_size = need;
  if (need > 0 && (workspace == nullptr || workspace_size < need))
    throw ApiError(hiprimStatusBadParm, "the workspace (" + std::to_string(workspace == nullptr ? 0 : workspace_size) +
                                            " bytes) is smaller than the " + std::to_string(need) + " bytes " + s.name() + " needs");
  if (const char* log = std::getenv("HIPRIM_LOG_CMD"); log && *log && std::string(log) != "0")
    std::fprintf(stderr, "hiprim repro \"%s\" --solver %s%s\n", p.str().c_str(), s.name().c_str(),
                 c.config.empty() ? "" : (" --config " + c.config).c_str());
  h.last_solver = s.name();
  s.run_config(p, buffers, workspace, workspace_size, h.stream, c.config);
}

void run_problem(hiprimHandle& h, const char* problem, void* const* buffers, int buffer_count, void* workspace, std::size_t workspace_size,
                 bool own_workspace) {
  const auto p = problem_of(h, problem);
  const auto tensors = p->tensors();
  if (buffers == nullptr || buffer_count != static_cast<int>(tensors.size()))
    throw ApiError(hiprimStatusInvalidValue, p->str() + " takes " + std::to_string(tensors.size()) + " buffers, " +
                                                 std::to_string(buffers == nullptr ? 0 : buffer_count) + " given");
  for (int i = 0; i < buffer_count; ++i)
    if (buffers[i] == nullptr) throw ApiError(hiprimStatusInvalidValue, "buffer " + std::to_string(i) + " (" + tensors[i].name + ") is null");
  run_chosen(h, *p, choose_op_solver(h, *p), std::vector<void*>(buffers, buffers + buffer_count), workspace, workspace_size, own_workspace);
}

}  // namespace hiprim::api
