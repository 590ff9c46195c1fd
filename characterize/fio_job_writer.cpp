#include "characterize/fio_job_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "characterize/largest_remainder.h"
#include "common/atomic_write.h"
#include "common/error.h"

namespace rastro::characterize {

std::string fio_bssplit(const EmpiricalDistribution& sizes) {
  std::map<uint64_t, double> weight;
  if (!sizes.atoms.empty()) {
    for (size_t i = 0; i < sizes.atoms.size(); ++i)
      weight[std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(sizes.atoms[i])))] += sizes.weights[i];
  } else {
    for (int d = 0; d < 10; ++d) {  // decile midpoints, 10 % each
      double q = (d + 0.5) / 10.0 * static_cast<double>(sizes.quantiles.size() - 1);
      size_t i = std::min(static_cast<size_t>(q), sizes.quantiles.size() - 2);
      double v = sizes.quantiles[i] + (q - static_cast<double>(i)) * (sizes.quantiles[i + 1] - sizes.quantiles[i]);
      weight[std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(v)))] += 0.1;
    }
  }
  std::vector<uint64_t> bs;
  std::vector<double> p;
  for (const auto& [b, w] : weight) {
    bs.push_back(b);
    p.push_back(w);
  }
  std::vector<uint64_t> pct = largest_remainder(p, 100);
  std::string out;
  for (size_t i = 0; i < bs.size(); ++i) {
    if (pct[i] == 0) continue;
    if (!out.empty()) out += ':';
    out += fmt::format("{}/{}", bs[i], pct[i]);
  }
  return out;
}

std::string fio_job_text(const WorkloadModel& m, const SynthOptions& o) {
  std::string job = fmt::format(
      "; fio job written by `rastro synth --fio` from the workload model of {}.\n"
      "; Per class: a read and a write job moving the class's mean bytes per thread. Run it in an\n"
      "; empty directory: fio lays out the read jobs' files first (not counted in io_bytes).\n"
      "[global]\nioengine=psync\nthread\ncreate_serialize=0\n",
      m.source.empty() ? "an unnamed trace" : m.source);
  uint64_t total = o.threads.value_or(m.threads);
  for (const ClassModel& c : m.classes) {
    uint64_t threads = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(c.share * static_cast<double>(total))));
    double files_per_thread = c.threads ? static_cast<double>(c.files) / static_cast<double>(c.threads) : 1.0;
    uint64_t files = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(files_per_thread)));
    uint64_t think_us = static_cast<uint64_t>(std::llround(c.think_ns.mean / 1000.0));
    bool sequential = c.sequential_fraction >= 0.5;
    auto section = [&](const char* kind, bool writes, const EmpiricalDistribution& sizes, double bytes,
                       const char* seq_rw, const char* rand_rw) {
      uint64_t io = static_cast<uint64_t>(std::llround(bytes));
      if (io == 0 || sizes.empty()) return;
      // fio moves `size` bytes through the job's files once each, its last request in each file
      // cut at the file's end — exactly, but for each file's size rounded down to a multiple of
      // the smallest block: so at most as many files as keep that loss within 0.5 % of the bytes.
      const std::string bssplit = fio_bssplit(sizes);
      const uint64_t smallest = std::max<uint64_t>(1, std::stoull(bssplit.substr(0, bssplit.find('/'))));  // ascending
      const uint64_t nrfiles = std::clamp<uint64_t>(io / 200 / smallest, 1, files);
      std::string s = fmt::format("\n[{}-{}]\nnumjobs={}\nrw={}\nbssplit={}\nsize={}\nnrfiles={}\n", c.name, kind,
                                  threads, sequential ? seq_rw : rand_rw, bssplit, io, nrfiles);
      if (think_us > 0) s += fmt::format("thinktime={}\n", think_us);
      if (writes && c.syncs_per_write > 0)
        s += fmt::format("fsync={}\n", std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(1.0 / c.syncs_per_write))));
      if (o.duration_s) s += fmt::format("runtime={}\ntime_based\n", *o.duration_s);
      job += s;
    };
    section("read", false, c.read_size, c.read_bytes_per_thread, "read", "randread");
    section("write", true, c.write_size, c.write_bytes_per_thread, "write", "randwrite");
  }
  return job;
}

void write_fio_job(const std::string& path, const WorkloadModel& m, const SynthOptions& o) {
  write_text_atomically(path, fio_job_text(m, o));
}

}  // namespace rastro::characterize
