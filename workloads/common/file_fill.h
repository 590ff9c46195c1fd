// Untimed preparation of workload files: make a file exactly `size` bytes long, filled with a
// pseudo-random pattern (so compressing or deduplicating file systems cannot shortcut the I/O).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "workloads/common/stop_signal.h"

namespace rastro::workloads {

// Fills `buf` with bytes from mt19937_64(seed).
void fill_pattern(void* buf, size_t n, uint64_t seed);

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using IoBuffer = std::unique_ptr<void, FreeDeleter>;

// A request buffer of `n` bytes rounded up to whole 4 KiB pages, page aligned (O_DIRECT needs
// it), filled by fill_pattern(seed). Throws rastro::Error if memory runs out.
IoBuffer patterned_io_buffer(size_t n, uint64_t seed);

enum class FillOutcome { kReused, kWritten, kStopped };

// An existing file of exactly `size` bytes is reused as is (the thesis's 10 GB files are
// expensive to rewrite); otherwise it is extended (or truncated) to `size` and synced.
// Throws rastro::Error naming the file on an I/O error; returns kStopped if `stop` was raised.
FillOutcome prepare_file(const std::string& path, uint64_t size, const StopSignal& stop);

// Bytes prepare_file would still have to write for `path` (for the free-space check).
uint64_t bytes_to_fill(const std::string& path, uint64_t size);

}  // namespace rastro::workloads
