#include "common/drop_caches.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace rastro {

Result<bool> drop_caches() {
  ::sync();  // dirty pages cannot be dropped: write them back first
  constexpr const char* kPath = "/proc/sys/vm/drop_caches";
  int fd = ::open(kPath, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("cannot open {}: {} (needs root)", kPath, std::strerror(errno)));
  ssize_t w = ::write(fd, "3\n", 2);
  int err = errno;
  ::close(fd);
  if (w != 2) return fail(fmt::format("writing {}: {}", kPath, std::strerror(err)));
  return true;
}

}  // namespace rastro
