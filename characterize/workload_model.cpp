#include "characterize/workload_model.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_write.h"
#include "common/error.h"

namespace rastro::characterize {
namespace {

// A share per named kind (an operation category, a namespace kind) as {name: share}.
template <class Kind, size_t N, class NameOf>
nlohmann::json shares_json(const std::array<double, N>& shares, NameOf name_of) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < N; ++i) j[std::string(name_of(static_cast<Kind>(i)))] = shares[i];
  return j;
}

// Absent names are 0; a share outside [0, 1], or shares summing to more than 1, are refused.
template <class Kind, size_t N, class NameOf>
std::array<double, N> shares_from_json(const nlohmann::json& j, const std::string& where, const char* key,
                                       NameOf name_of) {
  std::array<double, N> shares{};
  if (!j.is_object()) throw Error(fmt::format("{}: \"{}\" must be an object", where, key));
  double total = 0;
  for (size_t i = 0; i < N; ++i) {
    std::string name(name_of(static_cast<Kind>(i)));
    shares[i] = j.value(name, 0.0);
    if (!(shares[i] >= 0.0 && shares[i] <= 1.0)) throw Error(fmt::format("{}: {}.{} is outside [0, 1]", where, key, name));
    total += shares[i];
  }
  if (total > 1.0 + 1e-6) throw Error(fmt::format("{}: the {} fractions sum to {} (> 1)", where, key, total));
  return shares;
}

nlohmann::json mix_json(const OpMix& mix) { return shares_json<OpCategory>(mix, op_category_name); }
OpMix mix_from_json(const nlohmann::json& j, const std::string& where) {
  return shares_from_json<OpCategory, kOpCategories>(j, where, "mix", op_category_name);
}
nlohmann::json namespace_mix_json(const NamespaceMix& mix) { return shares_json<NamespaceOp>(mix, namespace_op_name); }
NamespaceMix namespace_mix_from_json(const nlohmann::json& j, const std::string& where) {
  return shares_from_json<NamespaceOp, kNamespaceOps>(j, where, "namespace_mix", namespace_op_name);
}

nlohmann::json class_json(const ClassModel& c) {
  return {{"name", c.name},
          {"threads", c.threads},
          {"share", c.share},
          {"call_share", c.call_share},
          {"mix", mix_json(c.mix)},
          {"read_size", to_json(c.read_size)},
          {"write_size", to_json(c.write_size)},
          {"read_request", to_json(c.read_request)},
          {"write_request", to_json(c.write_request)},
          {"failed_open_fraction", c.failed_open_fraction},
          {"eof_session_fraction", c.eof_session_fraction},
          {"zero_read_fraction", c.zero_read_fraction},
          {"partial_transfers_per_open", c.partial_transfers_per_open},
          {"partial_read_fraction", c.partial_read_fraction},
          {"partial_session_length", to_json(c.partial_session_length)},
          {"partial_sequential_fraction", c.partial_sequential_fraction},
          {"think_ns", to_json(c.think_ns)},
          {"duration_ns", to_json(c.duration_ns)},
          {"interarrival_ns", to_json(c.interarrival_ns)},
          {"calls_per_thread", to_json(c.calls_per_thread)},
          {"start_ns", to_json(c.start_ns)},
          {"file_size", to_json(c.file_size)},
          {"incarnation_size", to_json(c.incarnation_size)},
          {"base_size", to_json(c.base_size)},
          {"piece_read_size", to_json(c.piece_read_size)},
          {"reuse_distance", to_json(c.reuse_distance)},
          {"sequential_fraction", c.sequential_fraction},
          {"reuse_fraction", c.reuse_fraction},
          {"reopen_probability", c.reopen_probability},
          {"new_file_curve", c.new_file_curve},
          {"distinct_files", to_json(c.distinct_files)},
          {"transfers_per_open", c.transfers_per_open},
          {"whole_read_fraction", c.whole_read_fraction},
          {"eof_jump_fraction", c.eof_jump_fraction},
          {"eof_session_reads", to_json(c.eof_session_reads)},
          {"create_fraction", c.create_fraction},
          {"recreate_same_size_fraction", c.recreate_same_size_fraction},
          {"append_fraction", c.append_fraction},
          {"create_session_writes", to_json(c.create_session_writes)},
          {"append_session_writes", to_json(c.append_session_writes)},
          {"create_write_request", to_json(c.create_write_request)},
          {"append_write_request", to_json(c.append_write_request)},
          {"plain_write_request", to_json(c.plain_write_request)},
          {"namespace_per_open", c.namespace_per_open},
          {"namespace_mix", namespace_mix_json(c.namespace_mix)},
          {"namespace_failed_fraction", c.namespace_failed_fraction},
          {"syncs_per_write", c.syncs_per_write},
          {"read_bytes_per_thread", c.read_bytes_per_thread},
          {"write_bytes_per_thread", c.write_bytes_per_thread},
          {"files", c.files},
          {"files_per_thread", c.files_per_thread},
          {"shared_file_fraction", c.shared_file_fraction},
          {"popularity", c.popularity},
          {"whole_read_share", c.whole_read_share},
          {"whole_read_size", c.whole_read_size},
          {"centroid", c.centroid}};
}

