// The backend registry (bench/backend_registry.cpp): exactly this build's backends, each
// descriptor complete, and the doctor's probe and `run`'s backends made through them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "bench/backend_registry.hpp"
#include "harness/api/backend.hpp"

namespace lb {
namespace {

std::set<std::string> registered_names() {
  std::set<std::string> names;
  for (const BackendDescriptor* backend : backend_descriptors()) names.insert(backend->name);
  return names;
}

TEST(BackendRegistry, ListsExactlyTheBackendsOfThisBuild) {
  std::set<std::string> expected;
  if (LAYERBENCH_HAVE_RUN) expected.insert("onednn");
  if (LAYERBENCH_HAVE_OPENBLAS) expected.insert("openblas");
  if (LAYERBENCH_HAVE_CUDA) expected.insert("cuda");
  EXPECT_EQ(registered_names(), expected);
  EXPECT_EQ(registered_names().size(), backend_descriptors().size()) << "a name is listed twice";
}

TEST(BackendRegistry, CpuBackendsComeFirst) {
  bool seen_other = false;
  for (const BackendDescriptor* backend : backend_descriptors()) {
    if (backend->device_kind != cpu_kind)
      seen_other = true;
    else
      EXPECT_FALSE(seen_other) << backend->name << " is listed after a backend of another device";
  }
}

TEST(BackendRegistry, EveryDescriptorIsComplete) {
  for (const BackendDescriptor* backend : backend_descriptors()) {
    SCOPED_TRACE(backend->name);
    ASSERT_TRUE(backend->probe && backend->usability && backend->version_rows &&
                backend->libraries && backend->make);
    const auto rows = backend->version_rows();
    ASSERT_FALSE(rows.empty());
    for (const VersionRow& row : rows) {
      EXPECT_FALSE(row.library.empty());
      EXPECT_FALSE(row.text.empty()) << row.library;
    }
  }
}

TEST(BackendRegistry, ProbeMachineAddsEachBackendsFindings) {
  const doctor::Snapshot snapshot = probe_machine();
  EXPECT_GT(snapshot.cpu.threads, 0);  // the harness's own part
  if (LAYERBENCH_HAVE_RUN) {
    const auto onednn = std::find_if(snapshot.backends.begin(), snapshot.backends.end(),
                                     [](const auto& b) { return b.backend == "onednn"; });
    ASSERT_NE(onednn, snapshot.backends.end());
    EXPECT_FALSE(onednn->loaded.empty());
    EXPECT_EQ(onednn->notes.front().rfind("dispatches to ", 0), 0u);
  }
  if (LAYERBENCH_HAVE_CUDA) EXPECT_NE(snapshot.nvidia.cublas.compiled_version, 0);
}

// context.libraries: each backend's libraries once, under the keys results files have always had
// (--resume compares them with the file's), and no device fact repeats a version.
TEST(BackendRegistry, LibrariesAreRecordedOnceUnderTheirKeys) {
  const doctor::Snapshot snapshot = probe_machine();
  std::set<std::string> keys;
  for (const BackendDescriptor* backend : backend_descriptors())
    for (const auto& [library, version] : backend->libraries(snapshot))
      EXPECT_TRUE(keys.insert(library).second) << library << " is recorded twice";
  std::set<std::string> expected;
  if (LAYERBENCH_HAVE_RUN) expected.insert("onednn");
  if (LAYERBENCH_HAVE_CUDA) expected.insert({"cuda_runtime", "driver", "cudnn", "cublas"});
  EXPECT_EQ(keys, expected);
  for (const BackendDescriptor* backend : backend_descriptors()) {
    if (backend->device_kind != cpu_kind) continue;  // a GPU backend needs a GPU
    for (const auto& [fact, value] : backend->make(0, 0, {})->context())
      EXPECT_FALSE(keys.count(fact) || fact.find("version") != std::string::npos)
          << backend->name << " repeats a library version in its device facts: " << fact;
  }
}

// The CUDA backend's plugin loads from the build tree (lib/layerbench, beside tests/), and what it
// throws is caught here, across the plugin boundary: without a GPU, the LibraryError saying so.
TEST(BackendRegistry, CudaPluginLoadsAndItsErrorsReachTheBinary) {
  if (!LAYERBENCH_HAVE_CUDA) GTEST_SKIP() << "layerbench was built without CUDA";
  const doctor::Snapshot snapshot = probe_machine();
  ASSERT_TRUE(snapshot.nvidia.cuda_plugin.loaded) << snapshot.nvidia.cuda_plugin.error;
  EXPECT_NE(snapshot.nvidia.cuda_plugin.path.find("/lib/layerbench/liblayerbench_cuda"),
            std::string::npos)
      << snapshot.nvidia.cuda_plugin.path;
  EXPECT_TRUE(snapshot.nvidia.cudnn.loaded && snapshot.nvidia.cublas.loaded);
  EXPECT_FALSE(snapshot.nvidia.cudnn.path.empty());
  for (const BackendDescriptor* backend : backend_descriptors()) {
    if (backend->device_kind != gpu_kind) continue;
    if (snapshot.nvidia.device_count > 0)
      EXPECT_EQ(backend->make(0, 0, {})->device(), "gpu:0");
    else
      EXPECT_THROW(backend->make(0, 0, {}), LibraryError) << snapshot.nvidia.device_error;
  }
}

TEST(BackendRegistry, CpuDescriptorsMakeACpuBackendOfTheirName) {
  for (const BackendDescriptor* backend : backend_descriptors()) {
    if (backend->device_kind != cpu_kind) continue;
    // 0 threads: the library's default, which every build can take (a build without OpenMP
    // cannot set a count).
    const auto made = backend->make(0, 0, {});
    ASSERT_NE(made, nullptr);
    EXPECT_EQ(made->name(), backend->name);
    EXPECT_EQ(made->device(), "cpu");
  }
}

}  // namespace
}  // namespace lb
