#include "characterize/workload_characterizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace rastro::characterize {
namespace {

double log10p(double x) { return std::log10(1.0 + std::max(0.0, x)); }

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

void append(std::vector<double>& to, const std::vector<double>& from) { to.insert(to.end(), from.begin(), from.end()); }

}  // namespace

const std::vector<std::string>& thread_feature_names() {
  static const std::vector<std::string> names = {
      "read_fraction",   "write_fraction", "open_close_fraction", "meta_fraction", "sync_fraction",
      "log10_read_size", "log10_write_size", "log10_think_ns",    "sequential_fraction",
      "reuse_fraction",  "log10_calls"};
  return names;
}

std::vector<double> thread_feature_vector(const ThreadFeatures& t) {
  OpMix f = normalised(t.counts);
  return {f[category_index(OpCategory::kRead)],
          f[category_index(OpCategory::kWrite)],
          f[category_index(OpCategory::kOpen)] + f[category_index(OpCategory::kClose)],
          f[category_index(OpCategory::kMeta)] + f[category_index(OpCategory::kNamespace)],
          f[category_index(OpCategory::kSync)],
          log10p(mean(t.read_sizes)),
          log10p(mean(t.write_sizes)),
          log10p(median(t.think_ns)),
          t.transfers ? static_cast<double>(t.sequential) / static_cast<double>(t.transfers) : 0.0,
          t.references ? static_cast<double>(t.rereferences) / static_cast<double>(t.references) : 0.0,
          log10p(static_cast<double>(t.calls))};
}

