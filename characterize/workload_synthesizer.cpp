#include "characterize/workload_synthesizer.h"

#include <errno.h>
#include <fcntl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "characterize/turn_scheduler.h"
#include "common/error.h"

namespace rastro::characterize {
namespace {

using trace::Arg;
using trace::ArgType;
using trace::Event;
using trace::kNoStr;
using trace::StrId;

// x86_64 syscall numbers of the calls a synthetic trace uses.
constexpr int kClose = 3, kPread64 = 17, kPwrite64 = 18, kFsync = 74, kOpenat = 257, kNewfstatat = 262;
constexpr int64_t kAtFdcwd = -100;
constexpr int32_t kFirstId = 1000;  // synthetic pids/tids start here
constexpr uint64_t kAlign = 512;    // random offsets are aligned like real block-sized I/O

size_t at(OpCategory c) { return static_cast<size_t>(c); }

// Files are shared between a class's synthetic threads when most of the class's files were
// touched by more than one thread; generating in turns needs one OS thread per synthetic thread.
constexpr double kSharedFileMajority = 0.5;
constexpr uint64_t kMaxTurnThreads = 1024;
bool shares_files(const ClassModel& c) { return c.shared_file_fraction > kSharedFileMajority; }

// Thread counts per class by the largest-remainder rule, so they sum to `total`.
std::vector<uint64_t> apportion(const WorkloadModel& m, uint64_t total) {
  std::vector<uint64_t> n(m.classes.size());
  std::vector<std::pair<double, size_t>> rest;
  uint64_t given = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    double exact = m.classes[i].share * static_cast<double>(total);
    n[i] = static_cast<uint64_t>(std::floor(exact));
    given += n[i];
    rest.push_back({exact - std::floor(exact), i});
  }
  std::stable_sort(rest.begin(), rest.end(), [](auto a, auto b) { return a.first > b.first; });
  for (size_t r = 0; given < total && r < rest.size(); ++r, ++given) ++n[rest[r].second];
  return n;
}

struct FilePool {
  std::vector<StrId> paths;
  std::vector<uint64_t> sizes;
  std::discrete_distribution<size_t> pick;
};

// The files a synthetic thread opens, as many as the class opens: its own
// (/synth/<class>/t<id>/f<N>) or, for a class whose files were mostly shared between threads,
// one pool for the whole class (/synth/<class>/f<N>; thread < 0), whose threads are then
// generated in turns (turn_scheduler.h) so every read sees the sizes earlier calls left.
FilePool make_pool(const ClassModel& c, int32_t thread, trace::Trace& t, std::mt19937_64& rng) {
  FilePool p;
  size_t n = std::max<uint64_t>(1, c.files);  // the whole class pool: the LRU model, not a small pool, decides reuse
  std::vector<double> weights(n, 1.0);
  if (!c.popularity.empty()) {
    // Rank r of the scaled pool takes the popularity of rank r * P / n of the original.
    for (size_t r = 0; r < n; ++r) weights[r] = c.popularity[std::min(c.popularity.size() - 1, r * c.popularity.size() / n)];
  }
  for (size_t f = 0; f < n; ++f) {
    p.paths.push_back(t.strings.intern(thread < 0 ? fmt::format("/synth/{}/f{}", c.name, f)
                                                  : fmt::format("/synth/{}/t{}/f{}", c.name, thread, f)));
    p.sizes.push_back(static_cast<uint64_t>(std::max(0.0, std::round(c.file_size.draw(rng)))));
  }
  p.pick = std::discrete_distribution<size_t>(weights.begin(), weights.end());
  return p;
}

// Writes one synthetic thread's calls back to back: each call's duration and the think time
// after it are drawn from the class; before each call, stat calls are drawn with the class's
// metadata share, so that share holds whatever the session structure is.
class ThreadWriter {
 public:
  // With `turns`, every call waits for its turn in trace time (shared files); the writer holds
  // the turn between calls, so everything it decides there is exclusive and in time order.
  ThreadWriter(trace::Trace& t, int32_t id, int64_t start, const ClassModel& c, FilePool& pool, std::mt19937_64& rng,
               TurnScheduler* turns = nullptr, size_t turn = 0)
      : t_(t), id_(id), now_(start), c_(c), pool_(pool), rng_(rng), turns_(turns), turn_(turn) {
    double synthesized = 0;
    for (OpCategory k : {OpCategory::kRead, OpCategory::kWrite, OpCategory::kOpen, OpCategory::kClose,
                         OpCategory::kMeta, OpCategory::kSync})
      synthesized += c.mix[at(k)];
    meta_share_ = synthesized > 0 ? c.mix[at(OpCategory::kMeta)] / synthesized : 0.0;
  }

