#include "replay/runtime/forced_nonblock.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

namespace rastro::replay {
namespace {

using Key = std::tuple<uint64_t, uint64_t, int>;  // device, inode, access mode

std::mutex g_mu;
std::map<Key, bool> g_wanted;  // a new pipe on a reused inode overwrites the old entry

bool key_of(int fd, Key* key) {
  struct stat st {};
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fstat(fd, &st) != 0) return false;
  *key = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), fl & O_ACCMODE};
  return true;
}

}  // namespace

void forced_nonblock_created(int replay_fd, bool wanted) {
  Key k;
  if (!key_of(replay_fd, &k)) return;
  std::lock_guard lock(g_mu);
  g_wanted[k] = wanted;
}

int forced_nonblock_getfl(int replay_fd, int fl) {
  Key k;
  if (fl < 0 || !key_of(replay_fd, &k)) return fl;
  std::lock_guard lock(g_mu);
  auto it = g_wanted.find(k);
  if (it == g_wanted.end()) return fl;
  return (fl & ~O_NONBLOCK) | (it->second ? O_NONBLOCK : 0);
}

int forced_nonblock_setfl_flags(int replay_fd, int flags) {
  Key k;
  if (key_of(replay_fd, &k)) {
    std::lock_guard lock(g_mu);
    auto it = g_wanted.find(k);
    if (it != g_wanted.end()) {
      it->second = (flags & O_NONBLOCK) != 0;
      flags |= O_NONBLOCK;
    }
  }
  return flags;
}

}  // namespace rastro::replay
