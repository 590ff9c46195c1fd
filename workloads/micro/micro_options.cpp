#include "workloads/micro/micro_options.h"

#include <algorithm>
#include <cctype>
#include <random>

#include <fmt/format.h>

namespace rastro::workloads {

Result<MicroType> parse_micro_type(std::string_view text) {
  std::string t;
  for (char c : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (t == "rr") return MicroType::kRandomRead;
  if (t == "rw") return MicroType::kRandomWrite;
  if (t == "sr") return MicroType::kSequentialRead;
  if (t == "sw") return MicroType::kSequentialWrite;
  return fail(fmt::format("--type '{}': expected rr, rw, sr or sw", text));
}

std::string_view micro_type_name(MicroType t) {
  switch (t) {
    case MicroType::kRandomRead: return "rr";
    case MicroType::kRandomWrite: return "rw";
    case MicroType::kSequentialRead: return "sr";
    case MicroType::kSequentialWrite: return "sw";
  }
  return "?";
}

bool is_random(MicroType t) { return t == MicroType::kRandomRead || t == MicroType::kRandomWrite; }
bool is_write(MicroType t) { return t == MicroType::kRandomWrite || t == MicroType::kSequentialWrite; }

void validate(const MicroOptions& o) {
  if (o.threads < 1) throw Error(fmt::format("--threads {}: needs at least 1 thread", o.threads));
  if (o.threads > 4096) throw Error(fmt::format("--threads {}: at most 4096", o.threads));
  if (o.ops < 1) throw Error("--ops 0: needs at least 1 request per thread");
  if (o.block < 1) throw Error("--block 0: the block size must be at least 1 byte");
  if (o.block > (1ull << 30)) throw Error(fmt::format("--block {}: at most 1G", o.block));
  if (o.file_size < o.block) {
    throw Error(fmt::format("--file-size {} is smaller than --block {}", o.file_size, o.block));
  }
  if (o.pause_ns < 0) throw Error("--pause-us: the pause cannot be negative");
  if (!is_random(o.type)) {
    // Sequential requests must stay inside the file: a read past EOF would return 0, not a block.
    if (o.ops > o.file_size / o.block) {
      throw Error(fmt::format(
          "--ops {} x --block {} exceeds --file-size {} for sequential {}: raise --file-size to at least {}",
          o.ops, o.block, o.file_size, micro_type_name(o.type), o.ops * o.block));
    }
  }
  if (o.dir.empty()) throw Error("--dir: empty directory name");
}

std::string micro_file_path(const std::string& dir, int thread) {
  return fmt::format("{}/rastro-micro-{}.dat", dir, thread);
}

uint64_t micro_thread_seed(uint64_t seed, int thread) {
  return seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(thread) + 1);
}

std::vector<uint64_t> micro_offsets(const MicroOptions& o, int thread) {
  std::vector<uint64_t> out(o.ops);
  if (is_random(o.type)) {
    std::mt19937_64 rng(micro_thread_seed(o.seed, thread));
    const uint64_t nblocks = o.file_size / o.block;
    for (auto& off : out) off = (rng() % nblocks) * o.block;
  } else {
    for (uint64_t k = 0; k < o.ops; ++k) out[k] = k * o.block;
  }
  return out;
}

nlohmann::json micro_settings(const MicroOptions& o, const std::string& abs_dir) {
  nlohmann::json s;
  s["workload"] = "micro";
  s["type"] = std::string(micro_type_name(o.type));
  s["threads"] = o.threads;
  s["ops"] = o.ops;
  s["block"] = o.block;
  s["file_size"] = o.file_size;
  s["pause_ns"] = o.pause_ns;
  s["seed"] = o.seed;
  s["dir"] = abs_dir;
  s["offsets"] = is_random(o.type)
                     ? "block (rng() % (file_size/block)), rng = mt19937_64(seed + 0x9E3779B97F4A7C15*(thread+1))"
                     : "block k for request k";
  // What a replayer's --init must recreate: every file with its size before the run, under the
  // key replay/runtime/fs_init reads (without it a replayed file was only as long as the
  // furthest request: 4 096 000 instead of 4 194 304 bytes in the demo).
  s["initial_files"] = nlohmann::json::array();
  for (int i = 0; i < o.threads; ++i) {
    s["initial_files"].push_back({{"path", micro_file_path(abs_dir, i)}, {"size", o.file_size}});
  }
  return s;
}

}  // namespace rastro::workloads