ClassModel build_class_model(const WorkloadFeatures& w, const std::vector<size_t>& members) {
  ClassModel c;
  c.threads = members.size();
  OpMix counts{};
  std::vector<double> read_sizes, write_sizes, think, duration, interarrival, calls, start, reuse;
  std::vector<double> read_requests, write_requests, partial_lengths;
  std::vector<double> eof_read_counts, create_writes, append_writes, create_requests, append_requests, plain_requests;
  uint64_t recreations = 0, same_size_recreations = 0;
  uint64_t whole_reads = 0, create_sessions = 0, append_sessions = 0, kind_transfers = 0, kind_sequential = 0;
  NamespaceMix namespace_counts{};
  uint64_t namespace_failed = 0;
  std::vector<double> curve_opens(kNewFileCurveBins), curve_new(kNewFileCurveBins), distinct;
  uint64_t transfers = 0, sequential = 0, references = 0, rereferences = 0, first_references = 0;
  uint64_t sessions = 0, eof_sessions = 0, zero_read_sessions = 0, eof_reads = 0, eof_transfers = 0, eof_sequential = 0;
  uint64_t eof_later = 0;
  std::map<uint32_t, uint64_t> file_refs;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> whole_read_of;  // file -> (whole reads, size)
  for (size_t i : members) {
    const ThreadFeatures& t = w.threads[i];
    for (size_t k = 0; k < kOpCategories; ++k) counts[k] += t.counts[k];
    append(read_sizes, t.read_sizes);
    append(write_sizes, t.write_sizes);
    append(read_requests, t.read_requests);
    append(partial_lengths, t.partial_session_transfers);
    append(write_requests, t.write_requests);
    sessions += t.sessions;
    append(eof_read_counts, t.eof_session_read_counts);
    append(create_writes, t.create_session_writes);
    append(append_writes, t.append_session_writes);
    append(create_requests, t.create_write_requests);
    append(append_requests, t.append_write_requests);
    append(plain_requests, t.plain_write_requests);
    whole_reads += t.whole_read_sessions;
    for (const auto& [file, size] : t.whole_reads) {
      auto& [n, largest] = whole_read_of[file];
      ++n;
      largest = std::max(largest, size);
    }
    create_sessions += t.create_sessions;
    recreations += t.recreations;
    same_size_recreations += t.same_size_recreations;
    append_sessions += t.append_sessions;
    kind_transfers += t.kind_session_transfers;
    kind_sequential += t.kind_session_sequential;
    for (size_t k = 0; k < kNamespaceOps; ++k) namespace_counts[k] += t.namespace_counts[k];
    namespace_failed += t.namespace_failed;
    const size_t files = t.file_references.size();
    distinct.push_back(static_cast<double>(files));
    for (const auto& [before, is_new] : t.open_novelty) {
      size_t bin = std::min(kNewFileCurveBins - 1, files ? before * kNewFileCurveBins / files : 0);
      curve_opens[bin] += 1;
      curve_new[bin] += is_new;
    }
    eof_sessions += t.eof_sessions;
    zero_read_sessions += t.zero_read_sessions;
    eof_reads += t.eof_session_reads;
    eof_transfers += t.eof_session_transfers;
    eof_sequential += t.eof_session_sequential;
    eof_later += t.eof_session_later_transfers;
    append(think, t.think_ns);
    append(duration, t.duration_ns);
    append(interarrival, t.interarrival_ns);
    append(reuse, t.reuse_distances);
    calls.push_back(static_cast<double>(t.calls));
    start.push_back(static_cast<double>(t.first_ns));
    transfers += t.transfers;
    c.read_bytes_per_thread += static_cast<double>(t.read_bytes) / static_cast<double>(members.size());
    c.write_bytes_per_thread += static_cast<double>(t.write_bytes) / static_cast<double>(members.size());
    sequential += t.sequential;
    references += t.references;
    first_references += t.references > 0;
    rereferences += t.rereferences;
    for (const auto& [file, n] : t.file_references) file_refs[file] += n;
    c.files_per_thread += static_cast<double>(t.file_references.size()) / static_cast<double>(members.size());
  }
  c.mix = normalised(counts);
  c.read_size = summarize(read_sizes);
  {  // the reads without the whole reads: each whole read moved its file's size
    std::multiset<double> pieces(read_sizes.begin(), read_sizes.end());
    for (size_t i : members)
      for (const auto& [file, size] : w.threads[i].whole_reads)
        if (auto it = pieces.find(static_cast<double>(size)); it != pieces.end()) pieces.erase(it);
    c.piece_read_size = pieces.empty() ? c.read_size : summarize(std::vector<double>(pieces.begin(), pieces.end()));
  }
  c.write_size = summarize(write_sizes);
  c.read_request = summarize(read_requests);
  c.partial_session_length = summarize(partial_lengths);
  c.write_request = summarize(write_requests);
  c.think_ns = summarize(think);
  c.duration_ns = summarize(duration);
  c.interarrival_ns = summarize(interarrival);
  c.calls_per_thread = summarize(calls);
  c.start_ns = summarize(start);
  c.reuse_distance = summarize(reuse);
  c.sequential_fraction = transfers ? static_cast<double>(sequential) / static_cast<double>(transfers) : 0.0;
  c.reopen_probability = references > first_references ? static_cast<double>(rereferences) /
                                                             static_cast<double>(references - first_references)
                                                       : 0.0;
  c.reuse_fraction = references ? static_cast<double>(rereferences) / static_cast<double>(references) : 0.0;
  // Read/write calls per open, failed and end-of-file ones included: the mix counts them too.
  double opens = counts[category_index(OpCategory::kOpen)];
  c.transfers_per_open = (counts[category_index(OpCategory::kRead)] + counts[category_index(OpCategory::kWrite)]) / std::max(1.0, opens);
  c.eof_session_fraction = sessions ? static_cast<double>(eof_sessions) / static_cast<double>(sessions) : 0.0;
  c.whole_read_fraction = eof_sessions ? static_cast<double>(whole_reads) / static_cast<double>(eof_sessions) : 0.0;
  // Of the sessions not read whole (those with more than the one read): a whole read is the only
  // read of its session, and the synthesizer draws the 0-byte read for the others.
  c.zero_read_fraction = eof_sessions > whole_reads ? std::min(1.0, static_cast<double>(zero_read_sessions) /
                                                                        static_cast<double>(eof_sessions - whole_reads))
                                                    : 0.0;
  // Create and append sessions write (their writes drawn apart); every other read and write call
  // is a plain session's (transfers on descriptors never opened, as a pipe, included).
  c.recreate_same_size_fraction =
      recreations ? static_cast<double>(same_size_recreations) / static_cast<double>(recreations) : 0.0;
  c.create_fraction = sessions ? static_cast<double>(create_sessions) / static_cast<double>(sessions) : 0.0;
  c.append_fraction = sessions ? static_cast<double>(append_sessions) / static_cast<double>(sessions) : 0.0;
  c.eof_session_reads = summarize(eof_read_counts);
  // A session's first transfer (at 0, after the open) is sequential: the jumps are among the rest.
  c.eof_jump_fraction =
      eof_later ? std::min(1.0, static_cast<double>(eof_transfers - eof_sequential) / static_cast<double>(eof_later)) : 0.0;
  c.distinct_files = summarize(distinct);
  // A bin no open fell in takes the one before (the first: every open is new).
  for (size_t b = 0; b < kNewFileCurveBins; ++b)
    c.new_file_curve.push_back(curve_opens[b] > 0 ? curve_new[b] / curve_opens[b] : b ? c.new_file_curve[b - 1] : 1.0);
  c.create_session_writes = summarize(create_writes);
  c.append_session_writes = summarize(append_writes);
  c.create_write_request = summarize(create_requests);
  c.append_write_request = summarize(append_requests);
  c.plain_write_request = summarize(plain_requests);
  double kind_writes = 0;
  for (double n : create_writes) kind_writes += n;
  for (double n : append_writes) kind_writes += n;
  double partial_reads = std::max(0.0, counts[category_index(OpCategory::kRead)] - static_cast<double>(eof_reads));
  double partial_calls = partial_reads + std::max(0.0, counts[category_index(OpCategory::kWrite)] - kind_writes);
  c.failed_open_fraction = opens > 0 ? std::max(0.0, opens - static_cast<double>(sessions)) / opens : 0.0;
  uint64_t partial_sessions = sessions - eof_sessions - create_sessions - append_sessions;
  c.partial_transfers_per_open = partial_calls / std::max<double>(1.0, static_cast<double>(partial_sessions));
  c.partial_read_fraction = partial_calls > 0 ? partial_reads / partial_calls : 0.0;
  uint64_t partial_transfers = transfers - eof_transfers - kind_transfers;
  c.partial_sequential_fraction = partial_transfers ? static_cast<double>(sequential - eof_sequential - kind_sequential) /
                                                          static_cast<double>(partial_transfers)
                                                    : c.sequential_fraction;
  double namespace_calls = counts[category_index(OpCategory::kNamespace)];
  c.namespace_per_open = namespace_calls / std::max(1.0, opens);
  double namespace_total = 0;
  for (double n : namespace_counts) namespace_total += n;
  for (size_t k = 0; k < kNamespaceOps; ++k) c.namespace_mix[k] = namespace_total > 0 ? namespace_counts[k] / namespace_total : 0.0;
  c.namespace_failed_fraction = namespace_total > 0 ? static_cast<double>(namespace_failed) / namespace_total : 0.0;
  double writes = counts[category_index(OpCategory::kWrite)];
  c.syncs_per_write = writes > 0 ? counts[category_index(OpCategory::kSync)] / writes : 0.0;
  c.files = file_refs.size();
  std::vector<double> sizes, incarnation_sizes, base_sizes;
  std::vector<std::pair<double, uint32_t>> refs;  // (opens, file)
  double total_refs = 0;
  uint64_t shared = 0;
  for (const auto& [file, n] : file_refs) {
    shared += w.files[file].threads > 1;
    sizes.push_back(static_cast<double>(w.files[file].extent));
    for (uint64_t e : w.files[file].incarnation_extents) incarnation_sizes.push_back(static_cast<double>(e));
    for (uint64_t b : w.files[file].incarnation_bases) base_sizes.push_back(static_cast<double>(b));
    refs.emplace_back(static_cast<double>(n), file);
    total_refs += static_cast<double>(n);
  }
  c.shared_file_fraction = c.files ? static_cast<double>(shared) / static_cast<double>(c.files) : 0.0;
  c.file_size = summarize(sizes);
  c.incarnation_size = summarize(incarnation_sizes);
  c.base_size = summarize(base_sizes);
  // Most opened first (equally opened ones in file order), each rank with its file's whole reads
  // when nothing wrote it in the trace (a file written there is sized by its writes).
  std::stable_sort(refs.begin(), refs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [r, file] : refs) {
    c.popularity.push_back(total_refs > 0 ? r / total_refs : 0.0);
    auto it = whole_read_of.find(file);
    const bool read_only = w.files[file].writes == 0;
    const double whole = it != whole_read_of.end() && read_only ? std::min(r, static_cast<double>(it->second.first)) : 0.0;
    c.whole_read_share.push_back(total_refs > 0 ? whole / total_refs : 0.0);
    c.whole_read_size.push_back(whole > 0 ? it->second.second : 0);
  }
  return c;
}

