#include "campaign/deferred_deletion.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "common/env_inventory.h"

namespace fs = std::filesystem;

namespace rastro::campaign {

namespace {

uint64_t bytes_under(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(p, ec))) return fs::is_regular_file(fs::symlink_status(p, ec)) ? fs::file_size(p, ec) : 0;
  uint64_t n = 0;
  for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) n += it->file_size(ec);
  return n;
}

}  // namespace

DeferredDeletion::DeferredDeletion(std::string trash_dir, Options options) : trash_(std::move(trash_dir)), o_(std::move(options)) {
  if (!o_.sleep) o_.sleep = [](Clock::duration d) { std::this_thread::sleep_for(d); };
  if (!o_.now) o_.now = [] { return Clock::now(); };
  std::error_code ec;
  fs::create_directories(trash_, ec);
  // An interrupted campaign's trash: emptied now, and the first run waits for its inodes too.
  if (!fs::is_empty(trash_, ec) && !ec) empty();
}

DeferredDeletion::~DeferredDeletion() {
  std::error_code ec;
  fs::remove_all(trash_, ec);
}

void DeferredDeletion::discard(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  const uint64_t bytes = bytes_under(path);
  const fs::path to = fs::path(trash_) / std::to_string(next_++);
  fs::rename(path, to, ec);
  if (ec) {
    fs::remove_all(path, ec);
    return;
  }
  held_ += bytes;
  if (held_ > o_.budget_bytes) empty();
}

void DeferredDeletion::empty() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(trash_, ec)) fs::remove_all(e.path(), ec);
  ::sync();  // the freed inodes written: their 60 s count from now (360 s while unwritten)
  held_ = 0;
  ++emptyings_;
  emptied_at_ = o_.now();
}

void DeferredDeletion::before_run() {
  if (emptyings_ == 0 || !o_.settle_needed) return;
  const Clock::time_point ready = emptied_at_ + o_.settle;
  if (const Clock::time_point t = o_.now(); t < ready) o_.sleep(ready - t);
}

DeferredDeletion::Options deferred_deletion_options(const std::string& work_dir) {
  DeferredDeletion::Options o;
  // At most a quarter of the free space, so a campaign near a full disk still runs.
  std::error_code ec;
  const fs::space_info space = fs::space(work_dir, ec);
  if (!ec) o.budget_bytes = std::min<uint64_t>(o.budget_bytes, space.available / 4);
  const nlohmann::json env = collect_environment(work_dir);
  const nlohmann::json& target = env.contains("target") ? env["target"] : nlohmann::json::object();
  const std::string type = target.value("fs_type", "");
  o.settle_needed = (type == "ext4" || type == "ext3") && !target.value("journal", true);
  return o;
}

}  // namespace rastro::campaign
