#include "tests/gpu/conv_exact_cases.hpp"

#include <rapidcheck.h>

#include "reference/conv.hpp"

namespace hiprim::gputest {

std::vector<ConvProblem> every_direction_and_dtype(std::span<const char* const> problems) {
  std::vector<ConvProblem> all;
  for (const char* s : problems)
    for (ConvDir d : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
      for (DType t : {DType::fp32, DType::fp16, DType::bf16})
        for (bool bias : {false, true}) {
          if (bias && d != ConvDir::fwd) continue;
          ConvProblem p = parse_conv_problem(s);
          p.dir = d, p.dtype = t, p.bias = bias;
          all.push_back(p);
        }
  return all;
}

std::string first_mismatch(const HostTensor& out, const std::vector<float>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!(out.data[i] == expected[i]))
      return "output element at storage offset " + std::to_string(i) + " is " + std::to_string(out.data[i]) +
             ", expected " + std::to_string(expected[i]);
  return "";
}

ConvProblem pick_small_problem(bool allow_3d) {
  ConvProblem p;
  const int rank = allow_3d ? *rc::gen::inRange(2, 4) : 2;
  p.dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  p.channels_last = *rc::gen::arbitrary<bool>();
  p.mode = *rc::gen::weightedElement<ConvMode>({{2, ConvMode::conv}, {1, ConvMode::trans}});
  p.groups = *rc::gen::inRange(1, 4);
  p.n = *rc::gen::inRange(1, 3);
  p.c = p.groups * *rc::gen::inRange(1, 4);
  p.k = p.groups * *rc::gen::inRange(1, 4);
  const int max_in = rank == 2 ? 9 : 5;
  p.in = p.filter = p.pad = p.stride = p.dilation = p.out_pad = Dims(rank);
  for (int i = 0; i < rank; ++i) {
    p.in[i] = *rc::gen::inRange(1, max_in);
    p.filter[i] = *rc::gen::inRange(1, 4);
    p.pad[i] = *rc::gen::inRange(0, 3);
    p.stride[i] = *rc::gen::inRange(1, 4);
    p.dilation[i] = *rc::gen::inRange(1, 3);
    p.out_pad[i] = p.mode == ConvMode::trans ? *rc::gen::inRange<std::int64_t>(0, std::max(p.stride[i], p.dilation[i])) : 0;
  }
  p.bias = p.dir == ConvDir::fwd && *rc::gen::arbitrary<bool>();
  return p;
}

HostTensor integer_tensor(const TensorDesc& desc, std::uint32_t seed) {
  HostTensor t(desc);
  std::uint64_t h = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (auto& v : t.data) {
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h += 0x94D049BB133111EBull;
    v = static_cast<float>(static_cast<int>((h >> 33) % 5) - 2);
  }
  return t;
}

ConvCase make_case(const ConvProblem& p, std::uint32_t seed) {
  return {integer_tensor(p.x_desc(), seed), integer_tensor(p.w_desc(), seed + 101),
          integer_tensor(p.y_desc(), seed + 202), integer_tensor(p.bias_desc(), seed + 303)};
}

std::vector<float> expected_output(const ConvProblem& p, const ConvCase& c) {
  const ref::ConvOutput r = ref::conv(p, ref::ConvInputs{&c.x, &c.w, &c.y, p.bias ? &c.bias : nullptr}, false);
  std::vector<float> e(r.value.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = round_to(p.dtype, r.value[i]);
  return e;
}

}  // namespace hiprim::gputest
