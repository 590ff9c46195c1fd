#include "characterize/filebench_workload_writer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "characterize/largest_remainder.h"
#include "common/atomic_write.h"

namespace rastro::characterize {
namespace {

constexpr uint64_t kMaxCycle = 20;  // sessions in one cycle of flowops, at most

uint64_t whole(double x) { return x > 0 ? static_cast<uint64_t>(std::llround(x)) : 0; }

// The number of sessions per cycle (1..kMaxCycle) whose whole counts come closest to the shares.
uint64_t cycle_length(const std::vector<double>& shares) {
  uint64_t best = 1;
  double best_error = 2.0;
  for (uint64_t n = 1; n <= kMaxCycle; ++n) {
    std::vector<uint64_t> counts = largest_remainder(shares, n);
    double error = 0;
    for (size_t i = 0; i < shares.size(); ++i)
      error = std::max(error, std::abs(static_cast<double>(counts[i]) / static_cast<double>(n) - shares[i]));
    if (error < best_error - 1e-9) {
      best = n;
      best_error = error;
    }
  }
  return best;
}

// Writes one class's randvars, fileset and process.
class ClassWriter {
 public:
  ClassWriter(const ClassModel& c, uint64_t threads, uint64_t entries, std::string& out)
      : c_(c), threads_(threads), entries_(entries), out_(out) {}

  void write() {
    const std::string& n = c_.name;
    randvar("filesize", c_.file_size);
    randvar("read", c_.read_request);
    randvar("create_write", c_.create_write_request.empty() ? c_.write_request : c_.create_write_request);
    randvar("append_write", c_.append_write_request.empty() ? c_.write_request : c_.append_write_request);
    randvar("write", c_.plain_write_request.empty() ? c_.write_request : c_.plain_write_request);
    // createfile needs files that do not exist yet: as many as the creates' share of sessions.
    uint64_t prealloc = 100 - std::min<uint64_t>(50, whole(100.0 * c_.create_fraction));
    out_ += fmt::format("define fileset name={}files,path=$dir,size=${}_filesize,entries={},dirwidth=1000000,prealloc={}\n", n,
                        n, entries_, prealloc);
    if (mkdirs() + rmdirs() > 0)
      out_ += fmt::format("define fileset name={}dirs,path=$dir,size=0,leafdirs={},dirwidth=100,prealloc=50\n", n,
                          std::max<uint64_t>(10, 10 * (mkdirs() + rmdirs()) * threads_));
    out_ += fmt::format("\ndefine process name={},instances=1\n{{\n  thread name={}thread,memsize=10m,instances={}\n  {{\n", n,
                        n, threads_);
    std::vector<double> kinds = {c_.create_fraction, c_.append_fraction,
                                 std::max(0.0, 1.0 - c_.create_fraction - c_.append_fraction)};
    sessions_ = cycle_length(kinds);
    std::vector<uint64_t> count = largest_remainder(kinds, sessions_);
    for (uint64_t k = 0; k < count[0]; ++k) create_session();
    for (uint64_t k = 0; k < count[1]; ++k) append_session();
    std::vector<uint64_t> plain = largest_remainder({c_.eof_share_of_plain(), 1.0 - c_.eof_share_of_plain()}, count[2]);
    for (uint64_t k = 0; k < plain[0]; ++k) whole_read_session();
    for (uint64_t k = 0; k < plain[1]; ++k) partial_session();
    namespace_changes();
    stats();
    out_ += "  }\n}\n\n";
  }

 private:
  std::string name(const char* what) { return fmt::format("{}{}{}", c_.name, what, ++flowops_); }

  void randvar(const char* what, const EmpiricalDistribution& d) {
    if (d.empty()) return;
    out_ += fmt::format("define randvar name=${}_{},type=tabular,min={},randtable={}\n", c_.name, what,
                        whole(d.quantile(0.0)), filebench_randtable(d));
  }
  std::string size_var(const char* what, const EmpiricalDistribution& d) const {
    return d.empty() ? std::string("4k") : fmt::format("${}_{}", c_.name, what);
  }

  void flowop(const std::string& op, const std::string& attrs) { out_ += fmt::format("    flowop {} {}\n", op, attrs); }

  void writes_and_syncs(uint64_t writes, const std::string& iosize, const char* sync_name) {
    if (writes == 0) return;
    flowop("write", fmt::format("name={},fd=1,iosize={},iters={}", name("write"), iosize, writes));
    uint64_t syncs = whole(c_.syncs_per_write * static_cast<double>(writes));
    for (uint64_t k = 0; k < syncs; ++k) flowop("fsync", fmt::format("name={},fd=1", name(sync_name)));
  }
  void open(const char* op) { flowop(op, fmt::format("name={},filesetname={}files,fd=1", name(op), c_.name)); }
  void close() { flowop("closefile", fmt::format("name={},fd=1", name("close"))); }