  // Emits the stat calls drawn with the class's metadata share, then waits for the turn of the
  // next call: what the caller decides after this happens at that call's begin time.
  void sync() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    while (meta_share_ < 1.0 && u(rng_) < meta_share_) {
      wait_turn();
      StrId path = pool_.paths[pool_.pick(rng_)];
      emit(kNewfstatat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, path}, {ArgType::kBuf, 0, kNoStr},
                         {ArgType::kAtFlags, 0, kNoStr}}, 0);
    }
    wait_turn();
  }
  // A call whose result does not depend on what other threads did.
  void call(int nr, std::initializer_list<Arg> args, int64_t rvalue) {
    sync();
    emit(nr, args, rvalue);
  }
  // The call after sync().
  void emit(int nr, std::initializer_list<Arg> args, int64_t rvalue) {
    Event e;
    e.pid = id_;
    e.tid = id_;
    e.nr = nr;
    e.begin_ns = now_;
    e.end_ns = now_ + static_cast<int64_t>(std::max(0.0, c_.duration_ns.draw(rng_)));
    for (const Arg& a : args) e.args[e.nargs++] = a;
    e.rvalue = rvalue;
    t_.events.push_back(e);
    now_ = e.end_ns + static_cast<int64_t>(std::max(0.0, c_.think_ns.draw(rng_)));
    ++calls_;
  }
  int64_t now() const { return now_; }
  uint64_t calls() const { return calls_; }

 private:
  void wait_turn() {
    if (turns_) turns_->arrive(turn_, now_);
  }

  trace::Trace& t_;
  int32_t id_;
  int64_t now_;
  const ClassModel& c_;
  FilePool& pool_;
  std::mt19937_64& rng_;
  TurnScheduler* turns_;
  size_t turn_;
  double meta_share_ = 0.0;
  uint64_t calls_ = 0;
};

// One open -> close session on file f: either reading it to its end, or a geometric number of
// transfers (the class's mean for such sessions), each a read with the class's share of reads,
// sequential with the class's share, else at a random aligned offset inside the file.
class Session {
 public:
  Session(ThreadWriter& w, const ClassModel& c, FilePool& pool, size_t f, std::mt19937_64& rng)
      : w_(w), c_(c), pool_(pool), f_(f), path_(pool.paths[f]), rng_(rng) {}

  template <class More>
  void run(More more) {
    w_.call(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, path_},
                      {ArgType::kOpenFlags, O_RDWR, kNoStr}, {ArgType::kMode, 0, kNoStr}}, kSessionFd);
    if (u_(rng_) < c_.eof_session_fraction) {
      while (more() && position_ < pool_.sizes[f_]) transfer(true);
      if (u_(rng_) < c_.zero_read_fraction) transfer(true);  // the reader that reads on to the 0
    } else {
      for (uint64_t k = 0, n = partial_length(); k < n && more(); ++k) {
        jumped_ = u_(rng_) >= c_.partial_sequential_fraction;
        if (jumped_) jump();
        transfer(u_(rng_) < c_.partial_read_fraction);
        jumped_ = false;
      }
    }
    w_.call(kClose, {{ArgType::kFd, kSessionFd, path_}}, 0);
  }

 private:
  static constexpr int64_t kSessionFd = 3;

  // Drawn from the class's session lengths, scaled to its transfers per session (stochastic
  // rounding keeps the mean); geometric with that mean when no session length was seen.
  uint64_t partial_length() {
    const EmpiricalDistribution& d = c_.partial_session_length;
    if (d.empty() || d.mean <= 0) {
      std::geometric_distribution<uint64_t> g(1.0 / (1.0 + c_.partial_transfers_per_open));
      return g(rng_);
    }
    double x = d.draw(rng_) * c_.partial_transfers_per_open / d.mean;
    double whole = std::floor(x);
    return static_cast<uint64_t>(whole) + (u_(rng_) < x - whole ? 1 : 0);
  }  // each synthetic thread is its own process: one file at a time

  void jump() {
    uint64_t size = pool_.sizes[f_];
    uint64_t room = size > kAlign ? size - kAlign : 0;
    position_ = room ? (static_cast<uint64_t>(u_(rng_) * static_cast<double>(room)) / kAlign) * kAlign : 0;
  }

  // A read at or past the end returns what is left (0 at the end of the file). Returns the bytes moved.
  uint64_t transfer(bool is_read) {
    const EmpiricalDistribution& dist = is_read ? c_.read_request : c_.write_request;
    uint64_t len = static_cast<uint64_t>(std::max(1.0, std::round(dist.draw(rng_))));
    w_.sync();  // the size below is the file's size at this call's begin, whoever wrote it
    uint64_t& size = pool_.sizes[f_];
    // A write at a random place rewrites the file in place, as a database page or a block
    // update does: the file's size (drawn from the traced extents) is kept when it can be.
    if (!is_read && jumped_ && len <= size) position_ = std::min(position_, (size - len) / kAlign * kAlign);
    uint64_t moved = is_read ? (size > position_ ? std::min(len, size - position_) : 0) : len;
    w_.emit(is_read ? kPread64 : kPwrite64,
            {{ArgType::kFd, kSessionFd, path_}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, static_cast<int64_t>(len), kNoStr},
             {ArgType::kOffset, static_cast<int64_t>(position_), kNoStr}},
            static_cast<int64_t>(moved));
    position_ += moved;
    if (!is_read) {
      size = std::max(size, position_);
      if (u_(rng_) < c_.syncs_per_write) w_.call(kFsync, {{ArgType::kFd, kSessionFd, path_}}, 0);
    }
    return moved;
  }

  ThreadWriter& w_;
  const ClassModel& c_;
  FilePool& pool_;
  size_t f_;
  StrId path_;
  std::mt19937_64& rng_;
  std::uniform_real_distribution<double> u_{0.0, 1.0};
  uint64_t position_ = 0;
  bool jumped_ = false;  // the transfer being made follows a jump to a random offset
};

