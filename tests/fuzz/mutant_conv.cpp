#include "tests/fuzz/mutant_conv.hpp"

#include <atomic>
#include <cmath>
#include <cstring>

#include "core/dtype.hpp"

namespace hiprim::fuzz_test {
namespace {

// The conv relation in terms of a "big" and a "small" activation tensor (3 spatial dims; 2D problems
// get depth 1):
//   mode conv:  big = x [N, C, in],  small = y [N, K, out], w [K, C/G, f]
//   mode trans: big = y [N, K, out], small = x [N, C, in],  w [C, K/G, f]
//   term: big[n, g*Bg + bcc, b] * w[sc, bcc, f] with sc = g*Sg + scc, b = s*str - pad + f*dil per dim.
// Directions: conv fwd and trans bwd-data write small; conv bwd-data and trans fwd write big; bwd-weights writes w.
struct View {
  const unsigned char* base = nullptr;
  DType t = DType::fp32;
  std::int64_t stride[5]{};  // [n, c, d, h, w] in elements
  std::int64_t dims[5]{};
  std::int64_t storage = 0;
  std::int64_t off(std::int64_t n, std::int64_t c, const std::int64_t* p) const {
    return n * stride[0] + c * stride[1] + p[0] * stride[2] + p[1] * stride[3] + p[2] * stride[4];
  }
  // Reads through the offset as a kernel would; past the storage it sees zeros (the runner's guard
  // bytes would be garbage, the test wants a deterministic wrong value).
  float at(std::int64_t o) const {
    if (o < 0 || o >= storage) return 0.0f;
    return load_element(t, base + o * static_cast<std::int64_t>(dtype_size(t)));
  }
};

View view_of(const TensorDesc& d, const void* p) {
  View v;
  v.base = static_cast<const unsigned char*>(p);
  v.t = d.dtype;
  v.storage = d.storage_elements();
  const bool two_d = d.dims.size() == 4;
  for (int i = 0, j = 0; i < 5; ++i) {
    if (two_d && i == 2) {
      v.dims[i] = 1;
      v.stride[i] = 0;
      continue;
    }
    v.dims[i] = d.dims[static_cast<std::size_t>(j)];
    v.stride[i] = d.strides[static_cast<std::size_t>(j)];
    ++j;
  }
  return v;
}

void store(DType t, void* base, std::int64_t o, float v, Bug bug) {
  unsigned char* p = static_cast<unsigned char*>(base) + o * static_cast<std::int64_t>(dtype_size(t));
  if (bug == Bug::bf16_truncation && t == DType::bf16) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const auto hi = static_cast<std::uint16_t>(bits >> 16);  // the bug: drop the low half
    std::memcpy(p, &hi, 2);
    return;
  }
  store_element(t, p, v);
}

struct Geometry {
  std::int64_t G = 1, Bg = 1, Sg = 1;
  std::int64_t str[3]{1, 1, 1}, pad[3]{}, dil[3]{1, 1, 1}, F[3]{1, 1, 1};
};

Geometry geometry(const ConvProblem& p) {
  Geometry g;
  g.G = p.groups;
  const bool conv = p.mode == ConvMode::conv;
  g.Bg = (conv ? p.c : p.k) / p.groups;
  g.Sg = (conv ? p.k : p.c) / p.groups;
  const int off = 3 - p.rank();
  for (int i = 0; i < p.rank(); ++i) {
    g.str[i + off] = p.stride[static_cast<std::size_t>(i)];
    g.pad[i + off] = p.pad[static_cast<std::size_t>(i)];
    g.dil[i + off] = p.dilation[static_cast<std::size_t>(i)];
    g.F[i + off] = p.filter[static_cast<std::size_t>(i)];
  }
  return g;
}

// Calls f(pos) for every position of a 3-dim box, last fastest; `tail` drops the remainder of the
// last dim past its multiples of 4 (Bug::dropped_tail).
template <typename F>
void for_box(const std::int64_t* dims, bool drop_tail, F&& f) {
  const std::int64_t last = drop_tail ? dims[2] / 4 * 4 : dims[2];
  std::int64_t pos[3];
  for (pos[0] = 0; pos[0] < dims[0]; ++pos[0])
    for (pos[1] = 0; pos[1] < dims[1]; ++pos[1])
      for (pos[2] = 0; pos[2] < last; ++pos[2]) f(static_cast<const std::int64_t*>(pos));
}

class HostMutant final : public ConvSolver {
 public:
  explicit HostMutant(Bug b) : bug_(b) {}
  std::string name() const override { return "mutant." + bug_name(bug_); }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test-only host direct conv with a bug: " + bug_description(bug_); }
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }  // bounds checks
  Applicability applicable(const ConvProblem& p) const override {
    auto e = p.validate();
    return e.empty() ? Applicability::yes() : Applicability::no("invalid problem: " + e.front());
  }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const bool conv = p.mode == ConvMode::conv;
    const View big = conv ? view_of(p.x_desc(), t.x) : view_of(p.y_desc(), t.y);
    const View small = conv ? view_of(p.y_desc(), t.y) : view_of(p.x_desc(), t.x);
    const View w = view_of(p.w_desc(), t.w);
    const Geometry g = geometry(p);
    const bool writes_small = (p.dir == ConvDir::fwd) == conv && p.dir != ConvDir::bwd_weights;
    rot_ = calls_.fetch_add(1) % 3;
    if (p.dir == ConvDir::bwd_weights) w_from_both(p, g, big, small, w, t.w);
    else if (writes_small) small_from_big(p, g, big, small, w, t, conv ? t.y : t.x);
    else big_from_small(p, g, big, small, w, t, conv ? t.x : t.y);
  }

 private:
  // The width bound of the padding test: W (correct) or W + 1 (Bug::pad_off_by_one).
  std::int64_t width_limit(std::int64_t w) const { return bug_ == Bug::pad_off_by_one ? w + 1 : w; }
  // Bug::varying_order: the sum of partials[3] starting at partial rot_ (fp32 adds: not associative).
  float ordered(const float (&part)[3]) const { return (part[rot_] + part[(rot_ + 1) % 3]) + part[(rot_ + 2) % 3]; }
  // Input-channel base of the group of output channel sc.
  std::int64_t group_base(const Geometry& g, std::int64_t sc) const {
    return bug_ == Bug::group_offset ? (sc % g.G) * g.Bg : (sc / g.Sg) * g.Bg;
  }

  void small_from_big(const ConvProblem& p, const Geometry& g, const View& big, const View& small, const View& w, const ConvTensors& t,
                      void* out) const {
    const bool bias = p.bias && p.dir == ConvDir::fwd;
    for (std::int64_t n = 0; n < small.dims[0]; ++n)
      for (std::int64_t sc = 0; sc < small.dims[1]; ++sc)
        for_box(small.dims + 2, bug_ == Bug::dropped_tail, [&](const std::int64_t* s) {
          float acc = 0.0f, part[3] = {};
          for (std::int64_t bcc = 0; bcc < g.Bg; ++bcc)
            for_box(g.F, false, [&](const std::int64_t* f) {
              std::int64_t b[3];
              for (int i = 0; i < 3; ++i) b[i] = s[i] * g.str[i] - g.pad[i] + f[i] * g.dil[i];
              if (b[0] < 0 || b[0] >= big.dims[2] || b[1] < 0 || b[1] >= big.dims[3] || b[2] < 0 || b[2] >= width_limit(big.dims[4])) return;
              (bug_ == Bug::varying_order ? part[bcc % 3] : acc) += big.at(big.off(n, group_base(g, sc) + bcc, b)) * w.at(w.off(sc, bcc, f));
            });
          if (bug_ == Bug::varying_order) acc = ordered(part);
          if (bias) acc += load_element(p.dtype, static_cast<const unsigned char*>(t.bias) + sc * static_cast<std::int64_t>(dtype_size(p.dtype)));
          store(p.dtype, out, small.off(n, sc, s), acc, bug_);
        });
  }

  void big_from_small(const ConvProblem& p, const Geometry& g, const View& big, const View& small, const View& w, const ConvTensors& t,
                      void* out) const {
    const bool bias = p.bias && p.dir == ConvDir::fwd;
    // Bug::bwd_data_stride: the width uses the height's stride (bwd-data of conv only).
    std::int64_t str[3] = {g.str[0], g.str[1], g.str[2]};
    if (bug_ == Bug::bwd_data_stride && p.dir == ConvDir::bwd_data) str[2] = str[1];
    for (std::int64_t n = 0; n < big.dims[0]; ++n)
      for (std::int64_t bc = 0; bc < big.dims[1]; ++bc)
        for_box(big.dims + 2, bug_ == Bug::dropped_tail, [&](const std::int64_t* b) {
          float acc = 0.0f, part[3] = {};
          const std::int64_t grp = bc / g.Bg;
          for (std::int64_t scc = 0; scc < g.Sg; ++scc)
            for_box(g.F, false, [&](const std::int64_t* f) {
              std::int64_t s[3];
              for (int i = 0; i < 3; ++i) {
                const std::int64_t num = b[i] + g.pad[i] - f[i] * g.dil[i];
                if (num < 0 || num % str[i] != 0) return;
                s[i] = num / str[i];
              }
              if (s[0] >= small.dims[2] || s[1] >= small.dims[3] || s[2] >= width_limit(small.dims[4])) return;
              const std::int64_t sc = grp * g.Sg + scc;
              (bug_ == Bug::varying_order ? part[scc % 3] : acc) += small.at(small.off(n, sc, s)) * w.at(w.off(sc, bc % g.Bg, f));
            });
          if (bug_ == Bug::varying_order) acc = ordered(part);
          if (bias) acc += load_element(p.dtype, static_cast<const unsigned char*>(t.bias) + bc * static_cast<std::int64_t>(dtype_size(p.dtype)));
          store(p.dtype, out, big.off(n, bc, b), acc, bug_);
        });
  }

  void w_from_both(const ConvProblem& p, const Geometry& g, const View& big, const View& small, const View& w, void* out) const {
    for (std::int64_t sc = 0; sc < w.dims[0]; ++sc)
      for (std::int64_t bcc = 0; bcc < w.dims[1]; ++bcc)
        for_box(w.dims + 2, bug_ == Bug::dropped_tail, [&](const std::int64_t* f) {
          float acc = 0.0f;
          for (std::int64_t n = 0; n < small.dims[0]; ++n) {
            float part = 0.0f;  // this image's contribution
            for_box(small.dims + 2, false, [&](const std::int64_t* s) {
              std::int64_t b[3];
              for (int i = 0; i < 3; ++i) b[i] = s[i] * g.str[i] - g.pad[i] + f[i] * g.dil[i];
              if (b[0] < 0 || b[0] >= big.dims[2] || b[1] < 0 || b[1] >= big.dims[3] || b[2] < 0 || b[2] >= width_limit(big.dims[4])) return;
              part += small.at(small.off(n, sc, s)) * big.at(big.off(n, group_base(g, sc) + bcc, b));
            });
            acc = bug_ == Bug::dw_overwrite ? part : acc + part;
          }
          store(p.dtype, out, w.off(sc, bcc, f), acc, bug_);
        });
  }

  Bug bug_;
  mutable std::atomic<unsigned> calls_{0};
  mutable unsigned rot_ = 0;
};

}  // namespace