  void create_session() {
    open("createfile");
    writes_and_syncs(std::max<uint64_t>(1, whole(c_.create_session_writes.mean)),
                     size_var("create_write", c_.create_write_request.empty() ? c_.write_request : c_.create_write_request),
                     "fsync");
    close();
  }
  void append_session() {
    open("openfile");
    uint64_t writes = std::max<uint64_t>(1, whole(c_.append_session_writes.mean));
    flowop("appendfile", fmt::format("name={},fd=1,iosize={},iters={}", name("append"),
                                     size_var("append_write", c_.append_write_request.empty() ? c_.write_request : c_.append_write_request),
                                     writes));
    uint64_t syncs = whole(c_.syncs_per_write * static_cast<double>(writes));
    for (uint64_t k = 0; k < syncs; ++k) flowop("fsync", fmt::format("name={},fd=1", name("fsync")));
    close();
  }
  void whole_read_session() {
    open("openfile");
    flowop("readwholefile", fmt::format("name={},fd=1,iosize={}", name("readwhole"), size_var("read", c_.read_request)));
    close();
  }
  void partial_session() {
    open("openfile");
    double transfers = c_.partial_transfers_per_open;
    uint64_t reads = whole(transfers * c_.partial_read_fraction), writes = whole(transfers * (1 - c_.partial_read_fraction));
    std::string random = c_.partial_sequential_fraction < 0.5 ? ",random" : "";
    if (reads > 0)
      flowop("read", fmt::format("name={},fd=1,iosize={},iters={}{}", name("read"), size_var("read", c_.read_request), reads, random));
    writes_and_syncs(writes, size_var("write", c_.plain_write_request.empty() ? c_.write_request : c_.plain_write_request),
                     "fsync");
    close();
  }

  uint64_t namespace_calls(NamespaceOp op) const {
    return whole(c_.namespace_per_open * static_cast<double>(sessions_) * c_.namespace_mix[static_cast<size_t>(op)]);
  }
  uint64_t mkdirs() const { return namespace_calls(NamespaceOp::kMkdir); }
  uint64_t rmdirs() const { return namespace_calls(NamespaceOp::kRmdir); }

  void namespace_changes() {
    for (uint64_t k = 0; k < namespace_calls(NamespaceOp::kUnlink); ++k)
      flowop("deletefile", fmt::format("name={},filesetname={}files", name("delete"), c_.name));
    for (uint64_t k = 0; k < mkdirs(); ++k) flowop("makedir", fmt::format("name={},filesetname={}dirs", name("mkdir"), c_.name));
    for (uint64_t k = 0; k < rmdirs(); ++k) flowop("removedir", fmt::format("name={},filesetname={}dirs", name("rmdir"), c_.name));
  }

  // statfile calls for the class's metadata share of the cycle's calls.
  void stats() {
    double meta = c_.mix[static_cast<size_t>(OpCategory::kMeta)];
    double others = static_cast<double>(flowop_calls());
    uint64_t n = meta < 1.0 ? whole(others * meta / (1.0 - meta)) : 0;
    for (uint64_t k = 0; k < n; ++k) flowop("statfile", fmt::format("name={},filesetname={}files", name("stat"), c_.name));
  }
  // System calls the cycle makes so far (a readwholefile counted as one read).
  uint64_t flowop_calls() const {
    uint64_t calls = 0;
    for (size_t at = out_.find("    flowop ", start_); at != std::string::npos; at = out_.find("    flowop ", at + 1)) {
      size_t iters = out_.find("iters=", at), eol = out_.find('\n', at);
      calls += iters != std::string::npos && iters < eol ? std::stoull(out_.substr(iters + 6, eol - iters - 6)) : 1;
    }
    return calls;
  }

  const ClassModel& c_;
  uint64_t threads_, entries_;
  std::string& out_;
  size_t start_ = out_.size();
  uint64_t flowops_ = 0, sessions_ = 1;
};

}  // namespace

std::string filebench_randtable(const EmpiricalDistribution& d) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::vector<double> weights;
  if (!d.atoms.empty()) {
    for (size_t i = 0; i < d.atoms.size(); ++i) {
      ranges.push_back({whole(d.atoms[i]), whole(d.atoms[i])});
      weights.push_back(d.weights[i]);
    }
  } else {
    for (int k = 0; k < 10; ++k) {
      ranges.push_back({whole(d.quantile(k / 10.0)), whole(d.quantile((k + 1) / 10.0))});
      weights.push_back(0.1);
    }
  }
  std::vector<uint64_t> pct = largest_remainder(weights, 100);
  std::string out;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (pct[i] == 0) continue;
    out += fmt::format("{}{{{}, {}, {}}}", out.empty() ? "" : ", ", pct[i], ranges[i].first, ranges[i].second);
  }
  return "{" + out + "}";
}

std::string filebench_workload_text(const WorkloadModel& m, const SynthOptions& o) {
  std::string out = fmt::format(
      "# Filebench workload written by `rastro synth --filebench` from the workload model of {}.\n"
      "# Per class: a fileset and a process whose threads repeat one cycle of the class's sessions\n"
      "# (docs/characterize.md). Not expressible in this language, so left out: renames, links,\n"
      "# symlinks, failed opens, think times and random writes inside a session.\n"
      "set $dir=/tmp/rastro-filebench\nset $runtime={}\n\n",
      m.source.empty() ? "an unnamed trace" : m.source, std::max<uint64_t>(1, whole(o.duration_s.value_or(60.0))));
  uint64_t total = o.threads.value_or(m.threads);
  std::vector<double> shares;
  for (const ClassModel& c : m.classes) shares.push_back(c.share);
  std::vector<uint64_t> threads = largest_remainder(shares, total);
  for (size_t k = 0; k < m.classes.size(); ++k) {
    if (threads[k] == 0) continue;
    const ClassModel& c = m.classes[k];
    // The class's files when its threads shared them, else as many per thread as each had.
    uint64_t entries = c.shares_files() ? c.files : whole(c.files_per_thread * static_cast<double>(threads[k]));
    ClassWriter(c, threads[k], std::max<uint64_t>(1, entries), out).write();
  }
  out += "echo \"rastro synthetic workload loaded\"\n\nrun $runtime\n";
  return out;
}

void write_filebench_workload(const std::string& path, const WorkloadModel& m, const SynthOptions& o) {
  write_text_atomically(path, filebench_workload_text(m, o));
}

}  // namespace rastro::characterize
