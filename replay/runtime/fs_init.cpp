#include "replay/runtime/fs_init.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "replay/runtime/call_executor.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {
namespace {

// mkdir -p of an absolute traced path inside the root.
int make_dirs(const SandboxResolver& sb, const std::string& abs) {
  for (size_t slash = abs.find('/', 1);; slash = abs.find('/', slash + 1)) {
    std::string part = slash == std::string::npos ? abs : abs.substr(0, slash);
    SandboxResolver::Parent p;
    int r = sb.open_parent(part, &p);
    if (r < 0) return r;
    if (!p.name.empty() && mkdirat(p.dir.get(), p.name.c_str(), 0755) != 0 && errno != EEXIST) return -errno;
    if (slash == std::string::npos) return 0;
  }
}

}  // namespace

InitReport create_initial_state(const SandboxResolver& sandbox, const InitPlan& plan) {
  InitReport rep;
  std::vector<char> chunk(1 << 20);
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = write_pattern_byte(i);
  auto problem = [&](const InitEntry& e, int err) {
    rep.problems.push_back(e.path + ": " + std::strerror(err));
  };
  for (const InitEntry& e : plan.entries) {
    if (SandboxResolver::check(e.path) != PathVerdict::kOk) {
      ++rep.refused;
      continue;
    }
    std::string parent = e.path.substr(0, e.path.rfind('/'));
    if (!parent.empty()) {
      int r = make_dirs(sandbox, parent);
      if (r < 0) {
        problem(e, -r);
        continue;
      }
    }
    switch (e.kind) {
      case InitEntry::Kind::kDir: {
        int r = make_dirs(sandbox, e.path);
        if (r < 0) {
          problem(e, -r);
        } else {
          ++rep.dirs;
        }
        break;
      }
      case InitEntry::Kind::kSymlink: {
        SandboxResolver::Parent p;
        int r = sandbox.open_parent(e.path, &p);
        if (r < 0 || p.name.empty()) {
          problem(e, r < 0 ? -r : EINVAL);
        } else if (symlinkat(e.target.c_str(), p.dir.get(), p.name.c_str()) != 0 && errno != EEXIST) {
          problem(e, errno);
        } else {
          ++rep.symlinks;
        }
        break;
      }
      case InitEntry::Kind::kFile: {
        // A file already in the root (a --force root) is kept exactly as it is: init never
        // replaces, truncates, extends or re-moulds a file it did not create.
        int fd = sandbox.open(e.path, O_CREAT | O_EXCL | O_WRONLY, e.mode);
        if (fd == -EEXIST) {
          ++rep.kept;
          break;
        }
        if (fd < 0) {
          problem(e, -fd);
          break;
        }
        UniqueFd f(fd);
        struct stat st;
        if (fstat(fd, &st) != 0) {
          problem(e, errno);
          break;
        }
        // The mode asked for may be masked by the umask; the exec bits matter (a traced execve).
        const mode_t exec_bits = e.mode & 0111;
        if ((st.st_mode & exec_bits) != exec_bits && fchmod(fd, (st.st_mode & 07777) | exec_bits) != 0) {
          problem(e, errno);
          break;
        }
        // Real bytes from the current end up to the size needed (holes would read as zeros
        // without touching the device, unlike the traced file's data).
        uint64_t off = static_cast<uint64_t>(st.st_size);
        bool failed = false;
        while (off < e.size) {
          size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), e.size - off));
          ssize_t w = pwrite(fd, chunk.data(), n, static_cast<off_t>(off));
          if (w <= 0) {
            problem(e, w < 0 ? errno : EIO);
            failed = true;
            break;
          }
          off += static_cast<uint64_t>(w);
          rep.bytes_written += static_cast<uint64_t>(w);
        }
        if (!failed) ++rep.files;
        break;
      }
    }
  }
  // The traced program found its files on disk, clean: a replay starting with init's data still
  // dirty in the page cache would pay for writing it back inside its own calls (the first fsync or
  // fdatasync of a file system with ordered data, the writeback competing with the replay's I/O).
  // So the state is made durable here, before the replay's clock starts.
  const int64_t t0 = monotonic_ns();
  UniqueFd root(openat(sandbox.root_fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));  // (root_fd is O_PATH)
  if (root.get() < 0 || syncfs(root.get()) != 0) rep.problems.push_back(sandbox.root() + ": syncfs: " + std::strerror(errno));
  rep.sync_ns = monotonic_ns() - t0;
  return rep;
}

}  // namespace rastro::replay