// The file of the next session, by the LRU stack model: with the class's reuse fraction a file
// this thread opened before, at a stack distance drawn from the class's reuse distances; else a
// file it has not opened yet, by popularity.
class FileChooser {
 public:
  FileChooser(const ClassModel& c, FilePool& pool, std::mt19937_64& rng) : c_(c), pool_(pool), rng_(rng) {}
  size_t next() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    size_t f;
    if (!stack_.empty() && u(rng_) < c_.reopen_probability) {
      size_t d = static_cast<size_t>(std::max(0.0, std::round(c_.reuse_distance.draw(rng_))));
      auto it = stack_.begin() + static_cast<std::ptrdiff_t>(std::min(d, stack_.size() - 1));
      f = *it;
      stack_.erase(it);
    } else {
      f = pool_.pick(rng_);
      for (int tries = 0; tries < kNewFileTries && opened_.count(f); ++tries) f = pool_.pick(rng_);
      for (size_t g = 0; g < pool_.paths.size() && opened_.count(f); ++g) f = g;  // popularity missed them
      auto it = std::find(stack_.begin(), stack_.end(), f);
      if (it != stack_.end()) stack_.erase(it);
    }
    opened_.insert(f);
    stack_.insert(stack_.begin(), f);
    return f;
  }

 private:
  static constexpr int kNewFileTries = 32;  // then the first file not opened yet; all opened: a re-open
  const ClassModel& c_;
  FilePool& pool_;
  std::mt19937_64& rng_;
  std::vector<size_t> stack_;  // most recently opened first
  std::set<size_t> opened_;
};

// Thread i of n takes the (i + 0.5) / n quantile of the class's calls per thread and start times,
// so a model of a few threads is synthesized with the same spread, not a random pick of it.
int64_t thread_start(const ClassModel& c, double stratum) {
  return static_cast<int64_t>(std::max(0.0, c.start_ns.quantile(stratum)));
}

void synthesize_thread(trace::Trace& t, const ClassModel& c, FilePool& pool, int32_t id, double stratum,
                       const SynthOptions& o, std::mt19937_64& rng, TurnScheduler* turns = nullptr, size_t turn = 0) {
  int64_t start = thread_start(c, stratum);
  uint64_t target = static_cast<uint64_t>(std::max(1.0, std::round(c.calls_per_thread.quantile(stratum))));
  int64_t stop = o.duration_s ? start + static_cast<int64_t>(*o.duration_s * 1e9) : 0;
  ThreadWriter w(t, id, start, c, pool, rng, turns, turn);
  FileChooser files(c, pool, rng);
  auto more = [&] { return o.duration_s ? w.now() < stop : w.calls() < target; };
  // A session is cut short only at the end of a --scale duration: cutting it at a call count
  // would bias the transfers per open down.
  auto in_session = [&] { return !o.duration_s || w.now() < stop; };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  uint64_t missing = 0;
  while (more()) {
    if (u(rng) < c.failed_open_fraction) {  // a probe for a file that does not exist
      w.sync();
      StrId path = t.strings.intern(fmt::format("/synth/{}/missing-{}-{}", c.name, id, missing++));
      w.emit(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, path},
                       {ArgType::kOpenFlags, O_RDONLY, kNoStr}, {ArgType::kMode, 0, kNoStr}}, -ENOENT);
      continue;
    }
    Session(w, c, pool, files.next(), rng).run(in_session);
  }
}

}  // namespace

