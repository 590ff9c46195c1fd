#include "capture/common/same_fs_check.h"

#include <sys/stat.h>

#include <filesystem>

#include <fmt/format.h>

namespace rastro::capture {

namespace {

bool device_of(const std::string& path, dev_t* dev) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  *dev = st.st_dev;
  return true;
}

}  // namespace

std::string same_fs_warning(const std::string& trace_path, const std::vector<std::string>& traced_paths) {
  // The output file may not exist yet: its directory decides the file system.
  std::filesystem::path out = std::filesystem::absolute(trace_path);
  dev_t out_dev;
  if (!device_of(out.string(), &out_dev) && !device_of(out.parent_path().string(), &out_dev)) return "";
  std::vector<std::string> candidates{std::filesystem::current_path().string()};
  candidates.insert(candidates.end(), traced_paths.begin(), traced_paths.end());
  for (const auto& p : candidates) {
    if (p.empty() || std::filesystem::absolute(p) == out) continue;
    dev_t d;
    if (device_of(p, &d) && d == out_dev)
      return fmt::format(
          "warning: the trace {} is on the same file system as the traced path {}; its writes "
          "disturb the measurement (write it to another file system, e.g. -o /dev/shm/t.rastro)",
          trace_path, p);
  }
  return "";
}

}  // namespace rastro::capture
