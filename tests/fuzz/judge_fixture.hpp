// Tiny 1x4 fp32 outputs for the special-value judge's tests (test_special, test_implicit_zeros).
#pragma once
#include <cmath>
#include <vector>

#include "core/tensor.hpp"
#include "reference/conv.hpp"

namespace hiprim::fuzz_test {

// Expected values of a 1x4 fp32 output (abs_sum = |value| + 1 for finite ones, the value itself else).
inline ref::ConvOutput expected_of(const std::vector<double>& v) {
  ref::ConvOutput e;
  e.desc = TensorDesc::packed(DType::fp32, {1, 1, 1, 4}, false);
  e.value = v;
  for (double x : v) e.abs_sum.push_back(std::isfinite(x) ? std::fabs(x) + 1 : x);
  return e;
}

// A solver's 1x4 fp32 output.
inline HostTensor got_of(const std::vector<float>& v) {
  HostTensor t(TensorDesc::packed(DType::fp32, {1, 1, 1, 4}, false));
  t.data = v;
  return t;
}

}  // namespace hiprim::fuzz_test
