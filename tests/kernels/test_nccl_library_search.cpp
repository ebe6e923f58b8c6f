// Where hcpsim looks for libnccl.so.2 (kernels/nccl_library_search.h), proven without a GPU on fake
// libraries built by this test's CMakeLists: the search order, a library lacking a symbol rejected
// by name, and the message naming every place tried when none fits.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/nccl_library_search.h"

namespace hcpsim::kernels {
namespace {

namespace fs = std::filesystem;

// A scratch tree with copies of the fake libraries where a CUDA toolkit and a Python wheel keep them.
class NcclSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hcpsim-nccl-search-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    if (lib_.handle) dlclose(lib_.handle);
    fs::remove_all(root_);
  }
  // Copies `lib` to root/rel (as libnccl.so.2) and returns the full path.
  std::string place(const char* lib, const std::string& rel) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    fs::copy_file(lib, p, fs::copy_options::overwrite_existing);
    return p.string();
  }
  NcclSearchPlaces places() const {
    NcclSearchPlaces p;
    p.system_name = "libnccl-hcpsim-test-absent.so.2";   // the machine's own NCCL must not answer
    p.cuda_roots = {(root_ / "cuda").string()};
    p.site_packages = {(root_ / "venv/lib/python3*/site-packages").string()};
    return p;
  }
  static int version_of(void* handle) {
    using Fn = int (*)(int*);
    auto fn = reinterpret_cast<Fn>(dlsym(handle, "ncclGetVersion"));
    int v = 0;
    if (fn) fn(&v);
    return v;
  }

  fs::path root_;
  NcclLibrary lib_;
};

TEST_F(NcclSearch, CandidatesComeInTheDocumentedOrder) {
  const std::string wheel = place(HCPSIM_FAKE_NCCL, "venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2");
  NcclSearchPlaces p = places();
  p.override_path = "/opt/mine/libnccl.so.2";
  const auto c = nccl_candidates(p);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].path, "/opt/mine/libnccl.so.2");
  EXPECT_EQ(c[0].source, "HCPSIM_NCCL_LIBRARY");
  EXPECT_EQ(c[1].path, "libnccl-hcpsim-test-absent.so.2");
  EXPECT_EQ(c[1].source, "system");
  EXPECT_EQ(c[2].path, (root_ / "cuda/lib64/libnccl.so.2").string());
  EXPECT_EQ(c[3].path, (root_ / "cuda/lib/libnccl.so.2").string());
  EXPECT_EQ(c[2].source, "CUDA toolkit");
  EXPECT_EQ(c[4].path, wheel);
  EXPECT_EQ(c[4].source, "Python wheel nvidia-nccl");

  p.override_path.clear();   // no variable: no candidate for it; a site-packages without the wheel: none either
  p.site_packages = {(root_ / "elsewhere/lib/python3*/site-packages").string()};
  const auto d = nccl_candidates(p);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].source, "system");
}

TEST_F(NcclSearch, FromEnvironmentReadsTheVariables) {
  ::setenv("HCPSIM_NCCL_LIBRARY", "/x/libnccl.so.2", 1);
  ::setenv("CUDA_HOME", "/opt/cuda-x", 1);
  ::setenv("VIRTUAL_ENV", "/opt/venv-x", 1);
  const NcclSearchPlaces p = NcclSearchPlaces::from_environment();
  ::unsetenv("HCPSIM_NCCL_LIBRARY");
  ::unsetenv("CUDA_HOME");
  ::unsetenv("VIRTUAL_ENV");
  EXPECT_EQ(p.override_path, "/x/libnccl.so.2");
  EXPECT_EQ(p.system_name, "libnccl.so.2");
  ASSERT_GE(p.cuda_roots.size(), 2u);
  EXPECT_EQ(p.cuda_roots[0], "/opt/cuda-x");
  EXPECT_EQ(p.cuda_roots[1], "/usr/local/cuda");
  ASSERT_FALSE(p.site_packages.empty());
  EXPECT_EQ(p.site_packages[0], "/opt/venv-x/lib/python3*/site-packages");
}

TEST_F(NcclSearch, TheOverrideWinsOverTheToolkitAndTheWheel) {
  const std::string mine = place(HCPSIM_FAKE_NCCL, "mine/libnccl.so.2");
  place(HCPSIM_FAKE_NCCL, "cuda/lib64/libnccl.so.2");
  NcclSearchPlaces p = places();
  p.override_path = mine;
  lib_ = open_first_nccl(nccl_candidates(p), nccl_required_symbols());
  ASSERT_NE(lib_.handle, nullptr) << lib_.tried;
  EXPECT_EQ(lib_.source, "HCPSIM_NCCL_LIBRARY");
  EXPECT_EQ(fs::canonical(lib_.path), fs::canonical(mine));
  EXPECT_EQ(version_of(lib_.handle), 22809);
}

TEST_F(NcclSearch, ALibraryLackingASymbolIsSkippedByName) {
  const std::string old = place(HCPSIM_FAKE_NCCL_WITHOUT_SPLIT, "old/libnccl.so.2");
  const std::string toolkit = place(HCPSIM_FAKE_NCCL, "cuda/lib/libnccl.so.2");
  NcclSearchPlaces p = places();
  p.override_path = old;
  lib_ = open_first_nccl(nccl_candidates(p), nccl_required_symbols());
  ASSERT_NE(lib_.handle, nullptr) << lib_.tried;
  EXPECT_EQ(lib_.source, "CUDA toolkit");
  EXPECT_EQ(fs::canonical(lib_.path), fs::canonical(toolkit));
  EXPECT_NE(lib_.tried.find(old + " (lacks ncclCommSplit)"), std::string::npos) << lib_.tried;
  EXPECT_NE(lib_.tried.find((root_ / "cuda/lib64/libnccl.so.2").string() + " (not found)"), std::string::npos)
      << lib_.tried;
}

TEST_F(NcclSearch, ThePythonWheelIsFoundWhenNothingElseIs) {
  const std::string wheel = place(HCPSIM_FAKE_NCCL, "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
  lib_ = open_first_nccl(nccl_candidates(places()), nccl_required_symbols());
  ASSERT_NE(lib_.handle, nullptr) << lib_.tried;
  EXPECT_EQ(lib_.source, "Python wheel nvidia-nccl");
  EXPECT_EQ(fs::canonical(lib_.path), fs::canonical(wheel));
}

TEST_F(NcclSearch, NoneFoundNamesEveryPlaceTried) {
  const std::string old = place(HCPSIM_FAKE_NCCL_WITHOUT_SPLIT,
                                "venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2");
  NcclSearchPlaces p = places();
  p.override_path = (root_ / "missing/libnccl.so.2").string();
  lib_ = open_first_nccl(nccl_candidates(p), nccl_required_symbols());
  EXPECT_EQ(lib_.handle, nullptr);
  const std::string m = nccl_not_found_message(lib_, "ncclCommSplit");
  for (const std::string& part :
       std::vector<std::string>{"NCCL is needed for ncclCommSplit", p.override_path + " (not found)",
        std::string("libnccl-hcpsim-test-absent.so.2 (not found)"), (root_ / "cuda/lib64/libnccl.so.2").string(),
        (root_ / "cuda/lib/libnccl.so.2").string(), old + " (lacks ncclCommSplit)",
        std::string("pip install nvidia-nccl-cu13"), std::string("HCPSIM_NCCL_LIBRARY=")})
    EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
}

}  // namespace
}  // namespace hcpsim::kernels
