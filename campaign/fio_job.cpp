#include "campaign/fio_job.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rastro::campaign {

std::string fio_rw(const std::string& type) {
  if (type == "rr") return "randread";
  if (type == "rw") return "randwrite";
  if (type == "sr") return "read";
  if (type == "sw") return "write";
  throw Error("fio: unknown micro-benchmark type '" + type + "'");
}

std::vector<std::string> fio_command(const CampaignConfig& c, const std::string& type, int threads,
                                     const std::string& dir, const std::string& json_out, bool layout_only) {
  std::vector<std::string> argv = {
      "fio", "--name=rastro", "--directory=" + dir, "--rw=" + fio_rw(type), fmt::format("--bs={}", c.block),
      fmt::format("--size={}", c.file_size),  // one file per job, like the benchmark's per-thread file
      fmt::format("--io_size={}", c.ops * c.block), fmt::format("--numjobs={}", threads), "--ioengine=psync",
      "--thread", "--group_reporting", fmt::format("--randseed={}", c.seed), "--output-format=json",
      "--output=" + json_out};
  if (layout_only) argv.push_back("--create_only=1");
  return argv;
}

Result<FioLatency> read_fio_latency(const std::string& text, const std::string& type, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return fail(fmt::format("{}: not fio JSON output: {}", origin, e.what()));
  }
  const char* side = type == "rr" || type == "sr" ? "read" : "write";
  if (!j.contains("jobs") || !j["jobs"].is_array() || j["jobs"].empty())
    return fail(fmt::format("{}: no jobs in fio output", origin));
  const auto& job = j["jobs"][0];
  if (!job.contains(side) || !job[side].contains("clat_ns") || !job[side]["clat_ns"].contains("mean") ||
      !job[side]["clat_ns"]["mean"].is_number() || !job[side].contains("total_ios") ||
      !job[side]["total_ios"].is_number_integer() || job[side]["total_ios"].get<int64_t>() < 0)
    return fail(fmt::format("{}: fio output lacks jobs[0].{}.clat_ns.mean or total_ios", origin, side));
  FioLatency l{job[side]["clat_ns"]["mean"].get<double>(), static_cast<uint64_t>(job[side]["total_ios"].get<int64_t>())};
  if (l.requests == 0) return fail(fmt::format("{}: fio completed no {} requests", origin, side));
  return l;
}

}  // namespace rastro::campaign
