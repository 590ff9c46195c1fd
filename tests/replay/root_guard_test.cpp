// The replay root rules (replay/session/root_guard.h): each refusal, each acceptance, and that a
// refusal leaves the directory exactly as it was.
#include "replay/session/root_guard.h"

#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"

namespace {

namespace fs = std::filesystem;
using rastro::replay::guard_replay_root;
using rastro::replay::kRootMarker;
using rastro::replay::RootPolicy;

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/rastro-root-guard-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The message of the Error `f` throws, or nullopt if it does not throw.
template <class F>
std::optional<std::string> refusal(F f) {
  try {
    f();
  } catch (const rastro::Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// What a replay may assume of a root it found empty (replay_session.h, root_fifos): nothing
// but the marker, or nothing at all.
TEST(RootGuard, ARootIsEmptyWhenMissingOrHoldingOnlyTheMarker) {
  TempDir d;
  EXPECT_TRUE(rastro::replay::root_is_empty(d.path + "/missing"));
  EXPECT_TRUE(rastro::replay::root_is_empty(d.path));
  guard_replay_root(d.path, {});
  EXPECT_TRUE(rastro::replay::root_is_empty(d.path)) << "the marker alone";
  std::ofstream(d.path + "/f") << "x";
  EXPECT_FALSE(rastro::replay::root_is_empty(d.path));
  EXPECT_FALSE(rastro::replay::root_is_empty(d.path + "/f")) << "a file is no root";
}

TEST(RootGuard, AMissingRootIsCreatedAndMarked) {
  TempDir d;
  const std::string root = d.path + "/new";
  const std::string made = guard_replay_root(root, {});
  EXPECT_EQ(made, fs::canonical(root).string());
  EXPECT_TRUE(fs::is_regular_file(root + "/" + kRootMarker));
  // Marked and otherwise empty: a second session (cmd_replay checks before reading) accepts it.
  EXPECT_NO_THROW(guard_replay_root(root, {}));
}

TEST(RootGuard, AnEmptyDirectoryIsAdopted) {
  TempDir d;
  EXPECT_NO_THROW(guard_replay_root(d.path, {}));
  EXPECT_TRUE(fs::is_regular_file(d.path + "/" + kRootMarker));
}

TEST(RootGuard, AMissingParentIsAnError) {
  TempDir d;
  auto why = refusal([&] { guard_replay_root(d.path + "/no/such", {}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("cannot create"), std::string::npos) << *why;
}

TEST(RootGuard, ANonEmptyRootNeedsForceAndIsLeftAsItWas) {
  TempDir d;
  std::ofstream(d.path + "/precious.db") << "user data";
  auto why = refusal([&] { guard_replay_root(d.path, {}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not empty"), std::string::npos) << *why;
  EXPECT_NE(why->find("precious.db"), std::string::npos) << *why;
  EXPECT_NE(why->find("--force"), std::string::npos) << *why;
  EXPECT_EQ(slurp(d.path + "/precious.db"), "user data");
  EXPECT_FALSE(fs::exists(d.path + "/" + kRootMarker));
}

TEST(RootGuard, ForceIsNotEnoughForATreeRastroDidNotMake) {
  TempDir d;
  std::ofstream(d.path + "/precious.db") << "user data";
  auto why = refusal([&] { guard_replay_root(d.path, {.force = true}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not made by rastro"), std::string::npos) << *why;
  EXPECT_NE(why->find("--allow-unsafe-root"), std::string::npos) << *why;
  EXPECT_FALSE(fs::exists(d.path + "/" + kRootMarker));
  EXPECT_NO_THROW(guard_replay_root(d.path, {.force = true, .allow_unsafe_root = true}));
  EXPECT_EQ(slurp(d.path + "/precious.db"), "user data");
}

TEST(RootGuard, ForceAcceptsAMarkedRootAndAnyDirectoryInsideIt) {
  TempDir d;
  guard_replay_root(d.path, {});
  fs::create_directories(d.path + "/sub/deeper");
  std::ofstream(d.path + "/sub/deeper/left-by-an-earlier-replay") << "x";
  EXPECT_TRUE(refusal([&] { guard_replay_root(d.path, {}); }));
  EXPECT_NO_THROW(guard_replay_root(d.path, {.force = true}));
  EXPECT_NO_THROW(guard_replay_root(d.path + "/sub", {.force = true}));
  EXPECT_EQ(rastro::replay::root_hazards(d.path + "/sub/deeper").marker_dir, d.path);
}

TEST(RootGuard, AMarkerThatIsASymlinkDoesNotCount) {
  TempDir d;
  std::ofstream(d.path + "/real-marker") << "";
  fs::create_symlink(d.path + "/real-marker", d.path + "/" + kRootMarker);
  std::ofstream(d.path + "/data") << "x";
  EXPECT_TRUE(refusal([&] { guard_replay_root(d.path, {.force = true}); }));
}

TEST(RootGuard, TheFileSystemRootIsRefusedWhateverTheFlags) {
  auto why = refusal([] { guard_replay_root("/", {.force = true, .allow_unsafe_root = true}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("file-system root"), std::string::npos) << *why;
  EXPECT_FALSE(fs::exists(std::string("/") + kRootMarker));
  EXPECT_TRUE(refusal([] { guard_replay_root("/tmp/..", {.force = true, .allow_unsafe_root = true}); }));
}

TEST(RootGuard, AHomeDirectoryIsRefusedEvenWhenMarked) {
  TempDir d;
  const char* old = std::getenv("HOME");
  const std::string saved = old ? old : "";
  guard_replay_root(d.path, {});  // marked, so only the home rule can refuse
  std::ofstream(d.path + "/.bashrc") << "# mine";
  setenv("HOME", d.path.c_str(), 1);
  auto why = refusal([&] { guard_replay_root(d.path, {.force = true}); });
  if (old) setenv("HOME", saved.c_str(), 1); else unsetenv("HOME");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("home directory"), std::string::npos) << *why;
  EXPECT_EQ(slurp(d.path + "/.bashrc"), "# mine");
}

TEST(RootGuard, KernelMountPointsAreRefused) {
  // /proc is a mount point on every Linux machine we run on; the kernel lists it, we did not.
  auto points = rastro::replay::mount_points();
  ASSERT_NE(std::find(points.begin(), points.end(), "/proc"), points.end());
  EXPECT_TRUE(rastro::replay::root_hazards("/proc").is_mount_point);
  auto why = refusal([] { guard_replay_root("/proc", {.force = true}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("mount point"), std::string::npos) << *why;
  TempDir d;
  EXPECT_FALSE(rastro::replay::root_hazards(d.path).is_mount_point);
}

TEST(RootGuard, AMarkedTmpfsMountWithASpaceInItsNameIsRefused) {
  TempDir d;
  const std::string mnt = d.path + "/a mount";
  fs::create_directories(mnt);
  if (mount("rastro-test", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) {
    if (errno == EPERM) GTEST_SKIP() << "mounting a tmpfs needs CAP_SYS_ADMIN, which this test run lacks";
    FAIL() << "mount tmpfs: " << std::strerror(errno);
  }
  std::ofstream(mnt + "/" + kRootMarker) << "";
  std::ofstream(mnt + "/data") << "x";
  auto why = refusal([&] { guard_replay_root(mnt, {.force = true}); });
  EXPECT_TRUE(rastro::replay::root_hazards(mnt).is_mount_point);
  umount(mnt.c_str());
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("mount point"), std::string::npos) << *why;
}

TEST(RootGuard, AFileIsNotARoot) {
  TempDir d;
  std::ofstream(d.path + "/f") << "x";
  auto why = refusal([&] { guard_replay_root(d.path + "/f", {.force = true, .allow_unsafe_root = true}); });
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not a directory"), std::string::npos) << *why;
}

}  // namespace
