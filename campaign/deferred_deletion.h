// Deleting a campaign's run directories without timing the next runs' creates against it.
//
// This VM's ext4 keeps no journal, and such an ext4 will not reuse an inode freed less than 60 s
// ago: every create reads past each such inode of its block group (fs/ext4/ialloc.c,
// recently_deleted; docs/replay.md "Files deleted before a run"). A campaign that deleted a run's
// directory (a fileserver's thousands of files, a replay's root) right before the next run timed
// that run's creates at 100-150 µs instead of 8-14 µs, by an amount that grew with what had been
// deleted in the last minute. So a run directory is moved into a trash directory beside the runs,
// which is emptied only when it holds more than a budget — and then the next run waits until the
// freed inodes are 61 s old — or when the campaign ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace rastro::campaign {

class DeferredDeletion {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    uint64_t budget_bytes = uint64_t{1} << 30;  // emptied when the trash holds more
    // Whether freed inodes slow creates on this file system (ext3/ext4 without a journal), and for
    // how long after an emptying the next run waits.
    bool settle_needed = true;
    std::chrono::seconds settle{61};
    std::function<void(Clock::duration)> sleep;  // std::this_thread::sleep_for unless set (tests)
    std::function<Clock::time_point()> now;      // Clock::now unless set (tests)
  };

  // `trash_dir` is made if missing (what it holds is emptied at once: an interrupted campaign's);
  // it must be on the file system of what is discarded (rename).
  DeferredDeletion(std::string trash_dir, Options options);
  ~DeferredDeletion();  // empties the trash: the measuring is over
  DeferredDeletion(const DeferredDeletion&) = delete;
  DeferredDeletion& operator=(const DeferredDeletion&) = delete;

  // Moves `path` (a file or directory; nothing if missing) into the trash; empties the trash when
  // it then holds more than the budget. Falls back to deleting `path` at once when it cannot be
  // moved (another file system).
  void discard(const std::string& path);
  // Before a run: waits until the inodes of the last emptying are settle seconds old.
  void before_run();

  uint64_t held_bytes() const { return held_; }
  int emptyings() const { return emptyings_; }

 private:
  void empty();

  std::string trash_;
  Options o_;
  uint64_t held_ = 0;
  uint64_t next_ = 0;  // names inside the trash
  int emptyings_ = 0;
  Clock::time_point emptied_at_{};
};

// Options for a campaign's work directory: settle_needed only where the file system there is ext3
// or ext4 without a journal (common/env_inventory.h).
DeferredDeletion::Options deferred_deletion_options(const std::string& work_dir);

}  // namespace rastro::campaign
