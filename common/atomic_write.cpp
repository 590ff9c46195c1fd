#include "common/atomic_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rastro {

std::string temp_path_for(const std::string& path) { return fmt::format("{}.tmp.{}", path, ::getpid()); }

void commit_temp_file(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: cannot rename the temporary file into place: {}", path, std::strerror(err)));
  }
}

}  // namespace rastro
