// fio as an independent second reference (issue 13): the same kind of requests as a capture
// cell's micro-benchmark (type, threads, request size, file size, requests per thread, psync
// engine: pread/pwrite like RR/RW/SR/SW), timed by a tool nobody here wrote. Its completion
// latency (`clat`: the time of each synchronous call) is compared with rastro's reference method
// uninstrumented, and under each instrument with rastro's perturbation (catalogue cross-check).
#pragma once

#include <string>
#include <vector>

#include "campaign/campaign_config.h"
#include "common/error.h"

namespace rastro::campaign {

// fio's name for a micro-benchmark type: rr → randread, rw → randwrite, sr → read, sw → write.
std::string fio_rw(const std::string& type);

// The fio command line of one cell, writing its JSON report to `json_out`. With `layout_only`
// it only lays the files out (so caches can be dropped between layout and the timed run).
std::vector<std::string> fio_command(const CampaignConfig& config, const std::string& type, int threads,
                                     const std::string& dir, const std::string& json_out, bool layout_only);

struct FioLatency {
  double clat_mean_ns = 0;  // mean over all requests of all jobs (group_reporting)
  uint64_t requests = 0;
};

// Reads the `read` or `write` side of fio's JSON report; fails naming the file and the problem.
Result<FioLatency> read_fio_latency(const std::string& json_text, const std::string& type, const std::string& origin);

}  // namespace rastro::campaign
