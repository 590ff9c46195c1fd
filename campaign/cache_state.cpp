#include "campaign/cache_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace rastro::campaign {

Result<uint64_t> warm_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  uint64_t total = 0;
  std::vector<char> buf(1 << 20);
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string path = it->path().string();
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("warm cache: {}: {}", path, std::strerror(errno)));
    ssize_t n;
    while ((n = read(fd, buf.data(), buf.size())) > 0) total += static_cast<uint64_t>(n);
    const int err = errno;
    close(fd);
    if (n < 0) return fail(fmt::format("warm cache: {}: {}", path, std::strerror(err)));
  }
  if (ec) return fail(fmt::format("warm cache: {}: {}", dir, ec.message()));
  return total;
}

}  // namespace rastro::campaign
