// gpu/common/chunk_shape.hpp: the one-pass walk's perf configs parse to the (U, B) their names state,
// bad names are refused naming the list, and with_unroll passes U as a constant.
#include <gtest/gtest.h>

#include <set>

#include "gpu/common/chunk_shape.hpp"

namespace hiprim::gpu {
namespace {

TEST(ChunkShape, EveryConfigParsesToItsName) {
  const std::vector<std::pair<std::string, std::pair<int, int>>> want = {
      {"b64", {4, 64}},       {"b128", {4, 128}},     {"b256", {4, 256}},     {"b512", {4, 512}},
      {"u1.b128", {1, 128}}, {"u1.b256", {1, 256}}, {"u2.b128", {2, 128}}, {"u2.b256", {2, 256}}};
  ASSERT_EQ(chunk_shape_configs().size(), want.size());
  for (const auto& [name, ub] : want) {
    const ChunkShape s = chunk_shape_of(name);
    EXPECT_EQ(s.unroll, ub.first) << name;
    EXPECT_EQ(s.block, ub.second) << name;
  }
  const auto& all = chunk_shape_configs();
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
  EXPECT_NO_THROW(chunk_shape_of(default_chunk_shape(0)));
  EXPECT_NO_THROW(chunk_shape_of(default_chunk_shape(1LL << 30)));
}

TEST(ChunkShape, UnknownConfigIsRefusedNamingTheList) {
  for (const char* bad : {"", "b32", "u3.b128", "u1.b512", "chunks.b256", "B256"}) {
    try {
      chunk_shape_of(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("u2.b256"), std::string::npos) << e.what();
    }
  }
}

TEST(ChunkShape, WithUnrollPassesTheConstant) {
  for (int u : {1, 2, 4}) EXPECT_EQ(with_unroll(u, [&]<int U>() { return U; }), u);
  EXPECT_THROW(with_unroll(3, [&]<int U>() { return U; }), InputError);
}

}  // namespace
}  // namespace hiprim::gpu