std::string bug_name(Bug b) {
  switch (b) {
    case Bug::none: return "none";
    case Bug::pad_off_by_one: return "pad_off_by_one";
    case Bug::bwd_data_stride: return "bwd_data_stride";
    case Bug::dropped_tail: return "dropped_tail";
    case Bug::bf16_truncation: return "bf16_truncation";
    case Bug::dw_overwrite: return "dw_overwrite";
    case Bug::group_offset: return "group_offset";
    case Bug::varying_order: return "varying_order";
  }
  return "?";
}

std::string bug_description(Bug b) {
  switch (b) {
    case Bug::none: return "no bug (control)";
    case Bug::pad_off_by_one: return "off-by-one padding: the width bound test is <= W, reading the element past the row instead of a padding zero";
    case Bug::bwd_data_stride: return "wrong stride in bwd-data: the width's tap division uses the height's stride";
    case Bug::dropped_tail: return "dropped tail: the output's innermost dim runs in tiles of 4 and the remainder is never written";
    case Bug::bf16_truncation: return "bf16 stores truncate the fp32 accumulator instead of rounding to nearest even";
    case Bug::dw_overwrite: return "wrong accumulation into dw: each image's partial sum overwrites the previous ones";
    case Bug::group_offset: return "wrong group offset: the input-channel base is (k % G) * C/G instead of (k / (K/G)) * C/G";
    case Bug::varying_order: return "partial sums added in an order that changes from run to run (the host twin of splitk_order)";
  }
  return "?";
}

