// The CTC reference (reference/ctc.hpp) against independent computations: the loss as the sum over
// every alignment by brute-force enumeration (all C^T paths collapsed: repeats merged, blanks
// removed), closed forms on uniform inputs, the gradient by central differences, PyTorch's
// ctc_loss in double (a committed fixture made by tests/reference/fixtures/make_ctc_torch_fixture.py,
// torch 1.13); the problem string and the data rules' messages.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/ctc_problem.hpp"
#include "core/error.hpp"
#include "tests/input_error.hpp"
#include "reference/ctc.hpp"

namespace hiprim {
namespace {

struct Case {
  CtcProblem p;
  HostTensor probs, labels, label_lengths, input_lengths;
  explicit Case(const CtcProblem& q) : p(q) {
    const auto t = p.tensors();
    probs = HostTensor(t[0].desc), labels = HostTensor(t[1].desc), label_lengths = HostTensor(t[2].desc);
    input_lengths = HostTensor(t[3].desc);
  }
  void sequence(std::int64_t b, const std::vector<int>& lab, int input_length) {
    for (std::size_t i = 0; i < lab.size(); ++i) labels.data[b * p.l + i] = static_cast<float>(lab[i]);
    label_lengths.data[b] = static_cast<float>(lab.size());
    input_lengths.data[b] = static_cast<float>(input_length);
  }
  // Values in [-2, 2) on a 2^-8 grid (logits), or positive probabilities in (0, 1] on it.
  void fill(unsigned seed) {
    for (std::size_t i = 0; i < probs.data.size(); ++i) {
      const unsigned h = (static_cast<unsigned>(i) + 1) * 2654435761u ^ seed * 40503u;
      const int q = static_cast<int>((h >> 8) % 1024);
      probs.data[i] = p.softmax ? static_cast<float>(q - 512) / 256.0f : static_cast<float>(q + 1) / 1024.0f;
    }
  }
  ref::CtcResult run() const { return ref::ctc_reference(p, probs, ref::ctc_sequences(p, labels, label_lengths, input_lengths)); }
};

// -log of the summed probability of every path of length T_b that collapses to the labels.
double brute_force_loss(const Case& c, std::int64_t b) {
  const CtcProblem& p = c.p;
  const int Tb = static_cast<int>(c.input_lengths.data[b]), L = static_cast<int>(c.label_lengths.data[b]);
  std::vector<std::vector<double>> y(Tb, std::vector<double>(p.c));
  for (int t = 0; t < Tb; ++t) {
    double z = 0;
    for (int k = 0; k < p.c; ++k) {
      const double v = c.probs.data[(t * p.n + b) * p.c + k];
      y[t][k] = p.softmax ? std::exp(v) : v;
      z += y[t][k];
    }
    if (p.softmax)
      for (double& v : y[t]) v /= z;
  }
  double total = 0;
  std::vector<int> path(Tb, 0);
  for (long long code = 0, paths = static_cast<long long>(std::pow(p.c, Tb)); code < paths; ++code) {
    long long rest = code;
    double prob = 1;
    for (int t = 0; t < Tb; ++t) path[t] = static_cast<int>(rest % p.c), rest /= p.c, prob *= y[t][path[t]];
    std::vector<int> collapsed;
    for (int t = 0; t < Tb; ++t)
      if (path[t] != p.blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    bool equal = static_cast<int>(collapsed.size()) == L;
    for (int i = 0; equal && i < L; ++i) equal = collapsed[i] == static_cast<int>(c.labels.data[b * p.l + i]);
    if (equal) total += prob;
  }
  return -std::log(total);
}

TEST(CtcProblem, CanonicalStringRoundTripsAndBadOnesSayWhy) {
  const CtcProblem p = parse_ctc_problem("ctc bf16 n4 t50 c20 l10 blank3 probs");
  EXPECT_EQ(to_string(p), "ctc bf16 t50 n4 c20 l10 blank3 probs");
  EXPECT_EQ(parse_ctc_problem(to_string(p)), p);
  const auto tensors = p.tensors();
  ASSERT_EQ(tensors.size(), 6u);
  EXPECT_EQ(tensors[0].desc.dims, (Dims{50, 4, 20}));
  EXPECT_EQ(tensors[1].desc.dims, (Dims{4, 10}));
  EXPECT_EQ(tensors[4].name, "losses");
  EXPECT_EQ(tensors[5].role, OpTensor::Role::output);
  auto message = [](const char* s) { return test::input_error_of([&] { parse_ctc_problem(s); }); };
  EXPECT_NE(message("ctc fp32 t5 n1 c1 l2 blank0 softmax").find("c = 1 must be >= 2"), std::string::npos);
  EXPECT_NE(message("ctc fp32 t5 n1 c4 l2 blank4 softmax").find("blank = 4"), std::string::npos);
  EXPECT_NE(message("ctc fp32 t5 n1 c4 l2 blank0").find("input kind"), std::string::npos);
  EXPECT_NE(message("ctc fp32 t5 n1 c4 l2 blank0 softmax probs").find("input kind"), std::string::npos);
  EXPECT_NE(message("ctc fp32 t5 n1 c4 blank0 softmax").find("label buffer width"), std::string::npos);
  EXPECT_NE(message("ctc fp32 t5 n1 c4 l2 blank0 softmax q7").find("q7"), std::string::npos);
}

TEST(CtcReference, EqualsTheSumOverEveryAlignment) {
  for (bool softmax : {true, false}) {
    Case c(parse_ctc_problem(std::string("ctc fp32 t6 n5 c3 l3 blank0 ") + (softmax ? "softmax" : "probs")));
    c.fill(softmax ? 3 : 4);
    c.sequence(0, {1, 2}, 6);
    c.sequence(1, {1, 1}, 5);     // a repeat: a blank must separate them
    c.sequence(2, {}, 4);          // the empty label: all blanks
    c.sequence(3, {2, 1, 2}, 6);
    c.sequence(4, {2, 2, 2}, 6);   // 3 labels + 2 repeats = 5 <= 6
    const ref::CtcResult r = c.run();
    for (int b = 0; b < 5; ++b) EXPECT_NEAR(r.losses[b], brute_force_loss(c, b), 1e-12 * std::fabs(r.losses[b])) << "sequence " << b;
  }
}

TEST(CtcReference, UniformInputsGiveTheCountOfAlignments) {
  // y = 1/C everywhere: p = (number of alignments) / C^T. Label "a", T = 2: aa, a-, -a: 3.
  // The empty label, T = 3: one alignment. Label "ab", T = 3: ab-, a-b, -ab, aab, abb: 5.
  Case c(parse_ctc_problem("ctc fp32 t3 n3 c4 l2 blank0 probs"));
  std::fill(c.probs.data.begin(), c.probs.data.end(), 0.25f);
  c.sequence(0, {1}, 2), c.sequence(1, {}, 3), c.sequence(2, {1, 2}, 3);
  const ref::CtcResult r = c.run();
  EXPECT_NEAR(r.losses[0], -std::log(3.0 / 16), 1e-14);
  EXPECT_NEAR(r.losses[1], -std::log(1.0 / 64), 1e-14);
  EXPECT_NEAR(r.losses[2], -std::log(5.0 / 64), 1e-14);
  // Past sequence 0's input length (t = 2) its gradient is 0.
  for (int k = 0; k < 4; ++k) EXPECT_EQ(r.grads[(2 * 3 + 0) * 4 + k], 0.0);
}

TEST(CtcReference, GradientEqualsCentralDifferences) {
  for (bool softmax : {true, false}) {
    Case c(parse_ctc_problem(std::string("ctc fp32 t5 n2 c4 l2 blank3 ") + (softmax ? "softmax" : "probs")));
    c.fill(7);
    c.sequence(0, {0, 2}, 5), c.sequence(1, {1, 1}, 4);
    const ref::CtcResult r = c.run();
    // Central differences at h and h/2, Richardson-combined (the h^2 terms cancel: probabilities near
    // 0.03 make the plain difference's h^2/6 third-derivative term about 1e-2). The inputs lie on a
    // 2^-10 grid, so x +- h and x +- h/2 are exact in fp32.
    const float h = 1.0f / 1024;
    for (std::size_t i = 0; i < c.probs.data.size(); ++i) {
      const std::size_t b = (i / 4) % 2;
      auto central = [&](float step) {
        const float x = c.probs.data[i];
        c.probs.data[i] = x + step;
        const double up = c.run().losses[b];
        c.probs.data[i] = x - step;
        const double down = c.run().losses[b];
        c.probs.data[i] = x;
        return (up - down) / (2.0 * step);
      };
      const double fd = (4.0 * central(h / 2) - central(h)) / 3.0;
      EXPECT_NEAR(r.grads[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << (softmax ? "softmax" : "probs") << " element " << i;
    }
    // Softmax mode: each time step's gradient sums to 0 over the classes (y and gamma both sum to 1).
    if (softmax)
      for (int t = 0; t < 4; ++t) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += r.grads[(t * 2 + 1) * 4 + k];
        EXPECT_NEAR(s, 0.0, 1e-14);
      }
  }
}

TEST(CtcReference, DataRulesAreClearErrors) {
  auto error = [](const std::vector<int>& lab, int length, float label_length = -1) {
    Case c(parse_ctc_problem("ctc fp32 t4 n1 c3 l3 blank0 softmax"));
    c.sequence(0, lab, length);
    if (label_length >= 0) c.label_lengths.data[0] = label_length;
    return test::input_error_of([&] { c.run(); });
  };
  EXPECT_EQ(error({1, 2}, 4), "(accepted)");
  EXPECT_NE(error({1, 3}, 4).find("sequence 0 label 1 = 3"), std::string::npos);
  EXPECT_NE(error({1, 0}, 4).find("is the blank id 0"), std::string::npos);
  EXPECT_NE(error({1, 1, 1}, 4).find("label length 3 plus 2 repeats exceeds the input length 4"), std::string::npos);
  EXPECT_NE(error({1}, 5).find("input length = 5"), std::string::npos);
  EXPECT_NE(error({1}, 0).find("input length = 0"), std::string::npos);
  EXPECT_NE(error({1}, 3, 4).find("label length = 4"), std::string::npos);
  EXPECT_NE(error({1}, 3, 1.5f).find("must be an integer"), std::string::npos);
}

// Random small problems: the recursion equals the enumeration.
RC_GTEST_PROP(CtcReference, EqualsTheEnumerationOnRandomProblems, ()) {
  CtcProblem p;
  p.t = *rc::gen::inRange(1, 6);
  p.n = 1;
  p.c = *rc::gen::inRange(2, 4);
  p.l = 3;
  p.blank = *rc::gen::inRange<std::int64_t>(0, p.c);
  p.softmax = *rc::gen::arbitrary<bool>();
  Case c(p);
  c.fill(*rc::gen::inRange(0u, 1000u));
  const int tb = *rc::gen::inRange(1, static_cast<int>(p.t) + 1);
  std::vector<int> lab;
  const int len = *rc::gen::inRange(0, 4);
  for (int i = 0; i < len; ++i) {
    int id = *rc::gen::inRange(0, static_cast<int>(p.c) - 1);
    if (id >= p.blank) ++id;  // never the blank
    lab.push_back(id);
  }
  int repeats = 0;
  for (int i = 1; i < len; ++i) repeats += lab[i] == lab[i - 1];
  RC_PRE(len + repeats <= tb);
  c.sequence(0, lab, tb);
  const double got = c.run().losses[0];
  RC_ASSERT(std::fabs(got - brute_force_loss(c, 0)) <= 1e-12 * std::max(1.0, std::fabs(got)));
}

TEST(CtcReference, EqualsPyTorchInDouble) {
  std::ifstream f(HIPRIM_CTC_TORCH_FIXTURE);
  ASSERT_TRUE(f) << HIPRIM_CTC_TORCH_FIXTURE;
  const nlohmann::json fx = nlohmann::json::parse(f);
  ASSERT_EQ(fx["cases"].size(), 4u);
  for (const auto& c : fx["cases"]) {
    Case k(parse_ctc_problem(c["problem"].get<std::string>()));
    const auto logits = c["logits"].get<std::vector<double>>();
    ASSERT_EQ(logits.size(), k.probs.data.size());
    for (std::size_t i = 0; i < logits.size(); ++i) k.probs.data[i] = static_cast<float>(logits[i]);  // fp32 values already
    for (std::size_t b = 0; b < c["labels"].size(); ++b) {
      const auto lab = c["labels"][b].get<std::vector<int>>();
      k.sequence(static_cast<std::int64_t>(b), std::vector<int>(lab.begin(), lab.begin() + c["label_lengths"][b].get<int>()),
                 c["input_lengths"][b].get<int>());
    }
    const ref::CtcResult r = k.run();
    const auto losses = c["losses"].get<std::vector<double>>(), grads = c["grads"].get<std::vector<double>>();
    for (std::size_t b = 0; b < losses.size(); ++b) EXPECT_NEAR(r.losses[b], losses[b], 1e-12 * losses[b]) << to_string(k.p) << " sequence " << b;
    ASSERT_EQ(r.grads.size(), grads.size());
    for (std::size_t i = 0; i < grads.size(); ++i) ASSERT_NEAR(r.grads[i], grads[i], 1e-12) << to_string(k.p) << " grad " << i;
  }
}

}  // namespace
}  // namespace hiprim