void parse_scale(const std::string& spec, SynthOptions& options) {
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error(fmt::format("--scale: \"{}\" is not KEY=VALUE", item));
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const char* b = value.data();
    const char* e = b + value.size();
    if (key == "threads") {
      uint64_t n = 0;
      auto r = std::from_chars(b, e, n);
      if (r.ec != std::errc() || r.ptr != e || n == 0)
        throw Error(fmt::format("--scale: threads=\"{}\" is not a positive integer", value));
      options.threads = n;
    } else if (key == "duration") {
      double s = 0;
      auto r = std::from_chars(b, e, s);
      if (r.ec != std::errc() || r.ptr != e || !(s > 0) || !std::isfinite(s))
        throw Error(fmt::format("--scale: duration=\"{}\" is not a positive number of seconds", value));
      options.duration_s = s;
    } else {
      throw Error(fmt::format("--scale: unknown key \"{}\" (threads, duration)", key));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
}

trace::Trace synthesize(const WorkloadModel& model, const SynthOptions& options) {
  trace::Trace t;
  t.header.backend = "synth";
  std::mt19937_64 rng(options.seed);
  uint64_t total = options.threads.value_or(model.threads);
  std::vector<uint64_t> per_class = apportion(model, total);
  nlohmann::json classes = nlohmann::json::object();
  std::vector<std::string> notes;
  // The size each file has before the trace starts, for `rastro replay --init` (the header's
  // initial_files): without it, replay would have to guess sizes from the reads.
  std::map<StrId, uint64_t> initial_sizes;
  auto remember_initial_sizes = [&](const FilePool& pool) {
    for (size_t f = 0; f < pool.paths.size(); ++f) initial_sizes[pool.paths[f]] = pool.sizes[f];
  };
  int32_t id = kFirstId;
  for (size_t k = 0; k < model.classes.size(); ++k) {
    const ClassModel& c = model.classes[k];
    if (per_class[k] == 0) continue;
    const uint64_t n = per_class[k];
    auto stratum = [n](uint64_t i) { return (static_cast<double>(i) + 0.5) / static_cast<double>(n); };
    for (uint64_t i = 0; i < n; ++i) classes[std::to_string(id + static_cast<int32_t>(i))] = c.name;
    if (shares_files(c) && n > 1 && n <= kMaxTurnThreads) {
      // One pool for the class; its threads generated together, in turns (one OS thread each).
      FilePool pool = make_pool(c, -1, t, rng);
      remember_initial_sizes(pool);
      std::vector<int64_t> starts;
      for (uint64_t i = 0; i < n; ++i) starts.push_back(thread_start(c, stratum(i)));
      TurnScheduler turns(starts);
      std::vector<std::thread> generators;
      for (uint64_t i = 0; i < n; ++i)
        generators.emplace_back([&, i, tid = id + static_cast<int32_t>(i)] {
          turns.arrive(i, starts[i]);
          synthesize_thread(t, c, pool, tid, stratum(i), options, rng, &turns, i);
          turns.leave(i);
        });
      for (auto& g : generators) g.join();
    } else {
      if (shares_files(c) && n > kMaxTurnThreads)
        notes.push_back(fmt::format("class {}: {} threads, above {}: files not shared between them", c.name, n,
                                    kMaxTurnThreads));
      for (uint64_t i = 0; i < n; ++i) {
        FilePool pool = make_pool(c, id + static_cast<int32_t>(i), t, rng);
        remember_initial_sizes(pool);
        synthesize_thread(t, c, pool, id + static_cast<int32_t>(i), stratum(i), options, rng);
      }
    }
    id += static_cast<int32_t>(n);
  }
  std::stable_sort(t.events.begin(), t.events.end(), [](const Event& a, const Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t i = 0; i < t.events.size(); ++i) t.events[i].seq = i;
  t.header.settings = {{"model", model.source},
                       {"seed", options.seed},
                       {"threads", total},
                       {"classes", classes}};
  if (options.duration_s) t.header.settings["duration_s"] = *options.duration_s;
  if (!notes.empty()) t.header.settings["notes"] = notes;
  nlohmann::json initial_files = nlohmann::json::object();
  for (const Event& e : t.events)
    for (int a = 0; a < e.nargs; ++a)
      if (auto it = initial_sizes.find(e.arg(a).str); it != initial_sizes.end())
        initial_files[std::string(t.strings.get(it->first))] = it->second;
  t.header.settings["initial_files"] = initial_files;
  t.header.events_captured = t.events.size();
  t.header.complete = true;
  return t;
}

}  // namespace rastro::characterize
