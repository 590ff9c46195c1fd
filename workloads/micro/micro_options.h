// Settings of the micro benchmark (SPEC §5, thesis §5.1.4): N threads, one file each, doing
// RR (pread64 at random block-aligned offsets), RW (pwrite64 likewise), SR (sequential read) or
// SW (sequential write) of --block bytes, --ops requests per thread, optional pause in between.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rastro::workloads {

enum class MicroType { kRandomRead, kRandomWrite, kSequentialRead, kSequentialWrite };

struct MicroOptions {
  MicroType type = MicroType::kSequentialRead;
  int threads = 1;             // the load level (thesis: 1-4; SPEC: 1-8)
  uint64_t ops = 5000;         // requests per thread (thesis: 5000 capture / 2000 replay)
  uint64_t block = 4096;       // bytes per request
  uint64_t file_size = 64ull << 20;  // per-thread file (thesis: 10 GB, >= 4x RAM)
  int64_t pause_ns = 0;        // pause between the end of a request and the next (thesis: 0, 10, 50 us)
  uint64_t seed = 1;
  std::string dir = ".";
};

Result<MicroType> parse_micro_type(std::string_view text);  // rr, rw, sr, sw (any case)
std::string_view micro_type_name(MicroType t);              // "rr", ...
bool is_random(MicroType t);
bool is_write(MicroType t);

// Throws rastro::Error naming the option when a setting cannot work (before any work is done).
void validate(const MicroOptions& o);

// The file of thread `thread` (0-based) under the absolute directory `dir`.
std::string micro_file_path(const std::string& dir, int thread);

// Offset derivation (documented in docs/workloads.md): thread i uses
//   std::mt19937_64 rng(seed + 0x9E3779B97F4A7C15 * (i + 1))
// and request k reads/writes block (rng() % (file_size / block)) for RR/RW, block k for SR/SW.
// The modulo keeps the sequence identical across standard libraries (uniform_int_distribution's
// algorithm is implementation-defined); its bias is below nblocks / 2^64.
uint64_t micro_thread_seed(uint64_t seed, int thread);
std::vector<uint64_t> micro_offsets(const MicroOptions& o, int thread);

// header.settings of the reference trace.
nlohmann::json micro_settings(const MicroOptions& o, const std::string& abs_dir);

}  // namespace rastro::workloads
