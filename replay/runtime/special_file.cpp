#include "replay/runtime/special_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "replay/runtime/sandbox_resolver.h"

namespace rastro::replay {
namespace {

using Path = SandboxResolver;  // its path classification helpers

bool emulated_device(std::string_view p) {
  for (std::string_view dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random", "/dev/tty",
                               "/dev/console", "/dev/ptmx", "/dev/stdin", "/dev/stdout", "/dev/stderr"}) {
    if (p == dev) return true;
  }
  return Path::under(p, "/dev/pts") || Path::under(p, "/dev/fd");
}

}  // namespace

bool is_emulated_path(std::string_view abs_path) {
  if (abs_path.empty()) return false;
  if (abs_path.front() == '[') return abs_path.back() == ']';
  if (abs_path.front() != '/' || abs_path.find('\0') != std::string_view::npos) return false;
  // Cheap reject first: most paths of a trace are none of these.
  const char c1 = abs_path.size() > 1 ? abs_path[1] : '\0';
  if (c1 != 'd' && c1 != 'p' && c1 != 's' && c1 != '/') return false;
  const std::string p = Path::squeeze_slashes(abs_path);
  return Path::under(p, "/proc") || Path::under(p, "/sys") || emulated_device(p);
}

int own_fd_named(std::string_view path, int32_t pid) {
  // Every open asks (CallOps::open_path, the fd keys pass): reject the others without a copy.
  if (path.size() < 9 || path.front() != '/' || (path[1] != 'd' && path[1] != 'p' && path[1] != '/')) return -1;
  const std::string p = Path::squeeze_slashes(path);
  if (p == "/dev/stdin") return 0;
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  std::string_view n;
  for (std::string_view dir : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/"),
                               std::string_view("/proc/thread-self/fd/")}) {
    if (p.compare(0, dir.size(), dir) == 0) n = std::string_view(p).substr(dir.size());
  }
  if (n.empty()) {
    const std::string own = "/proc/" + std::to_string(pid) + "/fd/";
    if (p.compare(0, own.size(), own) != 0) return -1;
    n = std::string_view(p).substr(own.size());
  }
  int fd = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), fd);
  return ec == std::errc() && end == n.data() + n.size() && fd >= 0 ? fd : -1;
}

std::string emulated_fd_name(std::string_view call) { return "[" + std::string(call) + "]"; }

int open_emulated_stand_in(std::string_view abs_path) {
  const std::string p = abs_path.empty() || abs_path.front() != '/' ? std::string() : Path::squeeze_slashes(abs_path);
  const char* dev = "/dev/null";
  int mode = O_RDWR;
  if (p == "/dev/zero") {
    dev = "/dev/zero";
    mode = O_RDONLY;
  } else if (p == "/dev/urandom" || p == "/dev/random") {
    dev = "/dev/urandom";
    mode = O_RDONLY;
  }
  const int fd = ::open(dev, mode | O_CLOEXEC | O_NONBLOCK);
  return fd < 0 ? -errno : fd;
}

}  // namespace rastro::replay