ClassModel class_from_json(const nlohmann::json& j, const std::string& where) {
  ClassModel c;
  auto dist = [&](const char* key) {
    return distribution_from_json(j.at(key), fmt::format("{}.{}", where, key));
  };
  c.name = j.at("name").get<std::string>();
  c.threads = j.at("threads").get<uint64_t>();
  c.share = j.at("share").get<double>();
  c.call_share = j.value("call_share", 0.0);
  c.mix = mix_from_json(j.at("mix"), where);
  c.read_size = dist("read_size");
  c.write_size = dist("write_size");
  c.read_request = dist("read_request");
  c.write_request = dist("write_request");
  c.eof_session_fraction = j.at("eof_session_fraction").get<double>();
  c.partial_transfers_per_open = j.at("partial_transfers_per_open").get<double>();
  c.zero_read_fraction = j.at("zero_read_fraction").get<double>();
  c.failed_open_fraction = j.at("failed_open_fraction").get<double>();
  c.partial_session_length = dist("partial_session_length");
  c.partial_read_fraction = j.at("partial_read_fraction").get<double>();
  c.partial_sequential_fraction = j.at("partial_sequential_fraction").get<double>();
  for (double f : {c.failed_open_fraction, c.eof_session_fraction, c.zero_read_fraction, c.partial_read_fraction, c.partial_sequential_fraction})
    if (!(f >= 0.0 && f <= 1.0))
      throw Error(fmt::format("{}: failed_open_fraction, eof_session_fraction, partial_read_fraction and partial_sequential_fraction and zero_read_fraction must be in [0, 1]", where));
  if (!(c.partial_transfers_per_open >= 0.0)) throw Error(fmt::format("{}: partial_transfers_per_open must be >= 0", where));
  c.think_ns = dist("think_ns");
  c.duration_ns = dist("duration_ns");
  c.interarrival_ns = dist("interarrival_ns");
  c.calls_per_thread = dist("calls_per_thread");
  c.start_ns = dist("start_ns");
  c.file_size = dist("file_size");
  c.reuse_distance = dist("reuse_distance");
  c.sequential_fraction = j.at("sequential_fraction").get<double>();
  c.reuse_fraction = j.value("reuse_fraction", 0.0);
  c.reopen_probability = j.at("reopen_probability").get<double>();
  if (!(c.reopen_probability >= 0.0 && c.reopen_probability <= 1.0))
    throw Error(fmt::format("{}: reopen_probability is outside [0, 1]", where));
  c.transfers_per_open = j.at("transfers_per_open").get<double>();
  c.syncs_per_write = j.at("syncs_per_write").get<double>();
  // Session kinds and name-space changes: absent in models made before them (nothing created,
  // appended or renamed; plain writes are then all the writes).
  auto optional_dist = [&](const char* key, const EmpiricalDistribution& otherwise) {
    return j.contains(key) ? dist(key) : otherwise;
  };
  c.whole_read_fraction = j.value("whole_read_fraction", 0.0);
  c.eof_jump_fraction = j.value("eof_jump_fraction", 0.0);  // absent in models made before it
  c.create_fraction = j.value("create_fraction", 0.0);
  c.recreate_same_size_fraction = j.value("recreate_same_size_fraction", 0.0);
  c.append_fraction = j.value("append_fraction", 0.0);
  c.namespace_per_open = j.value("namespace_per_open", 0.0);
  c.namespace_failed_fraction = j.value("namespace_failed_fraction", 0.0);
  for (double f : {c.whole_read_fraction, c.eof_jump_fraction, c.create_fraction, c.append_fraction,
                   c.recreate_same_size_fraction, c.namespace_failed_fraction})
    if (!(f >= 0.0 && f <= 1.0))
      throw Error(fmt::format("{}: whole_read_fraction, eof_jump_fraction, create_fraction, append_fraction, "
                              "recreate_same_size_fraction and namespace_failed_fraction must be in [0, 1]", where));
  if (!(c.create_fraction + c.append_fraction <= 1.0 + 1e-9))
    throw Error(fmt::format("{}: create_fraction + append_fraction is above 1", where));
  if (!(c.namespace_per_open >= 0.0)) throw Error(fmt::format("{}: namespace_per_open must be >= 0", where));
  c.eof_session_reads = optional_dist("eof_session_reads", {});
  c.distinct_files = optional_dist("distinct_files", {});
  c.new_file_curve = j.value("new_file_curve", std::vector<double>{});
  if (!c.new_file_curve.empty() && c.new_file_curve.size() != kNewFileCurveBins)
    throw Error(fmt::format("{}: new_file_curve must have {} values", where, kNewFileCurveBins));
  for (double p : c.new_file_curve)
    if (!(p >= 0.0 && p <= 1.0)) throw Error(fmt::format("{}: a new_file_curve value is outside [0, 1]", where));
  c.incarnation_size = optional_dist("incarnation_size", c.file_size);
  c.base_size = optional_dist("base_size", c.incarnation_size);
  c.piece_read_size = optional_dist("piece_read_size", c.read_size);  // absent before version 2  // models made before it: appends not told apart
  c.create_session_writes = optional_dist("create_session_writes", {});
  c.append_session_writes = optional_dist("append_session_writes", {});
  c.create_write_request = optional_dist("create_write_request", c.write_request);
  c.append_write_request = optional_dist("append_write_request", c.write_request);
  c.plain_write_request = optional_dist("plain_write_request", c.write_request);
  if (j.contains("namespace_mix")) c.namespace_mix = namespace_mix_from_json(j.at("namespace_mix"), where);
  c.read_bytes_per_thread = j.value("read_bytes_per_thread", 0.0);
  c.write_bytes_per_thread = j.value("write_bytes_per_thread", 0.0);
  c.files = j.at("files").get<uint64_t>();
  c.files_per_thread = j.at("files_per_thread").get<double>();
  if (!(c.files_per_thread >= 0.0)) throw Error(fmt::format("{}: files_per_thread must be >= 0", where));
  c.shared_file_fraction = j.value("shared_file_fraction", 0.0);  // absent in models made before it
  if (!(c.shared_file_fraction >= 0.0 && c.shared_file_fraction <= 1.0))
    throw Error(fmt::format("{}: shared_file_fraction is outside [0, 1]", where));
  c.popularity = j.at("popularity").get<std::vector<double>>();
  c.whole_read_share = j.value("whole_read_share", std::vector<double>{});  // absent before version 2
  c.whole_read_size = j.value("whole_read_size", std::vector<uint64_t>{});
  if (c.whole_read_share.size() != c.whole_read_size.size() ||
      (!c.whole_read_share.empty() && c.whole_read_share.size() != c.popularity.size()))
    throw Error(fmt::format("{}: whole_read_share and whole_read_size must have one entry per popularity rank", where));
  for (size_t r = 0; r < c.whole_read_share.size(); ++r)
    if (!(c.whole_read_share[r] >= 0.0 && c.whole_read_share[r] <= c.popularity[r] + 1e-9))
      throw Error(fmt::format("{}: whole_read_share[{}] is outside [0, popularity[{}]]", where, r, r));
  c.centroid = j.value("centroid", std::vector<double>{});
  if (!(c.share >= 0.0 && c.share <= 1.0)) throw Error(fmt::format("{}: share is outside [0, 1]", where));
  if (!(c.sequential_fraction >= 0.0 && c.sequential_fraction <= 1.0))
    throw Error(fmt::format("{}: sequential_fraction is outside [0, 1]", where));
  if (c.transfers_per_open < 0 || c.syncs_per_write < 0 || c.read_bytes_per_thread < 0 || c.write_bytes_per_thread < 0)
    throw Error(fmt::format("{}: transfers_per_open, syncs_per_write and the bytes per thread must be >= 0", where));
  for (double p : c.popularity)
    if (!(p >= 0.0)) throw Error(fmt::format("{}: a popularity share is negative", where));
  return c;
}

}  // namespace

