// hiprim pool, lrn, tensorop and reduce (MIOpenDriver's commands and meaning) as a user runs them:
// the flags reach the problem (checked through --print-problem), bad parameters exit 2 naming the
// rule, and a run on the host reference solver passes (exit 0) and round-trips through repro.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.hpp"

namespace {

using hiprim::test::exits_with;
using hiprim::test::has;
using hiprim::test::hiprim;
using hiprim::test::hiprim_stdout;

TEST(CliPoolLrnTensorOpReduce, PoolFlagsUseMIOpenDriverNames) {
  // --input NxCxHxW,LAYOUT; -v is the stride height, -u the width; -m avg excludes padding.
  auto r = hiprim_stdout("pool --input 2x8x9x10,NHWC -y 3 -x 2 -p 1 -q 0 -v 2 -u 1 -m avg -F 1 --dtype bf16 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "pool fwd avg_excl bf16 nhwc n2 c8 in9x10 win3x2 pad1x0 str2x1\n");
  // 3D: -Z window depth, -o pad depth, -s stride depth; -F 2 runs the backward only.
  r = hiprim_stdout("pool -m avg_in -F 2 --input 2x3x4x6x6 -Z 2 -o 1 -s 2 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "pool bwd avg_incl fp32 ncdhw n2 c3 in4x6x6 win2x3x3 pad1x0x0 str2x1x1\n");
}

TEST(CliPoolLrnTensorOpReduce, LrnTensorOpReduceFlags) {
  auto r = hiprim_stdout("lrn -m cross -N 3 -A 0.5 -B 1 -K 2 -n 1 -c 4 -H 3 -W 3 -F 1 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "lrn fwd across fp32 nchw n1 c4 in3x3 size3 alpha0.5 beta1 k2\n");
  r = hiprim_stdout("tensorop -o 3 -A 2 -B 0.5 -G 1 -n 2 -c 3 -H 4 -W 5 --b_dims 1,3,1,5 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "tensorop mul fp32 nchw a2x3x4x5 b1x3x1x5 alpha1=2 alpha2=0.5 beta=1\n");
  r = hiprim_stdout("tensorop -o 5 --dims 7,9 --b_dims 1,9 --dtype fp16 --print-problem");
  EXPECT_EQ(r.out, "tensorop max fp16 a7x9 b1x9 alpha1=1 alpha2=1 beta=0\n");
  r = hiprim_stdout("reduce --DimLengths 4,5,6 -R 2,0 -O 4 -N 1 -I 1 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "reduce amax fp32 dims4x5x6 over0x2 nan_propagate indices\n");
}

TEST(CliPoolLrnTensorOpReduce, BadParametersExitTwoNamingTheRule) {
  EXPECT_TRUE(exits_with("pool --input 1x1x4x4 -y 9 -F 1", 2, "the window is larger than the padded input"));
  EXPECT_TRUE(exits_with("pool -y 2 -p 2 -F 1", 2, "pad (height) = 2 must be smaller than the window height = 2"));
  EXPECT_TRUE(exits_with("pool --input 1x1x4x4x4x4", 2, "MIOpen pools 4-d and 5-d tensors"));
  EXPECT_TRUE(exits_with("lrn -N 4 -F 1", 2, "LRN size n = 4 must be odd"));
  EXPECT_TRUE(exits_with("lrn -K 0 -F 1", 2, "LRN k = 0 must be finite and > 0"));
  EXPECT_TRUE(exits_with("tensorop -o 2 -c 3 --b_dims 2,2,1,1", 2, "B dim 1 = 2 must equal A's (3) or be 1"));
  EXPECT_TRUE(exits_with("tensorop -o 1", 2, "miopenScaleTensor"));
  EXPECT_TRUE(exits_with("reduce -R 0,7", 2, "reduced dim 7 is outside the 4-d tensor"));
  EXPECT_TRUE(exits_with("reduce --DimLengths 3,x", 2, "std::stoi('x') throws"));
  EXPECT_TRUE(exits_with("repro \"pool fwd max fp32 nchw n1 c1 in4x4 win2x2 pad2x0 str1x1\"", 2, "pad (height) = 2"));
  // MIOpen outputs indices for min/max/amax only: -I 1 with add runs without, said in a note.
  auto r = hiprim("reduce -D 2,3 -R 1 -O 0 -I 1 --print-problem");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "indices for min, max, amax only") && has(r.out, "reduce add fp32 dims2x3 over1 nan_ignore\n")) << r.out;
}

TEST(CliPoolLrnTensorOpReduce, ReferenceRunsPassAndReproduce) {
  for (const char* args : {"pool --input 1x4x6x6 -p 1 -q 1 -v 2 -u 2", "lrn -n 1 -c 5 -H 4 -W 4 -m cross -N 3 -A 1",
                           "tensorop -o 2 -n 1 -c 3 -H 4 -W 4 --b_dims 1,3,1,1 -G 1", "reduce -D 3,8,5 -R 1 -O 2 -I 1"}) {
    auto r = hiprim(std::string(args) + " --solver 'ref.*'");
    EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "passed")) << r.out;
  }
  EXPECT_TRUE(exits_with("repro \"reduce max bf16 nhwc dims2x8x3x3 over1x2 nan_propagate indices\" --solver 'ref.*' --seed 4", 0,
                         "passed      ref.reduce"));
}

}  // namespace
