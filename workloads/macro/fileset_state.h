// Run-time state of the fileserver file set, shared by the worker threads: which entries exist,
// which are in use, their current sizes, which directories exist. Like Filebench's fileset
// locking, a picked entry is busy until released, so no two threads use one file at a time.
// The mutex is taken between timed calls only, never around one.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "workloads/macro/fileset_plan.h"

namespace rastro::workloads {

class FilesetState {
 public:
  explicit FilesetState(const FilesetPlan& plan);

  struct Pick {
    uint32_t file = 0;
    uint64_t size = 0;       // current size of the file
    bool make_dir = false;   // createfile: the caller must mkdir the parent first
  };
  // A random absent entry (for createfile), or nothing if none is free.
  std::optional<Pick> pick_absent(std::mt19937_64& rng);
  // A random existing entry (openfile, deletefile, statfile), or nothing if none is free.
  std::optional<Pick> pick_existing(std::mt19937_64& rng);
  // Ends the use of `file`: it now exists (with `size`) or not. `dir_made` reports the outcome
  // of the mkdir a make_dir pick asked for.
  void release(uint32_t file, bool exists, uint64_t size, bool dir_made = true);

 private:
  enum class Dir : uint8_t { kAbsent, kCreating, kExists };
  void add(std::vector<uint32_t>& set, uint32_t file);
  void remove(std::vector<uint32_t>& set, uint32_t file);

  std::mutex mu_;
  const FilesetPlan& plan_;
  std::vector<uint64_t> size_;
  std::vector<uint32_t> pos_;        // index of the file in whichever free set holds it
  std::vector<uint32_t> existing_;   // free entries that exist
  std::vector<uint32_t> absent_;     // free entries that do not exist
  std::vector<Dir> dirs_;
};

}  // namespace rastro::workloads