Characterization characterize(const trace::Trace& trace, const std::string& source, const CharacterizeOptions& options) {
  Characterization out;
  out.features = measure_features(trace);
  const WorkloadFeatures& w = out.features;
  WorkloadModel& m = out.model;
  m.source = source;
  m.threads = w.threads.size();
  m.files = w.files.size();
  m.duration_s = static_cast<double>(w.span_ns) / 1e9;
  for (double c : w.counts) m.calls += static_cast<uint64_t>(c);
  m.mix = normalised(w.counts);
  m.metadata_share = m.mix[category_index(OpCategory::kMeta)] + m.mix[category_index(OpCategory::kNamespace)] +
                     m.mix[category_index(OpCategory::kOpen)] + m.mix[category_index(OpCategory::kClose)];
  uint64_t rb = 0, wb = 0;
  for (const ThreadFeatures& t : w.threads) {
    rb += t.read_bytes;
    wb += t.write_bytes;
  }
  m.read_write_ratio = wb ? static_cast<double>(rb) / static_cast<double>(wb) : 0.0;
  m.mean_concurrency = w.mean_concurrency;

  std::vector<std::vector<double>> rows;
  for (const ThreadFeatures& t : w.threads) rows.push_back(thread_feature_vector(t));
  Clustering cl = cluster_rows(rows, options.method, options.k, options.max_k);
  m.clustering = {options.method == ClusterMethod::kKmeans ? "kmeans" : "gmm", cl.k, options.k == 0,
                  cl.score_name, cl.score, thread_feature_names()};
  out.thread_class = cl.labels;
  for (size_t k = 0; k < cl.k; ++k) {
    std::vector<size_t> members;
    for (size_t i = 0; i < cl.labels.size(); ++i)
      if (cl.labels[i] == k) members.push_back(i);
    ClassModel c = build_class_model(w, members);
    c.name = "c" + std::to_string(k);
    c.share = m.threads ? static_cast<double>(c.threads) / static_cast<double>(m.threads) : 0.0;
    double class_calls = 0;
    for (size_t i : members) class_calls += static_cast<double>(w.threads[i].calls);
    c.call_share = m.calls ? class_calls / static_cast<double>(m.calls) : 0.0;
    c.centroid = cl.centroids[k];
    m.classes.push_back(std::move(c));
  }

  // File classes (report only): size, accesses and the written share of their bytes.
  std::vector<std::vector<double>> file_rows;
  for (const FileFeatures& f : w.files) {
    double bytes = static_cast<double>(f.read_bytes + f.write_bytes);
    file_rows.push_back({log10p(static_cast<double>(f.extent)),
                         log10p(static_cast<double>(f.opens + f.reads + f.writes)),
                         bytes > 0 ? static_cast<double>(f.write_bytes) / bytes : 0.0});
  }
  if (!file_rows.empty()) {
    Clustering fc = cluster_rows(file_rows, ClusterMethod::kKmeans, 0, options.max_k);
    for (size_t k = 0; k < fc.k; ++k) {
      FileClass c;
      std::vector<double> sizes, accesses;
      double rbytes = 0, wbytes = 0;
      for (size_t i = 0; i < fc.labels.size(); ++i) {
        if (fc.labels[i] != k) continue;
        const FileFeatures& f = w.files[i];
        ++c.files;
        sizes.push_back(static_cast<double>(f.extent));
        accesses.push_back(static_cast<double>(f.opens + f.reads + f.writes));
        rbytes += static_cast<double>(f.read_bytes);
        wbytes += static_cast<double>(f.write_bytes);
      }
      c.share = static_cast<double>(c.files) / static_cast<double>(w.files.size());
      c.size = summarize(sizes);
      c.accesses = summarize(accesses);
      c.write_byte_fraction = rbytes + wbytes > 0 ? wbytes / (rbytes + wbytes) : 0.0;
      out.file_classes.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace rastro::characterize
