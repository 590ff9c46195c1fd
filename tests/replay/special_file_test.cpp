#include "replay/runtime/special_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace rastro::replay {
namespace {

TEST(SpecialFile, EmulatedFamilies) {
  for (const char* p : {"/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random", "/dev/tty",
                        "/dev/pts/3", "/dev/console", "/dev/stdout", "/dev/fd/1", "/proc", "/proc/self/status",
                        "/proc/1234/maps", "/proc/meminfo", "/proc/self/root/etc/passwd", "//proc//self/fd/0",
                        "/sys", "/sys/devices/system/cpu/online", "[socket]", "[epoll_create1]"}) {
    EXPECT_TRUE(is_emulated_path(p)) << p;
  }
}

TEST(SpecialFile, EverythingElseIsNot) {
  // Disks and other devices stay refused by the sandbox, shared memory (/dev/shm) is replayed as
  // files inside the root: neither is emulated; ordinary files are files.
  for (const char* p : {"/dev/sda", "/dev/shm/x", "/dev/mem", "/dev", "/devices/x", "/process", "/system/x",
                        "/dev/nullx", "/dev/pts2", "/tmp/proc/self/status", "proc/self/status", "", "[socket",
                        "/home/u/[socket]"}) {
    EXPECT_FALSE(is_emulated_path(p)) << p;
  }
  EXPECT_FALSE(is_emulated_path(std::string_view("/proc\0x", 7)));
}

TEST(SpecialFile, FdNames) {
  EXPECT_EQ(emulated_fd_name("socket"), "[socket]");
  EXPECT_TRUE(is_emulated_path(emulated_fd_name("accept4")));
}

// The stand-in is a harmless host device, never the traced path: /proc and sockets get /dev/null.
dev_t rdev_of(int fd) {
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  return st.st_rdev;
}

TEST(SpecialFile, StandIns) {
  struct Case {
    const char* traced;
    dev_t dev;  // Linux's mem devices: null 1:3, zero 1:5, urandom 1:9
    int mode;
  };
  for (const Case& c : {Case{"/proc/self/status", makedev(1, 3), O_RDWR}, Case{"[socket]", makedev(1, 3), O_RDWR},
                        Case{"/dev/tty", makedev(1, 3), O_RDWR}, Case{"/dev/zero", makedev(1, 5), O_RDONLY},
                        Case{"/dev/random", makedev(1, 9), O_RDONLY}, Case{"/dev/urandom", makedev(1, 9), O_RDONLY}}) {
    const int fd = open_emulated_stand_in(c.traced);
    ASSERT_GE(fd, 0) << c.traced;
    EXPECT_EQ(rdev_of(fd), c.dev) << c.traced;
    const int fl = fcntl(fd, F_GETFL);
    EXPECT_EQ(fl & O_ACCMODE, c.mode) << c.traced;
    EXPECT_TRUE(fl & O_NONBLOCK) << c.traced;
    EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC) << c.traced;
    close(fd);
  }
}

}  // namespace
}  // namespace rastro::replay
