#include <gtest/gtest.h>

#include "capture/common/backend.h"

namespace rastro::capture {
namespace {

TEST(BackendRegistry, EveryNameMakesItsBackend) {
  auto names = backend_names();
  EXPECT_EQ(names, (std::vector<std::string>{"strace", "ptrace", "ebpf", "stap"}));
  for (const auto& n : names) {
    auto b = make_backend(n);
    ASSERT_NE(b, nullptr) << n;
    EXPECT_EQ(b->name(), n);
  }
  EXPECT_EQ(make_backend("dtrace"), nullptr);
}

}  // namespace
}  // namespace rastro::capture
