#include "replay/session/root_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "replay/runtime/unique_fd.h"

namespace rastro::replay {

namespace {

std::string canonical(const std::string& path) {
  char buf[PATH_MAX];
  if (!realpath(path.c_str(), buf)) return {};
  return buf;
}

std::string parent_of(const std::string& dir) {
  auto slash = dir.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_mount_path(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.find_first_not_of("01234567") == std::string::npos) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// The entries of `dir` other than the marker (stops after the first, which is all we print).
std::vector<std::string> foreign_entries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) throw Error(fmt::format("--root '{}': {}", dir, std::strerror(errno)));
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n == "." || n == ".." || n == kRootMarker) continue;
    names.push_back(n);
    if (names.size() == 3) break;
  }
  closedir(d);
  return names;
}

bool has_marker(const std::string& dir) {
  struct stat st;
  const std::string m = (dir == "/" ? "" : dir) + "/" + kRootMarker;
  return lstat(m.c_str(), &st) == 0 && S_ISREG(st.st_mode);  // a symlink could point anywhere
}

void write_marker(const std::string& dir) {
  const std::string m = dir + "/" + kRootMarker;
  UniqueFd fd(open(m.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd.valid()) {
    if (errno == EEXIST && has_marker(dir)) return;
    throw Error(fmt::format("--root '{}': cannot write the rastro root marker {}: {}", dir, m, std::strerror(errno)));
  }
  static constexpr char kText[] =
      "This directory is a rastro replay root: replays create, overwrite and delete files below it.\n"
      "rastro replays into a non-empty directory only when this marker is in it or in a parent.\n";
  if (write(fd.get(), kText, sizeof kText - 1) != static_cast<ssize_t>(sizeof kText - 1))
    throw Error(fmt::format("--root '{}': cannot write the rastro root marker {}: {}", dir, m, std::strerror(errno)));
}

std::vector<std::string> home_directories() {
  std::vector<std::string> homes;
  auto add = [&](const char* p) {
    if (!p || !*p) return;
    std::string c = canonical(p);
    if (!c.empty()) homes.push_back(c);
  };
  add(std::getenv("HOME"));
  if (const passwd* pw = getpwuid(getuid())) add(pw->pw_dir);
  if (const passwd* pw = getpwuid(geteuid())) add(pw->pw_dir);
  if (const char* sudo_user = std::getenv("SUDO_USER")) {
    if (const passwd* pw = getpwnam(sudo_user)) add(pw->pw_dir);
  }
  return homes;
}

}  // namespace

std::vector<std::string> mount_points() {
  std::vector<std::string> points;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root mount-point ...
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (fields >> id >> parent >> dev >> root >> point) points.push_back(unescape_mount_path(point));
  }
  return points;
}

RootHazards root_hazards(const std::string& dir) {
  RootHazards h;
  h.is_filesystem_root = dir == "/";
  for (const auto& p : mount_points()) h.is_mount_point |= p == dir;
  struct stat st, parent;
  // A bind mount of the same device is in mountinfo; a different device shows here even
  // when /proc is not mounted.
  if (!h.is_filesystem_root && stat(dir.c_str(), &st) == 0 && stat(parent_of(dir).c_str(), &parent) == 0)
    h.is_mount_point |= st.st_dev != parent.st_dev;
  for (const auto& home : home_directories()) h.is_home |= home == dir;
  for (std::string d = dir;; d = parent_of(d)) {
    if (has_marker(d)) {
      h.marker_dir = d;
      break;
    }
    if (d == "/") break;
  }
  return h;
}

bool root_is_empty(const std::string& root) {
  struct stat st;
  if (stat(root.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISDIR(st.st_mode) && foreign_entries(root).empty();
}

std::string guard_replay_root(const std::string& root, const RootPolicy& policy) {
  if (root.empty()) throw Error("--root: an empty path is not a sandbox root");
  struct stat st;
  if (stat(root.c_str(), &st) != 0) {
    if (errno != ENOENT || mkdir(root.c_str(), 0755) != 0)
      throw Error(fmt::format("--root '{}': cannot create it: {}", root, std::strerror(errno)));
    const std::string dir = canonical(root);
    write_marker(dir);
    return dir;
  }
  if (!S_ISDIR(st.st_mode)) throw Error(fmt::format("--root '{}': not a directory", root));
  const std::string dir = canonical(root);
  if (dir.empty()) throw Error(fmt::format("--root '{}': {}", root, std::strerror(errno)));
  if (dir == "/")
    throw Error(fmt::format("--root '{}' is the file-system root: a replay there could overwrite or delete any "
                            "file; use a new directory",
                            root));
  const auto entries = foreign_entries(dir);
  if (entries.empty()) {
    write_marker(dir);
    return dir;
  }
  const std::string example = fmt::format("'{}'{}", entries.front(), entries.size() > 1 ? " and more" : "");
  if (!policy.force)
    throw Error(fmt::format(
        "--root '{}' is not empty (it holds {}): a replay there could overwrite or delete those files. Use a new "
        "or empty directory, or --force to replay into this rastro root as it is (--init keeps every file "
        "already there)",
        root, example));
  if (policy.allow_unsafe_root) return dir;
  const RootHazards h = root_hazards(dir);
  std::string why;
  if (h.is_mount_point) why = "is a mount point";
  else if (h.is_home) why = "is a home directory";
  else if (h.marker_dir.empty())
    why = fmt::format("was not made by rastro (no {} marker in it or a parent)", kRootMarker);
  if (!why.empty())
    throw Error(fmt::format("--root '{}' {} and holds {}: refusing to replay there even with --force, since the "
                            "replay could overwrite or delete those files. Use a new directory, or add "
                            "--allow-unsafe-root if you accept that",
                            root, why, example));
  return dir;
}

}  // namespace rastro::replay