std::vector<Bug> all_bugs() {
  return {Bug::pad_off_by_one, Bug::bwd_data_stride, Bug::dropped_tail, Bug::bf16_truncation, Bug::dw_overwrite, Bug::group_offset};
}

std::shared_ptr<const ConvSolver> make_host_mutant(Bug b) { return std::make_shared<HostMutant>(b); }

namespace {

// The bug-free direct conv with subnormal outputs flushed to zero (a kernel built with flush-to-zero).
class FlushToZero final : public ConvSolver {
 public:
  std::string name() const override { return "test.ftz"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "control with subnormal outputs flushed"; }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return inner_->implicit_zeros(p); }
  Applicability applicable(const ConvProblem& p) const override { return inner_->applicable(p); }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    inner_->run(p, t);
    const TensorDesc d = p.dir == ConvDir::fwd ? p.y_desc() : p.dir == ConvDir::bwd_data ? p.x_desc() : p.w_desc();
    void* out = p.dir == ConvDir::fwd ? t.y : p.dir == ConvDir::bwd_data ? t.x : t.w;
    auto* bytes = static_cast<unsigned char*>(out);
    for (std::int64_t i = 0; i < d.storage_elements(); ++i) {
      const float v = load_element(p.dtype, bytes + i * static_cast<std::int64_t>(dtype_size(p.dtype)));
      if (v != 0 && std::fabs(v) < std::ldexp(1.0f, p.dtype == DType::fp16 ? -14 : -126))
        store_element(p.dtype, bytes + i * static_cast<std::int64_t>(dtype_size(p.dtype)), 0.0f);
    }
  }

 private:
  std::shared_ptr<const ConvSolver> inner_ = make_host_mutant(Bug::none);
};

}  // namespace

std::shared_ptr<const ConvSolver> make_flush_to_zero_solver() { return std::make_shared<FlushToZero>(); }

}  // namespace hiprim::fuzz_test
