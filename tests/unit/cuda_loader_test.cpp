// The CUDA backend's loader (kernels/cuda/loader/): the truncated-library check it runs before
// the dynamic loader, which would crash on such a file, on real ELF files cut short here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

#include "harness/os/platform.hpp"

#if LAYERBENCH_HAVE_CUDA
#include "kernels/cuda/loader/elf_file.hpp"
#endif

namespace lb {
namespace {

#if !LAYERBENCH_HAVE_CUDA
TEST(CudaLoader, NotBuilt) { GTEST_SKIP() << "layerbench was built without CUDA"; }
#else

class ElfTruncation : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::path(::testing::TempDir()) /
              ("cuda_loader_test_" + std::to_string(getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(folder_);
    std::ifstream in(platform::executable_path(), std::ios::binary);
    elf_.assign(std::istreambuf_iterator<char>(in), {});
    ASSERT_GT(elf_.size(), 65536u);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  // A file holding the first `bytes` of this test's own executable (a 64-bit ELF file).
  std::string cut(std::size_t bytes) {
    const auto path = (folder_ / ("cut" + std::to_string(bytes))).string();
    std::ofstream(path, std::ios::binary).write(elf_.data(), static_cast<std::streamsize>(bytes));
    return path;
  }
  std::filesystem::path folder_;
  std::string elf_;
};

TEST_F(ElfTruncation, AWholeFileIsNotTruncated) {
  EXPECT_EQ(cuda::elf_truncation(platform::executable_path().string()), "");
  EXPECT_EQ(cuda::elf_truncation(cut(elf_.size())), "");
}

TEST_F(ElfTruncation, AFileCutShortNamesItselfTheSegmentAndTheSizes) {
  const std::string path = cut(65536);
  const std::string why = cuda::elf_truncation(path);
  EXPECT_EQ(why.rfind(path + ": truncated: its loadable segment ", 0), 0u) << why;
  EXPECT_NE(why.find(", the file has 65536 bytes"), std::string::npos) << why;
}

TEST_F(ElfTruncation, ProgramHeadersCutShort) {
  const std::string why = cuda::elf_truncation(cut(100));  // the ELF header is 64 bytes
  EXPECT_NE(why.find(": truncated: its program headers end at byte "), std::string::npos) << why;
}

TEST_F(ElfTruncation, WhatTheLoaderRejectsItselfIsLeftToIt) {
  EXPECT_EQ(cuda::elf_truncation(cut(0)), "");   // "file too short"
  EXPECT_EQ(cuda::elf_truncation(cut(40)), "");  // shorter than an ELF header
  const auto text = (folder_ / "text").string();
  std::ofstream(text) << std::string(4096, 'x');  // "invalid ELF header"
  EXPECT_EQ(cuda::elf_truncation(text), "");
  EXPECT_EQ(cuda::elf_truncation((folder_ / "missing").string()), "");
}

TEST(LibrarySearchFolders, ListsTheLibraryPathFirst) {
  // LD_LIBRARY_PATH is read when the program starts: the folders of this process's own.
  const auto value = platform::getenv_opt("LD_LIBRARY_PATH");
  const auto folders = platform::library_search_folders();
  ASSERT_FALSE(folders.empty());
  if (value && !value->empty() && value->find(':') == std::string::npos) {
    std::string first = folders.front();
    while (first.size() > 1 && first.back() == '/') first.pop_back();
    std::string wanted = *value;
    while (wanted.size() > 1 && wanted.back() == '/') wanted.pop_back();
    EXPECT_EQ(first, wanted);
  }
}

#endif

}  // namespace
}  // namespace lb
