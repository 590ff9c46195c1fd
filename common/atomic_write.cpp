#include "common/atomic_write.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace rastro {

namespace {

// An existing target that is no regular file or directory: a device (/dev/null), a FIFO, a
// socket, or a symlink to one (/dev/stdout). Renaming over it would replace it with a file.
bool special_target(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// Copies the temporary's bytes into the special target, as a plain write would (O_TRUNC, which
// std::ofstream adds, does nothing to a device or a FIFO).
void copy_into(const std::string& tmp, const std::string& path) {
  std::ifstream in(tmp, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read back: {}", tmp, std::strerror(errno)));
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("{}: cannot open for writing: {}", path, std::strerror(errno)));
  if (in.peek() != std::ifstream::traits_type::eof()) out << in.rdbuf();
  out.flush();
  if (!out) throw Error(fmt::format("{}: write failed", path));
}

}  // namespace

std::string temp_path_for(const std::string& path) {
  if (special_target(path)) {
    // Not next to it: /dev is no place for files (and not writable by every user).
    static std::atomic<unsigned> serial{0};
    return (std::filesystem::temp_directory_path() / fmt::format("rastro-{}-{}.tmp", ::getpid(), serial++)).string();
  }
  return fmt::format("{}.tmp.{}", path, ::getpid());
}

void commit_temp_file(const std::string& tmp, const std::string& path) {
  if (special_target(path)) {
    try {
      copy_into(tmp, path);
    } catch (...) {
      std::remove(tmp.c_str());
      throw;
    }
    std::remove(tmp.c_str());
    return;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: cannot rename the temporary file into place: {}", path, std::strerror(err)));
  }
}

}  // namespace rastro
