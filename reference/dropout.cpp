#include "reference/dropout.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/philox.hpp"
#include "reference/error_model.hpp"

namespace hiprim::ref {

bool dropout_keep(const DropoutProblem& p, std::uint64_t i) { return dropout_word(p.seed, i) >= p.threshold(); }

std::vector<OpExpected> dropout_expected(const OpProblem& op, const std::vector<const HostTensor*>& in) {
  const DropoutProblem* p = op_problem_cast<DropoutProblem>(op);
  if (!p) throw InputError("dropout reference: not a dropout problem: " + op.str());
  const DType dt = p->shape.dtype;
  const HostTensor& x = *in[0];
  const double scale = static_cast<double>(p->scale());  // the fp32 scale, exact in double
  OpExpected e = make_expected(p->dir == DropoutDir::fwd ? "y" : "dx", x.desc,
                               "dropped: exactly 0; kept: u*|v*scale| (fp32 product, u=2^-24) + store into " + std::string(dtype_name(dt)));
  std::uint64_t i = 0;
  for_each_index(x.desc.dims, [&](const Dims& idx) {
    const auto o = static_cast<std::size_t>(x.desc.offset(idx));
    if (dropout_keep(*p, i++)) {
      const double v = x.data[o] * scale;  // 24 x 24 significant bits: exact in double
      e.value[o] = v;
      e.bound[o] = stored_bound(dt, v, kUnitFp32 * std::fabs(v));
    }
  });
  return {e};
}

}  // namespace hiprim::ref
