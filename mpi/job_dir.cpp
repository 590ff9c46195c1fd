#include "mpi/job_dir.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/io/trace_io.h"

namespace rastro::mpi {

std::vector<std::string> rank_trace_paths(const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) throw Error(fmt::format("{} is not a directory", dir), 2);
  std::vector<std::pair<int, std::string>> found;
  const std::regex name(R"(rank-([0-9]+)\.rastro)");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string f = entry.path().filename().string();
    if (std::regex_match(f, m, name)) found.emplace_back(std::stoi(m[1]), entry.path().string());
  }
  if (found.empty()) throw Error(fmt::format("no rank-R.rastro traces in {}", dir), 2);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [r, p] : found) out.push_back(p);
  return out;
}

trace::Trace merge_job_dir(const std::string& dir, MergeReport* report, std::vector<std::string>* warnings) {
  const auto paths = rank_trace_paths(dir);
  std::vector<trace::Trace> ranks;
  for (const auto& p : paths) {
    trace::ReadReport rr;
    ranks.push_back(trace::read_trace(p, &rr));
    if (!rr.intact && warnings) warnings->push_back(fmt::format("{} is cut short ({}); merging its intact prefix", p, rr.problem));
  }
  return merge_ranks(std::move(ranks), paths, report);
}

trace::Trace read_job(const std::string& dir_or_trace, std::vector<std::string>* warnings) {
  if (std::filesystem::is_directory(dir_or_trace)) return merge_job_dir(dir_or_trace, nullptr, warnings);
  trace::ReadReport rr;
  trace::Trace t = trace::read_trace(dir_or_trace, &rr);
  if (!rr.intact && warnings)
    warnings->push_back(fmt::format("{}: using the intact prefix ({})", dir_or_trace, rr.problem));
  if (!t.header.extra.is_object() || !t.header.extra.contains("mpi_job"))
    throw Error(fmt::format("{} is not a merged MPI job (give the capture directory, or what rastro merge wrote)",
                            dir_or_trace), 2);
  return t;
}

}  // namespace rastro::mpi
