#include "replay/runtime/fs_init.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "common/clock.h"
#include "replay/runtime/call_executor.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {
namespace {

// mkdir -p of an absolute traced path inside the root; the directories it made go to `made`.
int make_dirs(const SandboxResolver& sb, const std::string& abs, std::vector<std::string>* made) {
  for (size_t slash = abs.find('/', 1);; slash = abs.find('/', slash + 1)) {
    std::string part = slash == std::string::npos ? abs : abs.substr(0, slash);
    SandboxResolver::Parent p;
    int r = sb.open_parent(part, &p);
    if (r < 0) return r;
    if (!p.name.empty()) {
      if (mkdirat(p.dir.get(), p.name.c_str(), 0755) == 0) made->push_back(part);
      else if (errno != EEXIST) return -errno;
    }
    if (slash == std::string::npos) return 0;
  }
}

// The access time init gives what it made: one second ahead of now, so that it is later than the
// object's modification and change times. The traced program found its inputs already read since
// they were last written (the corpus runs each program once before capturing it); with relatime,
// the first read of a file whose atime is not later than its mtime or ctime updates the atime —
// an inode write inside the call: a 832-byte read of a fresh file took 2.3 µs here, the next one
// 1.2 µs. Without this, every first read (mmap, getdents, readlink) of every file init wrote paid
// for it, and the replay's cached reads ran ~1.3–1.6 × their traced time.
timespec read_since_written() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 1;
  return t;
}

void mark_read(const SandboxResolver& sb, const std::string& abs, std::vector<std::string>* problems) {
  SandboxResolver::Parent p;
  if (sb.open_parent(abs, &p) < 0 || p.name.empty()) return;
  const timespec times[2] = {read_since_written(), {0, UTIME_OMIT}};
  if (utimensat(p.dir.get(), p.name.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
    problems->push_back(abs + ": utimensat: " + std::strerror(errno));
}

}  // namespace

InitReport create_initial_state(const SandboxResolver& sandbox, const InitPlan& plan) {
  InitReport rep;
  std::vector<char> chunk(1 << 20);
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = write_pattern_byte(i);
  auto problem = [&](const InitEntry& e, int err) {
    rep.problems.push_back(e.path + ": " + std::strerror(err));
  };
  std::vector<std::string> made;  // what init made, to be marked read once all of it exists
  for (const InitEntry& e : plan.entries) {
    if (SandboxResolver::check(e.path) != PathVerdict::kOk) {
      ++rep.refused;
      continue;
    }
    std::string parent = e.path.substr(0, e.path.rfind('/'));
    if (!parent.empty()) {
      int r = make_dirs(sandbox, parent, &made);
      if (r < 0) {
        problem(e, -r);
        continue;
      }
    }
    switch (e.kind) {
      case InitEntry::Kind::kDir: {
        int r = make_dirs(sandbox, e.path, &made);
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
        } else if (symlinkat(e.target.c_str(), p.dir.get(), p.name.c_str()) == 0) {
          ++rep.symlinks;
          made.push_back(e.path);
        } else if (errno == EEXIST) {
          ++rep.symlinks;  // (one already there is left as it is)
        } else {
          problem(e, errno);
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
        if (failed) break;
        ++rep.files;
        made.push_back(e.path);
        break;
      }
    }
  }
  // After every entry: a directory's mtime and ctime change with each entry made in it, a file's
  // with each write.
  for (const std::string& abs : made) mark_read(sandbox, abs, &rep.problems);
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
