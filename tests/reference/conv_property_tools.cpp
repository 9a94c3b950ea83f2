#include "tests/reference/conv_property_tools.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

namespace hiprim::test {

namespace gen = rc::gen;

rc::Gen<ConvProblem> gen_small_problem() {
  auto raw = gen::exec([] {
    ConvProblem p;
    const int rank = *gen::inRange(2, 4);
    p.dir = *gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
    p.dtype = *gen::element(DType::fp32, DType::fp16, DType::bf16);
    p.mode = *gen::element(ConvMode::conv, ConvMode::trans);
    p.channels_last = *gen::arbitrary<bool>();
    p.n = *gen::inRange<std::int64_t>(1, 4);
    p.groups = *gen::inRange<std::int64_t>(1, 4);
    const std::int64_t per_group_max = 6 / p.groups;
    p.c = p.groups * *gen::inRange<std::int64_t>(1, per_group_max + 1);
    p.k = p.groups * *gen::inRange<std::int64_t>(1, per_group_max + 1);
    const std::int64_t max_in = rank == 3 ? 4 : 7;
    p.in = p.filter = p.pad = p.stride = p.dilation = p.out_pad = Dims(static_cast<std::size_t>(rank));
    for (std::size_t a = 0; a < p.in.size(); ++a) {
      p.in[a] = *gen::inRange<std::int64_t>(1, max_in + 1);
      p.filter[a] = *gen::inRange<std::int64_t>(1, 4);
      p.pad[a] = *gen::inRange<std::int64_t>(0, 3);
      p.stride[a] = *gen::inRange<std::int64_t>(1, 4);
      p.dilation[a] = *gen::inRange<std::int64_t>(1, 3);
      if (p.mode == ConvMode::trans)
        p.out_pad[a] = *gen::inRange<std::int64_t>(0, std::max(p.stride[a], p.dilation[a]));
    }
    p.bias = p.dir == ConvDir::fwd && *gen::arbitrary<bool>();
    return p;
  });
  return gen::suchThat(raw, [](const ConvProblem& p) { return p.valid(); });
}

void fill_random(HostTensor& t, std::mt19937& rng, bool integers) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> whole(-3, 3);
  for_each_index(t.desc.dims, [&](const Dims& i) {
    t.at(i) = integers ? static_cast<float>(whole(rng)) : round_to(t.desc.dtype, real(rng));
  });
}

ConvHostTensors random_tensors(const ConvProblem& p, std::uint32_t seed, bool integers) {
  std::mt19937 rng(seed);
  ConvHostTensors t{HostTensor(p.x_desc()), HostTensor(p.w_desc()), HostTensor(p.y_desc()), HostTensor(p.bias_desc())};
  for (HostTensor* h : {&t.x, &t.w, &t.y, &t.bias}) fill_random(*h, rng, integers);
  return t;
}

HostTensor relayout(const HostTensor& t, const TensorDesc& d, float gap_value) {
  HostTensor r(d);
  std::fill(r.data.begin(), r.data.end(), gap_value);
  for_each_index(d.dims, [&](const Dims& i) { r.at(i) = t.at(i); });
  return r;
}

TensorDesc padded_desc(const TensorDesc& d, std::int64_t gap) {
  std::vector<std::size_t> order(d.dims.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d.strides[a] < d.strides[b]; });
  TensorDesc r = d;
  std::int64_t span = 1;  // elements covered by the dims inside the current one
  for (std::size_t i : order) {
    r.strides[i] = span + gap;
    span = d.dims[i] * r.strides[i];
  }
  return r;
}

double value_at(const ref::ConvOutput& o, const Dims& index) {
  return o.value[static_cast<std::size_t>(o.desc.offset(index))];
}

double abs_sum_at(const ref::ConvOutput& o, const Dims& index) {
  return o.abs_sum[static_cast<std::size_t>(o.desc.offset(index))];
}

double dot(const ref::ConvOutput& a, const HostTensor& b) {
  double s = 0.0;
  for_each_index(a.desc.dims, [&](const Dims& i) { s += value_at(a, i) * double(b.at(i)); });
  return s;
}

double abs_dot(const ref::ConvOutput& a, const HostTensor& b) {
  double s = 0.0;
  for_each_index(a.desc.dims, [&](const Dims& i) { s += abs_sum_at(a, i) * std::fabs(double(b.at(i))); });
  return s;
}

std::int64_t count_mismatches(const ref::ConvOutput& a, const ref::ConvOutput& b, double rel, double abs_floor) {
  std::int64_t bad = 0;
  for_each_index(a.desc.dims, [&](const Dims& i) {
    const double tol = rel * abs_sum_at(a, i) + abs_floor;
    const bool v_ok = std::fabs(value_at(a, i) - value_at(b, i)) <= tol;
    const bool s_ok = std::fabs(abs_sum_at(a, i) - abs_sum_at(b, i)) <= tol;
    if (v_ok && s_ok) return;
    if (bad++ < 3) {
      std::cerr << "  mismatch at [";
      for (std::size_t k = 0; k < i.size(); ++k) std::cerr << (k ? "," : "") << i[k];
      std::cerr << "]: value " << value_at(a, i) << " vs " << value_at(b, i) << ", abs_sum " << abs_sum_at(a, i)
                << " vs " << abs_sum_at(b, i) << ", tol " << tol << "\n";
    }
  });
  return bad;
}

}  // namespace hiprim::test
