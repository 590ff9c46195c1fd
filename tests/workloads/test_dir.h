// A fresh scratch directory per test, removed afterwards.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace rastro::workloads::testing {

inline std::string make_test_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // A parameterised test's name has a '/' ("Test/0"): one directory, not two (~ScopedDir would
  // remove only the inner one).
  std::string test = info->name();
  std::replace(test.begin(), test.end(), '/', '_');
  std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("rastro-" + name + "-" + std::to_string(getpid()) + "-" + test);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

struct ScopedDir {
  explicit ScopedDir(const std::string& name) : path(make_test_dir(name)) {}
  ~ScopedDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string path;
};

}  // namespace rastro::workloads::testing
