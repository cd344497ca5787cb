// The cuDNN convolution's candidate pool (kernels/cuda/logic/conv_pool.hpp): the heuristic's and
// the fallback list's configs merged as PyTorch's benchmark mode merges them, without a GPU.
#include <gtest/gtest.h>

#include "kernels/cuda/logic/conv_pool.hpp"

namespace lb::cuda::logic {
namespace {

PoolConfig config(const std::string& tag) { return PoolConfig{tag, EngineNotes{}, std::nullopt}; }

PoolConfig winograd(const std::string& tag) {
  PoolConfig c = config(tag);
  c.notes.fft_or_winograd = true;
  return c;
}

PoolConfig tensor_core(const std::string& tag) {
  PoolConfig c = config(tag);
  c.notes.tensor_core = true;
  return c;
}

std::vector<std::pair<std::size_t, std::size_t>> slots(const ConvPool& pool) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const PoolSlot& s : pool.to_time) out.emplace_back(s.source, s.index);
  return out;
}

TEST(CudaConvPool, HeuristicFirstThenFallbackWithoutDuplicates) {
  const ConvPool pool =
      build_conv_pool(Precision::fp32,
                      {{config("engine 1"), config("engine 2")},
                       {config("engine 2"), config("engine 3"), config("engine 1")}},
                      1 << 20, conv_pool_limit);
  EXPECT_EQ(slots(pool),
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 1}, {1, 1}}));
  EXPECT_EQ(pool.offered, 5u);
  EXPECT_EQ(pool.duplicates, 2u);
  EXPECT_TRUE(pool.rejected.empty());
}

TEST(CudaConvPool, Fp32TimesFftAndWinogradAsPyTorchButNotTensorCores) {
  const ConvPool pool = build_conv_pool(
      Precision::fp32, {{tensor_core("engine 1"), winograd("engine 2")}, {config("engine 3")}},
      1 << 20, conv_pool_limit);
  EXPECT_EQ(slots(pool), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 0}}));
  ASSERT_EQ(pool.rejected.size(), 1u);
  EXPECT_EQ(pool.rejected[0].first, "engine 1");
}

TEST(CudaConvPool, WorkspaceAndLimitRejectionsAreNamed) {
  PoolConfig big = config("engine 1");
  big.workspace = 2048;
  const ConvPool pool =
      build_conv_pool(Precision::fp32,
                      {{big, config("engine 2"), config("engine 3"), config("engine 4")}}, 1024, 2);
  EXPECT_EQ(slots(pool), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {0, 2}}));
  EXPECT_EQ(rejection_list(pool.rejected),
            "engine 1: needs 2048 bytes of workspace; engine 4: past the pool's limit of 2");
}

TEST(CudaConvPool, Tf32KeepsItsTensorCorePreferenceAcrossSources) {
  const ConvPool pool = build_conv_pool(
      Precision::tf32, {{config("engine 1")}, {tensor_core("engine 2")}}, 1 << 20, conv_pool_limit);
  EXPECT_EQ(slots(pool), (std::vector<std::pair<std::size_t, std::size_t>>{{1, 0}}));
  ASSERT_EQ(pool.rejected.size(), 1u);
  EXPECT_EQ(pool.rejected[0].first, "engine 1");
}

TEST(CudaConvPool, TheLimitBoundsWhatIsTimedNotWhatIsOffered) {
  std::vector<PoolConfig> many;
  for (std::size_t i = 0; i < conv_pool_limit + 3; ++i)
    many.push_back(config("engine " + std::to_string(i)));
  const ConvPool pool = build_conv_pool(Precision::fp32, {many}, 1 << 20, conv_pool_limit);
  EXPECT_EQ(pool.to_time.size(), conv_pool_limit);
  EXPECT_EQ(pool.rejected.size(), 3u);
  EXPECT_EQ(pool.offered, conv_pool_limit + 3);
}

}  // namespace
}  // namespace lb::cuda::logic
