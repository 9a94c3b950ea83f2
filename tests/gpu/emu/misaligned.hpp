// Runs a solver of the host emulation on a problem's prepared inputs twice: in 16-byte-aligned
// buffers and in buffers shifted by `shift` bytes (every 16-byte pack path then falls back to
// scalars), and expects the written tensors to agree bitwise. For elementwise kernels whose
// scalar and packed paths evaluate the same fp32 expression per element (the aligned run itself
// is verified against the reference by the other tests); and two solvers' outputs compared bitwise.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/op_solver.hpp"
#include "verify/runner.hpp"

namespace hiprim {

// The bytes of every tensor after s runs on c's inputs placed `offset` bytes past a 16-byte boundary.
inline std::vector<std::vector<unsigned char>> run_shifted(const verify::PreparedCase& c, const OpProblemPtr& p, const OpSolver& s,
                                                           std::size_t offset) {
  const auto& ts = c.tensors();
  std::vector<std::vector<unsigned char>> store;
  std::vector<void*> ptrs;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const std::vector<unsigned char> bytes = c.data()[k].to_bytes();
    store.emplace_back(bytes.size() + 64, 0);
    // operator new aligns to 16: +16 keeps that, + offset breaks it.
    unsigned char* at = store.back().data() + 16 + offset;
    std::memcpy(at, bytes.data(), bytes.size());
    ptrs.push_back(at);
  }
  std::vector<unsigned char> ws(s.workspace_bytes(*p) + 16);
  s.run(*p, ptrs, ws.data(), ws.size(), nullptr);
  std::vector<std::vector<unsigned char>> out;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const std::size_t n = c.data()[k].to_bytes().size();
    const auto* at = static_cast<const unsigned char*>(ptrs[k]);
    out.emplace_back(at, at + n);
  }
  return out;
}

inline void expect_same_when_misaligned(const OpProblemPtr& p, const OpSolver& s, std::size_t shift) {
  verify::RunOptions o;
  verify::PreparedCase c(p, o);
  const auto& ts = c.tensors();
  const auto aligned = run_shifted(c, p, s, 0), shifted = run_shifted(c, p, s, shift);
  for (std::size_t k = 0; k < ts.size(); ++k) {
    if (ts[k].role == OpTensor::Role::input) continue;
    EXPECT_EQ(aligned[k], shifted[k]) << s.name() << " on " << p->str() << ": tensor " << ts[k].name
                                      << " differs when the buffers are shifted by " << shift << " bytes";
  }
}

// Two solvers that claim the same arithmetic in the same order write the same bits on p.
inline void expect_same_outputs(const OpProblemPtr& p, const OpSolver& a, const OpSolver& b) {
  verify::RunOptions o;
  verify::PreparedCase c(p, o);
  const auto& ts = c.tensors();
  const auto ra = run_shifted(c, p, a, 0), rb = run_shifted(c, p, b, 0);
  for (std::size_t k = 0; k < ts.size(); ++k) {
    if (ts[k].role == OpTensor::Role::input) continue;
    EXPECT_EQ(ra[k], rb[k]) << a.name() << " and " << b.name() << " on " << p->str() << ": tensor " << ts[k].name << " differs";
  }
}

}  // namespace hiprim
