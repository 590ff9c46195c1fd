#include "replay/runtime/sandbox_resolver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sched.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <climits>
#include <thread>

#include <gtest/gtest.h>

#include "common/error.h"
#include "replay/engines/replay_threads.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TempDir;

TEST(SandboxResolver, PathHelpers) {
  EXPECT_EQ(SandboxResolver::absolute("/home/u", "a/b"), "/home/u/a/b");
  EXPECT_EQ(SandboxResolver::absolute("/home/u/", "/x"), "/x");
  EXPECT_EQ(SandboxResolver::absolute("", "x"), "/x");
  EXPECT_EQ(SandboxResolver::normalise("/a/./b/../../../c//d/"), "/c/d");
  EXPECT_EQ(SandboxResolver::normalise("/.."), "/");
  EXPECT_EQ(SandboxResolver::relative("/"), ".");
  EXPECT_EQ(SandboxResolver::relative("//a/b"), "a/b");
  EXPECT_EQ(SandboxResolver::check("/data/x"), PathVerdict::kOk);
  EXPECT_EQ(SandboxResolver::check("/dev/null"), PathVerdict::kDevNull);
  EXPECT_EQ(SandboxResolver::check("//dev//sda"), PathVerdict::kSpecial);
  EXPECT_EQ(SandboxResolver::check("/proc/self/mem"), PathVerdict::kSpecial);
  EXPECT_EQ(SandboxResolver::check("/sys"), PathVerdict::kSpecial);
  // POSIX shared memory: files the program makes, replayed inside the root.
  EXPECT_EQ(SandboxResolver::check("/dev/shm/PostgreSQL.1"), PathVerdict::kOk);
  EXPECT_EQ(SandboxResolver::check("//dev/shm"), PathVerdict::kOk);
  EXPECT_EQ(SandboxResolver::check("/dev/shmem"), PathVerdict::kSpecial);
  EXPECT_EQ(SandboxResolver::check("/devices/x"), PathVerdict::kOk);
  EXPECT_EQ(SandboxResolver::check(std::string_view("/a\0b", 4)), PathVerdict::kBadBytes);
  EXPECT_EQ(SandboxResolver::check(""), PathVerdict::kBadBytes);
}

TEST(SandboxResolver, MissingRootIsAClearError) {
  try {
    SandboxResolver r("/nonexistent/rastro/root");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rastro/root"), std::string::npos);
  }
}

