// Settings of the macro benchmark: a Filebench "fileserver" personality (thesis §6.1.4,
// Filebench workloads/fileserver.f), with the thesis's parameters as defaults: 4 threads,
// 1000 files whose sizes are gamma distributed (mean 131072 B, shape 1.5), appends of mean 16 KiB,
// whole-file reads and writes in 1 MiB I/Os, 30 s runs.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rastro::workloads {

struct FileserverOptions {
  int threads = 4;
  uint64_t files = 1000;
  double mean_size = 131072;    // mean file size, bytes
  double gamma = 1.5;           // shape of the gamma size distribution (Filebench "gamma")
  double append_mean = 16384;   // mean append size, bytes (gamma with the same shape)
  uint64_t iosize = 1u << 20;   // largest single read/write of a whole-file read/write or append
  int dirwidth = 20;            // files per leaf directory (Filebench meandirwidth)
  int prealloc_percent = 80;    // share of files created by the prepare step (Filebench prealloc)
  int64_t duration_ns = 30'000'000'000;
  uint64_t seed = 1;
  std::string dir = ".";
  uint64_t max_events = 20'000'000;  // memory guard: the run stops (flagged partial) beyond this
};

// Throws rastro::Error naming the option when a setting cannot work.
void validate(const FileserverOptions& o);

// header.settings of the reference trace (without the file list, added by the bench).
nlohmann::json fileserver_settings(const FileserverOptions& o, const std::string& abs_dir);

}  // namespace rastro::workloads
