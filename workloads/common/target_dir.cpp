#include "workloads/common/target_dir.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"

namespace rastro::workloads {

namespace fs = std::filesystem;

std::string prepare_target_dir(const std::string& dir) {
  if (dir.empty()) throw Error("--dir: empty directory name");
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) throw Error(fmt::format("--dir {}: {}", dir, ec.message()));
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) throw Error(fmt::format("--dir {}: exists and is not a directory", dir));
  } else {
    fs::create_directories(p, ec);
    if (ec) throw Error(fmt::format("--dir {}: cannot create it: {}", dir, ec.message()));
  }
  p = fs::canonical(p, ec);
  if (ec) throw Error(fmt::format("--dir {}: {}", dir, ec.message()));
  const std::string probe = (p / fmt::format(".rastro-probe-{}", getpid())).string();
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw Error(fmt::format("--dir {}: not writable (creating a file there failed: {})", p.string(),
                            std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return p.string();
}

void require_free_space(const std::string& dir, uint64_t bytes, const std::string& what) {
  struct statvfs st;
  if (statvfs(dir.c_str(), &st) != 0) {
    throw Error(fmt::format("--dir {}: statvfs failed: {}", dir, std::strerror(errno)));
  }
  const uint64_t frsize = st.f_frsize == 0 ? 1 : st.f_frsize;
  const uint64_t avail = st.f_bavail > UINT64_MAX / frsize ? UINT64_MAX : st.f_bavail * frsize;
  if (avail < bytes) {
    throw Error(fmt::format("--dir {}: not enough free space for {}: needs {}, {} available", dir, what,
                            format_size(bytes), format_size(avail)));
  }
}

}  // namespace rastro::workloads
