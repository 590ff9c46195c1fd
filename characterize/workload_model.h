// The workload model `rastro characterize` writes and `rastro synth` reads: workload-wide
// figures plus classes of threads (found by clustering), each with its share and the parameters
// a synthesizer needs. Stored as JSON (docs/characterize.md lists every key).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "characterize/empirical_distribution.h"
#include "characterize/workload_features.h"

namespace rastro::characterize {

// Version 2 added whole_read_share, whole_read_size and piece_read_size; version-1 models load without them.
inline constexpr int kModelVersion = 2;
inline constexpr int kOldestModelVersion = 1;
inline constexpr size_t kNewFileCurveBins = 10;

// What one class of threads does. Distributions pool every thread of the class.
struct ClassModel {
  std::string name;            // "c0", "c1", ...
  uint64_t threads = 0;
  double share = 0.0;          // fraction of the workload's threads
  double call_share = 0.0;     // fraction of the workload's calls
  OpMix mix{};                 // fractions of the class's calls
  EmpiricalDistribution read_size, write_size;   // bytes moved per successful transfer
  EmpiricalDistribution read_request, write_request;  // bytes those calls asked for
  EmpiricalDistribution think_ns, duration_ns, interarrival_ns;
  EmpiricalDistribution calls_per_thread, start_ns;
  EmpiricalDistribution file_size;               // extents of the files the class touches
  EmpiricalDistribution incarnation_size;        // extents of each incarnation of those files
  // What incarnations held before their first append (where the trace shows it): the size a
  // synthetic file starts from, which its appends then grow, as the traced ones grew.
  EmpiricalDistribution base_size;
  EmpiricalDistribution reuse_distance;
  double sequential_fraction = 0.0;  // transfers starting where the thread's last one ended
  double reuse_fraction = 0.0;       // opens of a file the thread opened before / opens
  double reopen_probability = 0.0;   // the same, among opens that are not a thread's first
  // The working set's growth: the share of opens that open a new file, by how far the thread is
  // through its files (kNewFileCurveBins bins of distinct files opened so far / the thread's
  // distinct files), and the distinct files each thread opens.
  std::vector<double> new_file_curve;
  EmpiricalDistribution distinct_files;
  double transfers_per_open = 0.0;   // read + write calls per open
  // Sessions (open -> close) that read the file to its end, and what the other sessions do:
  // their read + write calls per open, the reads' share and the sequential transfers' share.
  double failed_open_fraction = 0.0;  // opens that failed (a program probing for files)
  double eof_session_fraction = 0.0;
  // Of those sessions not read whole (below), the share ending in a 0-byte read.
  double zero_read_fraction = 0.0;
  double partial_transfers_per_open = 0.0, partial_read_fraction = 0.0, partial_sequential_fraction = 0.0;
  // Reads + writes per such session, as seen inside sessions (transfers on descriptors the trace
  // never opened, as a pipe, count in partial_transfers_per_open only: lengths are scaled to it).
  EmpiricalDistribution partial_session_length;
  // Of the end-of-file sessions, those reading the file with one read asking for all of it, and
  // the read calls each of the others made (a reader stops there even when its file is larger).
  double whole_read_fraction = 0.0;
  EmpiricalDistribution eof_session_reads;
  // Of those sessions' reads after the first, the share not at the end of the one before: a
  // reader going back or on (a loader reads a library's header at 0, then its program headers at
  // 64). Their first read, at 0 after the open, is sequential by definition.
  double eof_jump_fraction = 0.0;
  // Sessions that create (or truncate) their file and sessions that append to it: their shares of
  // the sessions, the writes each makes and the sizes those ask for. The other sessions' writes
  // draw from plain_write_request.
  double create_fraction = 0.0, append_fraction = 0.0;
  // Of the creations of a file made before, those writing as many bytes as the one before.
  double recreate_same_size_fraction = 0.0;
  EmpiricalDistribution create_session_writes, append_session_writes;
  EmpiricalDistribution create_write_request, append_write_request, plain_write_request;
  // Name-space changes: calls per open call (failed opens included), their kinds' shares and the
  // share that failed.
  double namespace_per_open = 0.0;
  NamespaceMix namespace_mix{};
  double namespace_failed_fraction = 0.0;
  double syncs_per_write = 0.0;
  double read_bytes_per_thread = 0.0, write_bytes_per_thread = 0.0;  // means over the class
  uint64_t files = 0;                // distinct files the class opens
  double files_per_thread = 0.0;     // distinct files a thread of the class opens (mean)
  double shared_file_fraction = 0.0; // of those files, the share more than one thread touched
  // Its threads shared their files (most of them): synth, fio and Filebench give the class one
  // pool of files rather than files per thread.
  bool shares_files() const { return shared_file_fraction > 0.5; }
  // The end-of-file share among plain sessions (eof_session_fraction is of all sessions, and
  // create and append sessions do not read).
  // Transfers per partial session on descriptors the trace never opened (pipes, an inherited
  // stdout): counted in partial_transfers_per_open, not in the sessions' lengths.
  double sessionless_per_partial_session() const {
    return partial_session_length.empty() ? 0.0 : std::max(0.0, partial_transfers_per_open - partial_session_length.mean);
  }
  double eof_share_of_plain() const {
    double plain = 1.0 - create_fraction - append_fraction;
    return plain > 0 ? std::min(1.0, eof_session_fraction / plain) : 0.0;
  }
  std::vector<double> popularity;    // share of opens per file, most popular first
  // Which files are read whole, by popularity rank (aligned with `popularity`; empty in version-1
  // models): the share of the class's opens that were one read of all of that rank's file while
  // nothing wrote it in the trace, and that file's size (0 when it has no such read). Whole reads
  // land on those files as often, and as large, as traced — git read the 8-byte /dev/urandom
  // whole 35 times and its ~2.8 KB files once each; drawn apart from the file, the whole reads
  // fell on files of every size and moved twice the bytes.
  std::vector<double> whole_read_share;
  std::vector<uint64_t> whole_read_size;
  // The bytes moved by the other reads (read_size without the whole reads): what a session
  // reading in pieces reads (git's 8-byte whole reads are not its pieces; version 1: read_size).
  EmpiricalDistribution piece_read_size;
  // The share of whole-read sessions that read such a file (the others read a file as it is):
  // their share of opens over the whole reads' (eof_session_fraction is of sessions, i.e. opens).
  double whole_read_file_share() const {
    double s = 0;
    for (double x : whole_read_share) s += x;
    const double whole = eof_session_fraction * whole_read_fraction;
    return whole > 0 ? std::min(1.0, s / whole) : 0.0;
  }
  std::vector<double> centroid;      // the class's centre in the clustering's feature space
};

struct ClusteringInfo {
  std::string method;       // "kmeans" or "gmm"
  uint64_t k = 1;
  bool automatic = true;
  std::string score_name;   // "silhouette" (kmeans) or "bic" (gmm)
  double score = 0.0;
  std::vector<std::string> feature_names;
};

struct WorkloadModel {
  int version = kModelVersion;
  std::string source;       // the trace it came from
  uint64_t threads = 0, calls = 0, files = 0;
  double duration_s = 0.0;
  OpMix mix{};
  double metadata_share = 0.0;    // meta + namespace + open + close calls / calls
  double read_write_ratio = 0.0;  // bytes read / bytes written (0 when nothing written)
  double mean_concurrency = 0.0;
  ClusteringInfo clustering;
  std::vector<ClassModel> classes;
};

nlohmann::json to_json(const WorkloadModel& m);
// Throws rastro::Error naming `path` and the bad key.
WorkloadModel model_from_json(const nlohmann::json& j, const std::string& path);
WorkloadModel read_model(const std::string& path);
void write_model(const std::string& path, const WorkloadModel& m);

}  // namespace rastro::characterize
