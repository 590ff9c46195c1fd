#include "common/env_inventory.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace rastro {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string trimmed(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Value of the first "key : value" line of a /proc file.
std::string proc_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trimmed(line.substr(0, colon)) != key) continue;
    return trimmed(line.substr(colon + 1));
  }
  return "";
}

bool in_path(const std::string& tool) {
  const char* p = std::getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    if (::access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  // Tools like bpftool live in /usr/sbin, which a non-root PATH may lack.
  for (const char* d : {"/usr/sbin", "/sbin"})
    if (::access((std::string(d) + "/" + tool).c_str(), X_OK) == 0) return true;
  return false;
}

std::string command_first_line(const std::string& cmd) {
  std::string full = "PATH=\"$PATH:/usr/sbin:/sbin\" " + cmd + " 2>&1 </dev/null";
  FILE* f = ::popen(full.c_str(), "r");
  if (!f) return "";
  char buf[512];
  std::string line;
  if (std::fgets(buf, sizeof buf, f)) line = buf;
  // Drain so the tool does not die of SIGPIPE mid-write (harmless, but noisy).
  while (std::fgets(buf, sizeof buf, f)) {
  }
  ::pclose(f);
  return trimmed(line);
}

// Unescapes mountinfo's octal escapes (\040 for a space).
std::string unescape_mount(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out.push_back(static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Whether the ext3/ext4 file system on device `dev` keeps a journal: jbd2 lists each journal it
// runs in /proc/fs/jbd2 as "<kernel device name>-<journal inode>" (loop0-8, dm-0-8). Unset when
// that directory cannot be read. It matters to timing: without a journal, ext4 will not reuse an
// inode freed in the last 60 s (360 s unwritten) and every create reads past each such inode
// (fs/ext4/ialloc.c, recently_deleted; docs/replay.md "Files deleted before a run").
std::optional<bool> has_journal(dev_t dev) {
  std::error_code ec;
  const std::string sys = "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  const std::string name = std::filesystem::read_symlink(sys, ec).filename().string();
  if (ec || name.empty()) return std::nullopt;
  std::filesystem::directory_iterator it("/proc/fs/jbd2", ec);
  if (ec) return std::nullopt;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '-') return true;
  }
  return false;
}

nlohmann::json target_fs(const std::string& target_path) {
  nlohmann::json t;
  t["path"] = target_path;
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(target_path, ec), ec);
  // The longest existing prefix decides the file system (the target may not exist yet).
  while (!p.empty() && !std::filesystem::exists(p, ec) && p != p.root_path()) p = p.parent_path();
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) {
    t["fs_type"] = "unknown";
    return t;
  }
  // Pick the mountinfo line of this device with the longest mount point that prefixes the path.
  std::ifstream in("/proc/self/mountinfo");
  std::string line, best_point, best_type, best_source, best_opts;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string id, parent, devno, root, point, opts;
    ls >> id >> parent >> devno >> root >> point >> opts;
    unsigned maj = 0, min = 0;
    if (std::sscanf(devno.c_str(), "%u:%u", &maj, &min) != 2) continue;
    if (makedev(maj, min) != st.st_dev) continue;
    point = unescape_mount(point);
    std::string ps = p.string();
    bool prefix = ps.compare(0, point.size(), point) == 0 &&
                  (ps.size() == point.size() || point == "/" || ps[point.size()] == '/');
    if (!prefix || point.size() < best_point.size()) continue;
    std::string field, type, source, super;
    while (ls >> field && field != "-") {
    }
    ls >> type >> source >> super;
    best_point = point;
    best_type = type;
    best_source = source;
    best_opts = opts + (super.empty() ? "" : "," + super);
  }
  t["fs_type"] = best_type.empty() ? "unknown" : best_type;
  if (best_type == "ext4" || best_type == "ext3") {
    if (const std::optional<bool> j = has_journal(st.st_dev)) t["journal"] = *j;
  }
  if (!best_point.empty()) {
    t["mount_point"] = best_point;
    t["device"] = best_source;
    t["mount_options"] = best_opts;
  }
  return t;
}

}  // namespace

nlohmann::json collect_environment(const std::string& target_path) {
  nlohmann::json env;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) env["hostname"] = host;
  struct utsname u;
  if (::uname(&u) == 0) env["kernel"] = {{"release", u.release}, {"version", u.version}, {"machine", u.machine}};
  {
    std::ifstream in("/etc/os-release");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("PRETTY_NAME=", 0) == 0) {
        std::string v = line.substr(12);
        if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
        env["os"] = v;
      }
  }
  nlohmann::json cpu;
  std::string model = proc_field("/proc/cpuinfo", "model name");
  cpu["model"] = model.empty() ? "unknown" : model;
  cpu["cores_online"] = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpu["cores_configured"] = ::sysconf(_SC_NPROCESSORS_CONF);
  std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  cpu["governor"] = governor.empty() ? "unavailable (no cpufreq)" : governor;
  std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  if (!mhz.empty()) cpu["mhz"] = std::strtod(mhz.c_str(), nullptr);
  env["cpu"] = cpu;
  std::string mem = proc_field("/proc/meminfo", "MemTotal");  // "16314464 kB"
  if (!mem.empty()) env["memory_bytes"] = std::strtoull(mem.c_str(), nullptr, 10) * 1024ull;
  std::string cs = read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  if (!cs.empty()) env["clocksource"] = cs;
  env["target"] = target_fs(target_path.empty() ? "." : target_path);

  struct Tool {
    const char* name;
    const char* version_cmd;
  };
  const Tool tools[] = {{"strace", "strace -V"},       {"bpftool", "bpftool version"},
                        {"clang", "clang --version"},  {"stap", "stap -V"},
                        {"perf", "perf version"},      {"bpftrace", "bpftrace --version"}};
  nlohmann::json tj = nlohmann::json::object();
  for (const auto& t : tools)
    if (in_path(t.name)) tj[t.name] = command_first_line(t.version_cmd);
  env["tools"] = tj;
  return env;
}

}  // namespace rastro
