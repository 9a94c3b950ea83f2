#include "tests/gpu/conv_exact_cases.hpp"

#include <rapidcheck.h>

#include <cstdlib>
#include <cstring>
#include <memory>

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

namespace {

constexpr std::size_t kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5, kPoison = 0xFF;

// Host bytes with kGuard guard bytes either side; the payload starts 64-byte aligned plus `shift`.
struct Guarded {
  std::size_t n = 0, shift = 0;
  std::unique_ptr<unsigned char[], decltype(&std::free)> mem{nullptr, &std::free};
  Guarded(std::size_t bytes, std::size_t shift_bytes) : n(bytes), shift(shift_bytes) {
    const std::size_t total = (2 * kGuard + shift + n + 63) / 64 * 64;
    mem.reset(static_cast<unsigned char*>(std::aligned_alloc(64, total)));
    std::memset(mem.get(), kGuardByte, total);
  }
  unsigned char* data() { return mem.get() + kGuard + shift; }
  bool guards_intact() const {
    for (std::size_t i = 0; i < kGuard + shift; ++i)
      if (mem[i] != kGuardByte) return false;
    for (std::size_t i = 0; i < kGuard; ++i)
      if (mem[kGuard + shift + n + i] != kGuardByte) return false;
    return true;
  }
};

}  // namespace

// "" when the solver's output on p equals the reference exactly, else the first problem found.
std::string check_exact_guarded(const ConvSolver& s, const ConvProblem& p, std::uint32_t seed, std::size_t shift,
                                const std::string& config) {
  ConvCase c = make_case(p, seed);
  const std::vector<float> expected = expected_output(p, c);
  HostTensor& out = c.output(p.dir);
  HostTensor* tensors[] = {&c.x, &c.w, &c.y, &c.bias};
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<Guarded> bufs;
  bufs.reserve(4);
  for (HostTensor* t : tensors) {
    bytes.push_back(t->to_bytes());
    bufs.emplace_back(bytes.back().size(), shift);
    if (t != &out) std::memcpy(bufs.back().data(), bytes.back().data(), bytes.back().size());
  }
  Guarded& dout = bufs[p.dir == ConvDir::fwd ? 2 : p.dir == ConvDir::bwd_data ? 0 : 1];
  Guarded ws(s.config_workspace_bytes(p, config), 0);
  ConvTensors t{bufs[0].data(), bufs[1].data(), bufs[2].data(), p.bias ? bufs[3].data() : nullptr, ws.data(), ws.n,
                nullptr, config};
  std::vector<unsigned char> first;
  const int runs = p.dir == ConvDir::bwd_weights || ws.n > 0 ? 2 : 1;
  for (int run = 0; run < runs; ++run) {
    std::memset(dout.data(), kPoison, dout.n);
    std::memset(ws.data(), kPoison, ws.n);
    s.run(p, t);
    for (std::size_t i = 0; i < bufs.size(); ++i) {
      if (!bufs[i].guards_intact()) return "a guard byte of buffer " + std::to_string(i) + " was overwritten";
      if (&bufs[i] != &dout && std::memcmp(bufs[i].data(), bytes[i].data(), bytes[i].size()) != 0)
        return "input buffer " + std::to_string(i) + " was modified";
    }
    if (!ws.guards_intact()) return "a workspace guard byte was overwritten";
    std::vector<unsigned char> body(dout.data(), dout.data() + dout.n);
    if (run == 1) return body == first ? "" : "two runs gave different bits";
    first = body;
    out.from_bytes(body.data());
    if (std::string bad = first_mismatch(out, expected); !bad.empty()) return bad;  // NaN (unwritten) fails too
  }
  return "";  // one run, checked
}

}  // namespace hiprim::gputest
