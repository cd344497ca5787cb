// The `run` options backends declare (harness/api/backend_descriptor.hpp), through the registry
// (bench/backend_options.hpp): each declaration is well formed and unique, values are checked
// with errors naming the flag, and each backend gets its own options only. The CUDA backend's
// declarations and parser are pure logic, so they are tested in every build.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bench/backend_options.hpp"
#include "bench/backend_registry.hpp"
#include "harness/util/input_error.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb {
namespace {

// The message of the InputError `check` throws, or "<no error>".
template <class F>
std::string input_error(F check) {
  try {
    check();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(BackendOptions, TheRegistryHasTheCudaOptionsExactlyWhenCudaIsBuilt) {
  std::set<std::string> flags, keys;
  for (const BackendOption* option : backend_options()) {
    flags.insert(option->flag);
    keys.insert(option->settings_key);
  }
  if (LAYERBENCH_HAVE_CUDA) {
    EXPECT_EQ(flags, (std::set<std::string>{"--layout", "--cudnn-api", "--workspace-mb",
                                            "--autotune-workspace", "--timing", "--sustained"}));
    // The keys results files have always had (old files and --resume depend on them), and
    // autotune_workspace, timing and sustained, which a file from before them reads as "limit",
    // "events" and "off".
    EXPECT_EQ(keys, (std::set<std::string>{"layout", "cudnn_api", "workspace_mb",
                                           "autotune_workspace", "timing", "sustained"}));
  } else {
    EXPECT_TRUE(flags.empty());
  }
}

TEST(BackendOptions, EveryDeclarationIsWellFormedAndItsDefaultPassesItsOwnCheck) {
  for (const BackendDescriptor* backend : backend_descriptors())
    for (const BackendOption& option : backend->options) {
      SCOPED_TRACE(backend->name + " " + option.flag);
      EXPECT_EQ(option.flag.rfind("--", 0), 0u);
      EXPECT_FALSE(option.help.empty());
      EXPECT_FALSE(option.settings_key.empty());
      if (option.choices.empty()) {
        EXPECT_LE(option.min, option.max);
        EXPECT_FALSE(option.unit.empty());
      }
      EXPECT_NO_THROW(check_backend_option(option, option.default_value));
      EXPECT_EQ(default_backend_options().at(option.settings_key), option.default_value);
    }
}

TEST(BackendOptions, AValueNotAmongTheChoicesNamesTheFlagTheValueAndTheChoices) {
  const BackendOption layout = choice_option("--layout", "h", "layout", {"nhwc", "nchw"});
  EXPECT_EQ(layout.default_value, "nhwc");  // the first choice
  EXPECT_EQ(input_error([&] { check_backend_option(layout, "nchw"); }), "<no error>");
  EXPECT_EQ(input_error([&] { check_backend_option(layout, "chwn"); }),
            "--layout \"chwn\": not one of nhwc, nchw");
  EXPECT_EQ(input_error([&] { check_backend_option(layout, 3); }),
            "--layout 3: not one of nhwc, nchw");
}

TEST(BackendOptions, ANumberOutsideItsRangeNamesTheBoundsInFull) {
  const BackendOption mib =
      number_option("--workspace-mb", "h", "workspace_mb", 32, 0, 1 << 24, "a number of MiB");
  EXPECT_EQ(input_error([&] { check_backend_option(mib, 0.0); }), "<no error>");
  EXPECT_EQ(input_error([&] { check_backend_option(mib, 16777216); }), "<no error>");
  EXPECT_EQ(input_error([&] { check_backend_option(mib, 16777217); }),
            "--workspace-mb 16777217: not a number of MiB in [0, 16777216]");
  EXPECT_EQ(input_error([&] { check_backend_option(mib, -1); }),
            "--workspace-mb -1: not a number of MiB in [0, 16777216]");
  EXPECT_EQ(input_error([&] { check_backend_option(mib, "32"); }),
            "--workspace-mb \"32\": not a number of MiB");
}

TEST(BackendOptions, EachBackendIsGivenItsOwnOptionsOnly) {
  BackendDescriptor gpu, cpu;
  gpu.options = {number_option("--tile", "h", "tile", 8, 1, 64, "a tile size")};
  const BackendOptionValues given = {{"tile", 16.0}, {"other", "x"}};
  EXPECT_EQ(options_of(gpu, given), (BackendOptionValues{{"tile", 16.0}}));
  EXPECT_EQ(options_of(gpu, {}), (BackendOptionValues{{"tile", 8.0}}));  // the default
  EXPECT_TRUE(options_of(cpu, given).empty());
}

TEST(CudaOptions, TheDefaultsAreTheHarnessDefaultsOfOldResultsFiles) {
  const cuda::CudaOptions parsed = cuda::parse_options({});
  EXPECT_EQ(parsed.layout, cuda::Layout::nhwc);
  EXPECT_EQ(parsed.cudnn_api, cuda::CudnnApi::graph);
  EXPECT_EQ(parsed.workspace_limit_bytes, 32ull << 20);
  EXPECT_EQ(parsed.autotune_workspace, cuda::AutotuneWorkspace::free_memory);
  EXPECT_EQ(parsed.timing, cuda::GpuTiming::events);
  EXPECT_FALSE(parsed.sustained);
  std::map<std::string, nlohmann::json> before;
  for (const BackendOption& option : cuda::option_declarations())
    before[option.settings_key] = option.value_before_option_existed;
  EXPECT_EQ(before.at("cudnn_api"), "graph");
  // Files from before --autotune-workspace were measured within --workspace-mb.
  EXPECT_EQ(before.at("autotune_workspace"), "limit");
  // Files from before --timing timed each launch between its own events.
  EXPECT_EQ(before.at("timing"), "events");
  EXPECT_EQ(before.at("sustained"), "off");
}

TEST(CudaOptions, ParsesTheCheckedValuesAndRefusesOthersNamingTheFlag) {
  const cuda::CudaOptions parsed = cuda::parse_options({{"layout", "nchw"},
                                                        {"cudnn_api", "legacy"},
                                                        {"workspace_mb", 1.5},
                                                        {"autotune_workspace", "limit"},
                                                        {"timing", "graph"},
                                                        {"sustained", "on"}});
  EXPECT_EQ(parsed.timing, cuda::GpuTiming::graph);
  EXPECT_TRUE(parsed.sustained);
  EXPECT_EQ(parsed.autotune_workspace, cuda::AutotuneWorkspace::limit);
  EXPECT_EQ(parsed.layout, cuda::Layout::nchw);
  EXPECT_EQ(parsed.cudnn_api, cuda::CudnnApi::legacy);
  EXPECT_EQ(parsed.workspace_limit_bytes, 3ull << 19);  // 1.5 MiB
  try {
    cuda::parse_options({{"cudnn_api", "v7"}});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--cudnn-api"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuda::parse_options({{"workspace_mb", -1.0}}), std::invalid_argument);
  EXPECT_THROW(cuda::parse_options({{"timing", "nvbench"}}), std::invalid_argument);
}

}  // namespace
}  // namespace lb