nlohmann::json to_json(const WorkloadModel& m) {
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassModel& c : m.classes) classes.push_back(class_json(c));
  return {{"rastro_workload_model", m.version},
          {"source", m.source},
          {"threads", m.threads},
          {"calls", m.calls},
          {"files", m.files},
          {"duration_s", m.duration_s},
          {"mix", mix_json(m.mix)},
          {"metadata_share", m.metadata_share},
          {"read_write_ratio", m.read_write_ratio},
          {"mean_concurrency", m.mean_concurrency},
          {"clustering",
           {{"method", m.clustering.method},
            {"k", m.clustering.k},
            {"automatic", m.clustering.automatic},
            {"score_name", m.clustering.score_name},
            {"score", m.clustering.score},
            {"features", m.clustering.feature_names}}},
          {"classes", classes}};
}

WorkloadModel model_from_json(const nlohmann::json& j, const std::string& path) {
  WorkloadModel m;
  try {
    if (!j.is_object() || !j.contains("rastro_workload_model"))
      throw Error(fmt::format("{}: not a rastro workload model (no \"rastro_workload_model\" key)", path));
    m.version = j.at("rastro_workload_model").get<int>();
    if (m.version < kOldestModelVersion || m.version > kModelVersion)
      throw Error(fmt::format("{}: model version {} is not supported (this rastro reads {} to {})", path, m.version,
                              kOldestModelVersion, kModelVersion));
    m.version = kModelVersion;  // what it is once loaded (an older one lacks only later keys)
    m.source = j.value("source", "");
    m.threads = j.at("threads").get<uint64_t>();
    m.calls = j.at("calls").get<uint64_t>();
    m.files = j.at("files").get<uint64_t>();
    m.duration_s = j.at("duration_s").get<double>();
    m.mix = mix_from_json(j.at("mix"), path);
    m.metadata_share = j.at("metadata_share").get<double>();
    m.read_write_ratio = j.at("read_write_ratio").get<double>();
    m.mean_concurrency = j.at("mean_concurrency").get<double>();
    const auto& c = j.at("clustering");
    m.clustering.method = c.at("method").get<std::string>();
    m.clustering.k = c.at("k").get<uint64_t>();
    m.clustering.automatic = c.value("automatic", true);
    m.clustering.score_name = c.value("score_name", "");
    m.clustering.score = c.value("score", 0.0);
    m.clustering.feature_names = c.value("features", std::vector<std::string>{});
    const auto& classes = j.at("classes");
    if (!classes.is_array() || classes.empty()) throw Error(fmt::format("{}: \"classes\" must be a non-empty array", path));
    for (size_t i = 0; i < classes.size(); ++i)
      m.classes.push_back(class_from_json(classes[i], fmt::format("{}: classes[{}]", path, i)));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  return m;
}

WorkloadModel read_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) throw Error(fmt::format("{}: not valid JSON", path));
  return model_from_json(j, path);
}

void write_model(const std::string& path, const WorkloadModel& m) { write_text_atomically(path, to_json(m).dump(2) + "\n"); }

}  // namespace rastro::characterize
