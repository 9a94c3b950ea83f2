#include <gtest/gtest.h>

#include "core/tensor.hpp"

using namespace hiprim;

TEST(TensorDesc, PackedNchwStrides) {
  auto d = TensorDesc::packed(DType::fp32, {2, 3, 4, 5}, false);
  EXPECT_EQ(d.strides, (Dims{60, 20, 5, 1}));
  EXPECT_EQ(d.elements(), 120);
  EXPECT_EQ(d.storage_elements(), 120);
}

TEST(TensorDesc, PackedNhwcPutsChannelsInnermost) {
  auto d = TensorDesc::packed(DType::fp16, {2, 3, 4, 5}, true);
  EXPECT_EQ(d.strides, (Dims{60, 1, 15, 3}));
  auto d3 = TensorDesc::packed(DType::fp16, {2, 3, 4, 5, 6}, true);  // NDHWC
  EXPECT_EQ(d3.strides, (Dims{360, 1, 90, 18, 3}));
}

TEST(TensorDesc, OffsetsAreDistinctAndCoverPackedStorage) {
  for (bool cl : {false, true}) {
    auto d = TensorDesc::packed(DType::fp32, {2, 3, 2, 3}, cl);
    std::vector<int> seen(static_cast<size_t>(d.storage_elements()), 0);
    for_each_index(d.dims, [&](const Dims& i) { seen[static_cast<size_t>(d.offset(i))]++; });
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

TEST(HostTensor, BytesRoundTripPerDtype) {
  for (DType t : {DType::fp32, DType::fp16, DType::bf16}) {
    HostTensor h(TensorDesc::packed(t, {1, 2, 2, 2}, false));
    for (size_t i = 0; i < h.data.size(); ++i) h.data[i] = round_to(t, 0.37f * float(i) - 1.0f);
    auto bytes = h.to_bytes();
    EXPECT_EQ(bytes.size(), h.data.size() * dtype_size(t));
    HostTensor g(h.desc);
    g.from_bytes(bytes.data());
    EXPECT_EQ(g.data, h.data);
  }
}

TEST(TensorDesc, NonPackedStridesGiveLargerStorage) {
  TensorDesc d{DType::fp32, {2, 3}, {8, 2}};
  EXPECT_EQ(d.storage_elements(), 1 + 8 + 4);
  EXPECT_EQ(d.offset({1, 2}), 12);
}