TEST(SandboxResolver, DotDotAndAbsoluteSymlinksStayInside) {
  TempDir top;
  std::string root = top.sub("root"), outside = top.sub("outside");
  mkdir(root.c_str(), 0755);
  mkdir(outside.c_str(), 0755);
  testing::write_file(outside + "/secret", "s");
  // Planted inside the root, pointing outside (absolute and relative).
  ASSERT_EQ(symlink(outside.c_str(), (root + "/abs").c_str()), 0);
  ASSERT_EQ(symlink("../outside", (root + "/rel").c_str()), 0);
  mkdir((root + "/outside").c_str(), 0755);
  SandboxResolver sb(root);

  int fd = sb.open("/../../outside/created", O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_TRUE(std::filesystem::exists(root + "/outside/created"));  // ".." stopped at the root
  EXPECT_FALSE(std::filesystem::exists(outside + "/created"));

  EXPECT_EQ(sb.open("/abs/secret", O_RDONLY, 0), -ENOENT);  // re-rooted: root+outside/secret
  EXPECT_EQ(sb.open("/rel/secret", O_RDONLY, 0), -ENOENT);
  fd = sb.open("/abs/new", O_CREAT | O_WRONLY, 0644);  // resolves to root + <outside path>/new
  if (fd >= 0) close(fd);
  EXPECT_FALSE(std::filesystem::exists(outside + "/new"));

  // Magic links are refused.
  EXPECT_LT(sb.open("/proc/self/root/etc/passwd", O_RDONLY, 0), 0);
}

// A relative traced path walked from a Base (a directory inside the root that stands for the
// traced cwd or dirfd) stays beneath it, and one that leaves it is walked from the root instead,
// where `..` stops at the root and absolute symlinks are re-rooted.
TEST(SandboxResolver, ABaseIsWalkedBeneathAndAPathLeavingItFromTheRoot) {
  TempDir top;
  std::string root = top.sub("root"), outside = top.sub("outside");
  std::filesystem::create_directories(root + "/d/e");
  std::filesystem::create_directories(root + "/outside");
  mkdir(outside.c_str(), 0755);
  testing::write_file(outside + "/secret", "s");
  ASSERT_EQ(symlink(outside.c_str(), (root + "/d/e/abs").c_str()), 0);
  ASSERT_EQ(symlink("../../../outside", (root + "/d/e/rel").c_str()), 0);
  SandboxResolver sb(root);
  const int dir = sb.open("/d/e", O_PATH | O_DIRECTORY, 0);
  ASSERT_GE(dir, 0);
  auto open_from = [&](std::string_view traced, std::string_view abs, int flags) {
    const SandboxResolver::Base base{dir, traced};
    const int fd = sb.open(abs, flags, 0644, nullptr, nullptr, &base);
    if (fd >= 0) close(fd);
    return fd < 0 ? fd : 0;
  };
  EXPECT_EQ(open_from("f", "/d/e/f", O_CREAT | O_WRONLY), 0);
  EXPECT_TRUE(std::filesystem::exists(root + "/d/e/f"));
  EXPECT_EQ(open_from("../../../../outside/x", "/outside/x", O_CREAT | O_WRONLY), 0);
  EXPECT_TRUE(std::filesystem::exists(root + "/outside/x"));
  EXPECT_FALSE(std::filesystem::exists(outside + "/x"));
  EXPECT_EQ(open_from("abs/secret", "/d/e/abs/secret", O_RDONLY), -ENOENT);  // re-rooted
  EXPECT_EQ(open_from("rel/secret", "/d/e/rel/secret", O_RDONLY), -ENOENT);  // `..` stopped at the root
  // The walk starts at the base itself, not at its path: moved, the base still leads to it.
  ASSERT_EQ(rename((root + "/d").c_str(), (root + "/m").c_str()), 0);
  EXPECT_EQ(open_from("g", "/d/e/g", O_CREAT | O_WRONLY), 0);
  EXPECT_TRUE(std::filesystem::exists(root + "/m/e/g"));
  close(dir);
}

TEST(SandboxResolver, ParentOfDotDotIsTheObjectNotAName) {
  TempDir top;
  mkdir(top.sub("a").c_str(), 0755);
  SandboxResolver sb(top.path());
  SandboxResolver::Parent p;
  ASSERT_EQ(sb.open_parent("/a/b", &p), 0);
  EXPECT_EQ(p.name, "b");
  ASSERT_EQ(sb.open_parent("/a/..", &p), 0);
  EXPECT_EQ(p.name, "");
  ASSERT_EQ(sb.open_parent("/..", &p), 0);
  EXPECT_EQ(p.name, "");
  ASSERT_EQ(sb.open_parent("/a/", &p), 0);
  EXPECT_EQ(p.name, "a");
  EXPECT_EQ(sb.open_parent("/missing/x", &p), -ENOENT);
}

// In a root that holds no FIFO (RootFifos::kNone) an open asks the kernel for the traced flags
// as they are: no O_NONBLOCK to take off again with fcntl calls of the replayer's own, which warm
// the path of the program's next fcntl. A FIFO found there all the same is refused, like a device.
TEST(SandboxResolver, InARootWithoutFifosOpensWithTheTracedFlagsAlone) {
  TempDir top;
  SandboxResolver sb(top.path(), RootFifos::kNone);
  EXPECT_EQ(sb.fifos(), RootFifos::kNone);
  testing::write_file(top.sub("f"), "x");
  UniqueFd plain(sb.open("/f", O_RDONLY, 0));
  ASSERT_GE(plain.get(), 0) << std::strerror(-plain.get());
  EXPECT_EQ(fcntl(plain.get(), F_GETFL) & (O_NONBLOCK | O_ACCMODE), O_RDONLY);
  UniqueFd nonblock(sb.open("/f", O_RDWR | O_NONBLOCK | O_APPEND, 0));
  ASSERT_GE(nonblock.get(), 0);
  EXPECT_EQ(fcntl(nonblock.get(), F_GETFL) & (O_NONBLOCK | O_APPEND | O_ACCMODE), O_RDWR | O_NONBLOCK | O_APPEND)
      << "the program's own O_NONBLOCK is kept";
  UniqueFd made(sb.open("/new", O_WRONLY | O_CREAT | O_EXCL, 0600));
  ASSERT_GE(made.get(), 0);
  EXPECT_EQ(::write(made.get(), "abc", 3), 3);
  ASSERT_EQ(mkdir(top.sub("d").c_str(), 0755), 0);
  UniqueFd dir(sb.open("/d", O_RDONLY | O_DIRECTORY, 0));
  EXPECT_GE(dir.get(), 0);
  ASSERT_EQ(mkfifo(top.sub("fifo").c_str(), 0644), 0);
  EXPECT_EQ(sb.open("/fifo", O_RDWR, 0), -EPERM) << "(read-write: Linux opens a FIFO so without waiting)";
  EXPECT_EQ(sb.open("/missing", O_RDONLY, 0), -ENOENT);
}

TEST(SandboxResolver, RefusesDeviceNodesAndOpensFifosWithoutBlocking) {
  TempDir top;
  SandboxResolver sb(top.path());
  ASSERT_EQ(mkfifo(top.sub("fifo").c_str(), 0644), 0);
  // The writer first, and no reader comes: the traced open waited for one; this one waits a
  // stream's deadline, then opens read-write (never blocking for good, nor failing with ENXIO as
  // O_WRONLY|O_NONBLOCK does).
  UniqueFd w(sb.open("/fifo", O_WRONLY | O_CREAT | O_TRUNC, 0644));
  ASSERT_GE(w.get(), 0) << std::strerror(-w.get());
  UniqueFd r(sb.open("/fifo", O_RDONLY, 0));
  ASSERT_GE(r.get(), 0) << std::strerror(-r.get());
  EXPECT_NE(fcntl(r.get(), F_GETFL) & O_NONBLOCK, 0) << "a FIFO stays non-blocking in the replay";
  EXPECT_EQ(::write(w.get(), "abc", 3), 3);
  char buf[8];
  EXPECT_EQ(::read(r.get(), buf, sizeof buf), 3);
  EXPECT_EQ(::read(r.get(), buf, sizeof buf), -1) << "no data: EAGAIN, not a block";
  EXPECT_EQ(errno, EAGAIN);
  if (mknod(top.sub("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    EXPECT_EQ(sb.open("/null", O_WRONLY, 0), -EPERM);
  } else {
    std::printf("mknod not permitted here (%s): device-node check not exercised\n", std::strerror(errno));
  }
  testing::write_file(top.sub("f"), "x");
  int fd = sb.open("/f", O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);  // the probe's O_NONBLOCK is cleared
  close(fd);
}

// A replay thread standing for a forked process has its own fd table: fd_path(N) must name the
// calling thread's fd N, not the thread-group leader's (there N was another file, or none: a path
// xattr call then acted on that file, or failed with ENOENT).
TEST(SandboxResolver, FdPathIsTheCallingThreadsFd) {
  if (!detail::kFdTablePerProcess) GTEST_SKIP() << "ThreadSanitizer build: one fd table (replay_threads.h)";
  TempDir top;
  testing::write_file(top.sub("inside"), "a");
  testing::write_file(top.sub("leaders"), "b");
  UniqueFd leaders(::open(top.sub("leaders").c_str(), O_PATH | O_CLOEXEC));
  ASSERT_GE(leaders.get(), 0);
  const int n = leaders.get();
  std::string seen;
  int xattr_err = 0;
  std::thread([&] {
    if (::unshare(CLONE_FILES) != 0) return;
    int fd = ::open(top.sub("inside").c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0 || ::dup2(fd, n) != n) return;  // in this table only, n is the file inside
    char buf[PATH_MAX];
    ssize_t len = ::readlink(fd_path(n).c_str(), buf, sizeof buf);
    if (len > 0) seen.assign(buf, static_cast<size_t>(len));
    if (::setxattr(fd_path(n).c_str(), "user.rastro", "1", 1, 0) != 0) xattr_err = errno;
  }).join();
  EXPECT_EQ(seen, top.sub("inside"));
  char v[4];
  if (xattr_err == 0) {
    EXPECT_EQ(::getxattr(top.sub("inside").c_str(), "user.rastro", v, sizeof v), 1);
  } else {
    EXPECT_EQ(xattr_err, ENOTSUP) << "setxattr through fd_path: " << std::strerror(xattr_err);
  }
  EXPECT_EQ(::getxattr(top.sub("leaders").c_str(), "user.rastro", v, sizeof v), -1) << "the leader's fd was acted on";
}

}  // namespace
}  // namespace rastro::replay
