#include "characterize/workload_synthesizer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <map>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "characterize/largest_remainder.h"
#include "characterize/stratified_draw.h"
#include "characterize/systematic_choice.h"
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
constexpr int kRead = 0, kWrite = 1, kClose = 3, kPread64 = 17, kPwrite64 = 18, kFsync = 74, kRmdir = 84, kOpenat = 257,
              kMkdirat = 258, kMknodat = 259, kNewfstatat = 262, kUnlinkat = 263, kRenameat = 264, kLinkat = 265,
              kSymlinkat = 266;
constexpr int64_t kAtFdcwd = -100;
constexpr int32_t kFirstId = 1000;  // synthetic pids/tids start here
constexpr uint64_t kAlign = 512;    // random offsets are aligned like real block-sized I/O

// Threads sharing files (ClassModel::shares_files) are generated in turns, one OS thread each.
constexpr uint64_t kMaxTurnThreads = 1024;

// Thread counts per class in proportion to the shares, summing to `total`.
std::vector<uint64_t> apportion(const WorkloadModel& m, uint64_t total) {
  std::vector<double> shares;
  for (const ClassModel& c : m.classes) shares.push_back(c.share);
  return largest_remainder(shares, total);
}

// What a pool file holds as the synthetic trace goes: fresh (not used yet: it exists before the
// trace with its drawn size, unless its first use creates it), present or absent (removed).
enum class FileState : uint8_t { kFresh, kPresent, kAbsent };

// The files a synthetic thread works on, as many as the class opens: its own
// (/synth/<class>/t<id>/f<N>) or, for a class whose files were mostly shared between threads,
// one pool for the whole class (/synth/<class>/f<N>; thread < 0), whose threads are then
// generated in turns (turn_scheduler.h) so every call sees the state earlier calls left.
// New names (directories, links, missing paths) are made in the same directory.
struct FilePool {
  std::string dir;
  std::vector<StrId> paths;
  std::vector<uint64_t> sizes;      // now
  std::vector<FileState> state;
  std::vector<bool> preexisting;    // existed before the trace (its first use was not a create)
  std::vector<uint64_t> initial;    // the size it had then
  std::vector<uint64_t> made;       // the size it was last made with (initially: its first size)
  std::vector<uint32_t> open;       // sessions open on it now
  // A session opened it (or a rename moved it): its size may show in the data moved. Until then
  // its first reading to the end may still decide what it held (a stat does not show it).
  std::vector<bool> sized;
  std::discrete_distribution<size_t> pick;
  // The files only read in the trace and read whole there, taken in turn by their shares of
  // those whole reads (ClassModel::whole_read_share; empty when the class has none): each is read
  // as often as its share says — git's are 35 reads of an 8-byte file and one each of 17 files up
  // to 8 KB, and drawn freely they moved 1.3 to 1.6 times the traced bytes.
  SystematicChoice whole;
  // Files whose every traced open was such a read: no other session or name change takes them
  // (FileChooser), so they keep their size — a create on git's /dev/urandom made it 5 KB.
  std::vector<bool> whole_only;
  double whole_only_opens = 0.0;  // their share of the opens
  std::vector<StrId> made_dirs;     // directories made and not yet removed
  std::map<StrId, size_t> index;    // path -> file
  // When the last call on each file ends: a call on a file begins after it, so calls of threads
  // sharing it never overlap and any replay keeping their order on the file sees what they saw.
  std::vector<int64_t> busy_until;
  uint64_t names = 0;               // counter for new names

  bool usable(size_t f) const { return state[f] != FileState::kAbsent; }
  // A use of the file as it is: a fresh file existed before the trace.
  void use(size_t f) {
    if (state[f] != FileState::kFresh) return;
    preexisting[f] = true;
    state[f] = FileState::kPresent;
  }
  void create(size_t f) {
    state[f] = FileState::kPresent;
    sizes[f] = 0;
  }
  void remove(size_t f) {
    use(f);
    state[f] = FileState::kAbsent;
    sizes[f] = 0;
  }
  StrId new_name(trace::Trace& t, char kind) { return t.strings.intern(fmt::format("{}/{}{}", dir, kind, names++)); }
};

FilePool make_pool(const ClassModel& c, int32_t thread, trace::Trace& t, std::mt19937_64& rng) {
  FilePool p;
  p.dir = thread < 0 ? fmt::format("/synth/{}", c.name) : fmt::format("/synth/{}/t{}", c.name, thread);
  size_t n = std::max<uint64_t>(1, c.files);  // the whole class pool: the LRU model, not a small pool, decides reuse
  std::vector<double> weights(n, 1.0), whole(n, 0.0);
  // Rank r of the scaled pool is rank r * P / n of the original.
  auto rank = [&](size_t r) { return std::min(c.popularity.size() - 1, r * c.popularity.size() / n); };
  const bool ranked_whole = c.whole_read_share.size() == c.popularity.size() && c.whole_read_file_share() > 0;
  if (!c.popularity.empty()) {
    // The opens that were whole reads of a file only read are chosen apart (FilePool::whole).
    for (size_t r = 0; r < n; ++r) {
      weights[r] = c.popularity[rank(r)];
      if (ranked_whole) {
        whole[r] = c.whole_read_share[rank(r)];
        weights[r] = std::max(0.0, weights[r] - whole[r]);
      }
    }
    if (std::all_of(weights.begin(), weights.end(), [](double x) { return x <= 0; })) weights.assign(n, 1.0);
  }
  double all = 0;
  for (size_t f = 0; f < n; ++f) {
    p.whole_only.push_back(whole[f] > 0 && weights[f] <= 0);
    all += c.popularity.empty() ? 1.0 : c.popularity[rank(f)];
    if (p.whole_only[f]) p.whole_only_opens += whole[f];
  }
  p.whole_only_opens = all > 0 ? p.whole_only_opens / all : 0.0;
  // What each path held before the trace: what an incarnation held before its appends (which the
  // synthetic appends then add, as the traced ones did; file_size is the largest a path reached).
  // File f takes the (f + 1/2)/n quantile, the files in a random order: the pool's sizes are the
  // model's distribution itself, not a sample of it (whose noise every whole-file read repeats).
  const EmpiricalDistribution& size = !c.base_size.empty() ? c.base_size
                                      : c.incarnation_size.empty() ? c.file_size : c.incarnation_size;
  for (size_t f = 0; f < n; ++f) {
    p.paths.push_back(t.strings.intern(fmt::format("{}/f{}", p.dir, f)));
    const double stratum = (static_cast<double>(f) + 0.5) / static_cast<double>(n);
    p.sizes.push_back(static_cast<uint64_t>(std::max(0.0, std::round(size.quantile(stratum)))));
  }
  std::shuffle(p.sizes.begin(), p.sizes.end(), rng);
  if (ranked_whole) {  // a file read whole is as large as it was then
    for (size_t f = 0; f < n; ++f)
      if (whole[f] > 0) p.sizes[f] = c.whole_read_size[rank(f)];
    p.whole = SystematicChoice(whole, rng);
  }
  p.initial = p.sizes;
  p.made = p.sizes;
  p.state.assign(n, FileState::kFresh);
  p.preexisting.assign(n, false);
  p.open.assign(n, 0);
  p.sized.assign(n, false);
  p.busy_until.assign(n, 0);
  for (size_t f = 0; f < n; ++f) p.index[p.paths[f]] = f;
  p.pick = std::discrete_distribution<size_t>(weights.begin(), weights.end());
  return p;
}

// Writes one synthetic thread's calls back to back: each call's duration and the think time
// after it are drawn from the class; before each call, stat calls at the class's metadata share,
// so that share holds whatever the session structure is. They are spread by a running credit
// (p / (1 - p) per other call, from a random start), not drawn per call: a geometric count per
// call put its own variance into the share (tar's 0.35 came out 0.28 and 0.30 on seeds 1 and 4).
class ThreadWriter {
 public:
  // With `turns`, every call waits for its turn in trace time (shared files); the writer holds
  // the turn between calls, so everything it decides there is exclusive and in time order.
  ThreadWriter(trace::Trace& t, int32_t id, int64_t start, const ClassModel& c, FilePool& pool, std::mt19937_64& rng,
               TurnScheduler* turns = nullptr, size_t turn = 0)
      : t_(t), id_(id), now_(start), c_(c), pool_(pool), rng_(rng), turns_(turns), turn_(turn) {
    double synthesized = 0;
    for (OpCategory k : {OpCategory::kRead, OpCategory::kWrite, OpCategory::kOpen, OpCategory::kClose,
                         OpCategory::kMeta, OpCategory::kSync, OpCategory::kNamespace})
      synthesized += c.mix[category_index(k)];
    const double meta_share = synthesized > 0 ? c.mix[category_index(OpCategory::kMeta)] / synthesized : 0.0;
    meta_per_call_ = meta_share < 1.0 ? meta_share / (1.0 - meta_share) : 0.0;
    meta_credit_ = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  }

  // Emits the stat calls drawn with the class's metadata share, then waits for the turn of the
  // next call: what the caller decides after this happens at that call's begin time.
  void sync() {
    for (meta_credit_ += meta_per_call_; meta_credit_ >= 1.0; meta_credit_ -= 1.0) {
      wait_turn();
      size_t f = pool_.pick(rng_);
      bool there = pool_.usable(f);
      pool_.use(f);
      emit(kNewfstatat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, pool_.paths[f]},
                         {ArgType::kBuf, 0, kNoStr}, {ArgType::kAtFlags, 0, kNoStr}},
           there ? 0 : -ENOENT);
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
    for (const Arg& a : args) e.args[e.nargs++] = a;
    std::vector<size_t> files;  // the pool files it names
    for (const Arg& a : args)
      if (auto it = pool_.index.find(a.str); a.str != kNoStr && it != pool_.index.end()) files.push_back(it->second);
    e.begin_ns = now_;
    for (size_t f : files) e.begin_ns = std::max(e.begin_ns, pool_.busy_until[f]);
    e.end_ns = e.begin_ns + static_cast<int64_t>(std::max(0.0, c_.duration_ns.draw(rng_)));
    for (size_t f : files) pool_.busy_until[f] = e.end_ns;
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
  double meta_per_call_ = 0.0;  // stat calls per other call
  double meta_credit_ = 0.0;    // in [0, 1) between calls
  uint64_t calls_ = 0;
};

// Stochastic rounding of a non-negative mean-preserving count.
uint64_t round_count(double x, std::mt19937_64& rng) {
  double whole = std::floor(std::max(0.0, x));
  return static_cast<uint64_t>(whole) + (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < x - whole ? 1 : 0);
}

// The draws of a class stratified across all its threads (StratifiedDraw), one stratum per traced
// value: the writes of its create sessions and their sizes, whose heavy tails made the bytes
// written swing with the seed. Used by one thread at a time (in order, or in turns).
struct ClassDraws {
  ClassDraws(const ClassModel& c, std::mt19937_64& rng)
      : create_writes(c.create_session_writes, c.create_session_writes.count, rng),
        create_request(c.create_write_request, c.create_write_request.count, rng) {}
  StratifiedDraw create_writes, create_request;
};

// How a plain session reads: all of the file in one read, to its end in several, or partly.
enum class PlainReading : uint8_t { kWhole, kToEnd, kPartial };

// What a thread's next session does — create, append, or a plain session reading as above — in
// the class's shares (eof_share_of_plain of plain sessions read to the end, whole_read_fraction
// of those in one read), taken in turn (SystematicChoice), before the file is chosen: whole reads
// have their own files.
class SessionPlan {
 public:
  SessionPlan(const ClassModel& c, std::mt19937_64& rng) {
    const double plain = std::max(0.0, 1.0 - c.create_fraction - c.append_fraction), eof = c.eof_share_of_plain();
    choice_ = SystematicChoice({plain * eof * c.whole_read_fraction, plain * eof * (1.0 - c.whole_read_fraction),
                                plain * (1.0 - eof), c.create_fraction, c.append_fraction},
                               rng);
  }
  std::pair<SessionKind, PlainReading> next() {
    if (choice_.empty()) return {SessionKind::kPlain, PlainReading::kPartial};
    switch (choice_.next()) {
      case 0: return {SessionKind::kPlain, PlainReading::kWhole};
      case 1: return {SessionKind::kPlain, PlainReading::kToEnd};
      case 3: return {SessionKind::kCreate, PlainReading::kPartial};
      case 4: return {SessionKind::kAppend, PlainReading::kPartial};
      default: return {SessionKind::kPlain, PlainReading::kPartial};
    }
  }

 private:
  SystematicChoice choice_;
};

// One open -> close session on file f, opened by the caller's turn (ThreadWriter::sync done):
// - create: O_CREAT|O_TRUNC, then the drawn number of sequential writes from 0;
// - append: O_APPEND, then the drawn number of writes at the end of the file;
// - plain: either reading the file to its end (with one read asking for all of it, or reads of
//   drawn sizes), or a drawn number of transfers, each a read with the class's share of reads,
//   sequential with the class's share, else at a random aligned offset inside the file.
class Session {
 public:
  Session(ThreadWriter& w, const ClassModel& c, ClassDraws& draws, FilePool& pool, size_t f, std::mt19937_64& rng)
      : w_(w), c_(c), draws_(draws), pool_(pool), f_(f), path_(pool.paths[f]), rng_(rng) {}

  bool partial() const { return partial_; }  // neither created, appended nor read to the end

  template <class More>
  void run(SessionKind kind, PlainReading reading, More more) {
    int flags = kind == SessionKind::kCreate   ? O_RDWR | O_CREAT | O_TRUNC
                : kind == SessionKind::kAppend ? O_WRONLY | O_APPEND
                                               : O_RDWR;
    // Its first session: what it held is not seen yet (a stat before does not show it).
    const bool fresh = !pool_.sized[f_] && pool_.state[f_] != FileState::kAbsent;
    pool_.sized[f_] = true;
    if (kind == SessionKind::kCreate) {
      pool_.create(f_);
    } else {
      pool_.use(f_);
    }
    ++pool_.open[f_];
    w_.emit(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, path_},
                      {ArgType::kOpenFlags, flags, kNoStr}, {ArgType::kMode, kind == SessionKind::kCreate ? 0644 : 0, kNoStr}},
            kSessionFd);
    if (kind == SessionKind::kCreate && u_(rng_) < c_.recreate_same_size_fraction) {
      // Made again with the size it was made with (a file that keeps its size), in the drawn
      // number of writes of equal length.
      const uint64_t total = pool_.made[f_];
      const uint64_t n = std::max<uint64_t>(1, round_count(draws_.create_writes.next(rng_), rng_));
      for (uint64_t k = 0; k < n && position_ < total && more(); ++k)
        write_after_sync(k + 1 == n ? total - position_ : std::max<uint64_t>(1, total / n), false);
    } else if (kind != SessionKind::kPlain) {
      bool create = kind == SessionKind::kCreate;
      const EmpiricalDistribution& writes = create ? c_.create_session_writes : c_.append_session_writes;
      for (uint64_t k = 0, n = round_count(create ? draws_.create_writes.next(rng_) : writes.draw(rng_), rng_); k < n && more(); ++k)
        write_after_sync(create ? length(draws_.create_request.next(rng_)) : draw_length(c_.append_write_request), !create);
    } else if (reading != PlainReading::kPartial) {
      if (reading == PlainReading::kWhole && read_whole()) {
        // one read asking for all of it
      } else if (fresh) {
        read_unseen_to_end(more);
      } else {
        read_to_end(more);
      }
    } else {
      partial_ = true;
      for (uint64_t k = 0, n = partial_length(); k < n && more(); ++k) {
        jumped_ = u_(rng_) >= c_.partial_sequential_fraction;
        if (jumped_) jump();
        transfer(u_(rng_) < c_.partial_read_fraction);
        jumped_ = false;
      }
    }
    if (kind == SessionKind::kCreate) pool_.made[f_] = position_;
    close();
  }

 private:
  static constexpr int64_t kSessionFd = 3;
  static constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();  // models made before the counts

  // The reads of an end-of-file session, as many as such a session made at most (the 0-byte read
  // included; kNoLimit without the counts), and whether it ends with the 0-byte read.
  std::pair<uint64_t, bool> eof_reads() {
    bool zero = u_(rng_) < c_.zero_read_fraction;
    uint64_t reads = c_.eof_session_reads.empty() ? kNoLimit : round_count(c_.eof_session_reads.draw(rng_), rng_);
    if (zero && reads > 0 && reads != kNoLimit) --reads;
    return {reads, zero};
  }
  // Whether a read after a session's first one jumps (eof_jump_fraction): it then reads the
  // file's tail, from `len` before its end, so the session still reaches the end.
  bool draw_jump(uint64_t k) { return k > 0 && u_(rng_) < c_.eof_jump_fraction; }

  // One read asking for all of the file — of a file no larger than the class ever asked for.
  // False when the file is larger.
  bool read_whole() {
    w_.sync();  // the size read is the file's at this call's begin, whoever wrote it
    uint64_t rest = pool_.sizes[f_] > position_ ? pool_.sizes[f_] - position_ : 0;
    if (static_cast<double>(rest) > c_.read_request.quantile(1.0)) return false;
    read(std::max<uint64_t>(1, rest));
    return true;
  }

  // Reads of drawn sizes to the end of a file seen before, at most as many as such a session made
  // (a reader of 8-byte requests stops as it did, whatever the file's size).
  template <class More>
  void read_to_end(More more) {
    auto [reads, zero] = eof_reads();
    for (uint64_t k = 0; k < reads && more() && position_ < pool_.sizes[f_]; ++k) {
      tail_ = draw_jump(k);
      transfer(true);
      tail_ = false;
    }
    if (zero) transfer(true);  // the reader that reads on to the 0
  }

  // The first use of a file reads it to its end in several reads: what the path held before the
  // trace is what these reads moved — a trace shows a file's size no other way — so each read
  // moves a size drawn from the class's and the file's size follows from them (reads cut at a
  // size drawn apart would move less than the class's reads did). Jumping reads re-read its tail.
  template <class More>
  void read_unseen_to_end(More more) {
    auto [reads, zero] = eof_reads();
    if (reads == kNoLimit) reads = 1;
    std::vector<uint64_t> sequential, tails;
    for (uint64_t k = 0; k < reads; ++k) (draw_jump(k) ? tails : sequential).push_back(draw_length(c_.piece_read_size));
    uint64_t size = 0;
    for (uint64_t len : sequential) size += len;
    pool_.sizes[f_] = pool_.initial[f_] = pool_.made[f_] = size;
    for (uint64_t len : sequential) {
      if (!more()) return;
      w_.sync();
      read(len);
    }
    for (uint64_t len : tails) {
      if (!more()) return;
      w_.sync();
      position_ = size > len ? size - len : 0;
      read(len);
    }
    if (zero && more()) {
      w_.sync();
      position_ = pool_.sizes[f_];
      read(draw_length(c_.piece_read_size));
    }
  }

  void close() {
    w_.call(kClose, {{ArgType::kFd, kSessionFd, path_}}, 0);
    --pool_.open[f_];
  }

  // Drawn from the class's session lengths (the transfers on descriptors the trace never opened
  // are the stream's: StreamWriter); geometric with the mean transfers per session when no
  // session length was seen.
  uint64_t partial_length() {
    const EmpiricalDistribution& d = c_.partial_session_length;
    if (d.empty()) {
      std::geometric_distribution<uint64_t> g(1.0 / (1.0 + c_.partial_transfers_per_open));
      return g(rng_);
    }
    return round_count(d.draw(rng_), rng_);
  }

  void jump() {
    uint64_t size = pool_.sizes[f_];
    uint64_t room = size > kAlign ? size - kAlign : 0;
    position_ = room ? (static_cast<uint64_t>(u_(rng_) * static_cast<double>(room)) / kAlign) * kAlign : 0;
  }

  uint64_t draw_length(const EmpiricalDistribution& d) { return length(d.draw(rng_)); }
  static uint64_t length(double x) { return static_cast<uint64_t>(std::max(1.0, std::round(x))); }

  // A pread64 of `len` at the position: what is left (0 at the end of the file). Call after sync().
  void read(uint64_t len) {
    uint64_t size = pool_.sizes[f_];
    uint64_t moved = size > position_ ? std::min(len, size - position_) : 0;
    positioned(kPread64, len, moved);
    position_ += moved;
  }

  // A pread64 or pwrite64 of `len` bytes at the position, returning `moved`.
  void positioned(int nr, uint64_t len, uint64_t moved) {
    w_.emit(nr,
            {{ArgType::kFd, kSessionFd, path_}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, static_cast<int64_t>(len), kNoStr},
             {ArgType::kOffset, static_cast<int64_t>(position_), kNoStr}},
            static_cast<int64_t>(moved));
  }

  // A write of `len` at the position (pwrite64), or, for an append session, a write(2), which
  // the kernel puts at the file's end (whoever made it). Call after sync().
  void write(uint64_t len, bool at_end) {
    if (at_end) {
      position_ = pool_.sizes[f_];
      w_.emit(kWrite, {{ArgType::kFd, kSessionFd, path_}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, static_cast<int64_t>(len), kNoStr}},
              static_cast<int64_t>(len));
    } else {
      positioned(kPwrite64, len, len);
    }
    position_ += len;
    pool_.sizes[f_] = std::max(pool_.sizes[f_], position_);
    if (u_(rng_) < c_.syncs_per_write) w_.call(kFsync, {{ArgType::kFd, kSessionFd, path_}}, 0);
  }

  // A create session's sequential write, or an append session's.
  void write_after_sync(uint64_t len, bool at_end) {
    w_.sync();  // the end is the file's at this call's begin, whoever wrote it
    write(len, at_end);
  }

  // A plain session's transfer. A read at or past the end returns what is left (0 at the end).
  void transfer(bool is_read) {
    uint64_t len = draw_length(is_read ? c_.piece_read_size : c_.plain_write_request);
    w_.sync();  // the size below is the file's size at this call's begin, whoever wrote it
    if (is_read && tail_) position_ = pool_.sizes[f_] > len ? pool_.sizes[f_] - len : 0;
    if (is_read) return read(len);
    uint64_t size = pool_.sizes[f_];
    // A write at a random place rewrites the file in place, as a database page or a block
    // update does: the file's size is kept when it can be.
    if (jumped_ && len <= size) position_ = std::min(position_, (size - len) / kAlign * kAlign);
    write(len, false);
  }

  ThreadWriter& w_;
  const ClassModel& c_;
  ClassDraws& draws_;
  FilePool& pool_;
  size_t f_;
  StrId path_;
  std::mt19937_64& rng_;
  std::uniform_real_distribution<double> u_{0.0, 1.0};
  uint64_t position_ = 0;
  bool jumped_ = false;  // the transfer being made follows a jump to a random offset
  bool tail_ = false;    // the read being made jumps to the file's tail (end-of-file sessions)
  bool partial_ = false;
};

// The file of the next session (or name-space change), by the LRU stack model: a file this thread
// opened before — at a stack distance drawn from the class's reuse distances, the nearest one
// `fits` from there — or a file it has not opened yet, by popularity. A new file is taken with
// the probability the class's working-set curve gives for how far the thread is through its
// files (its share of the class's distinct files per thread, by stratum): early opens are mostly
// new, later ones mostly re-opens, as a thread picking among its files does. Models without the
// curve use the reopen probability. Files only ever read whole (FilePool::whole_only) are never
// its choice. Returns the pool size when no file fits.
class FileChooser {
 public:
  FileChooser(const ClassModel& c, FilePool& pool, std::mt19937_64& rng, double stratum)
      : c_(c), pool_(pool), rng_(rng),
        files_(static_cast<size_t>(std::max(1.0, std::round(c.distinct_files.quantile(stratum))))) {}

  template <class Fits>
  size_t choose(Fits fits_too) {
    auto fits = [&](size_t g) { return !pool_.whole_only[g] && fits_too(g); };
    std::uniform_real_distribution<double> u(0.0, 1.0);
    if (!stack_.empty() && u(rng_) < reopen_probability()) {
      size_t d = static_cast<size_t>(std::max(0.0, std::round(c_.reuse_distance.draw(rng_))));
      size_t from = std::min(d, stack_.size() - 1);
      for (size_t k = 0; k < stack_.size(); ++k) {  // from the drawn depth outwards
        for (size_t at_depth : {from + k, from - std::min(from, k)})
          if (at_depth < stack_.size() && fits(stack_[at_depth])) return stack_[at_depth];
      }
    }
    size_t f = pool_.pick(rng_);
    for (int tries = 0; tries < kNewFileTries && (opened_.count(f) || !fits(f)); ++tries) f = pool_.pick(rng_);
    if (!opened_.count(f) && fits(f)) return f;
    for (size_t g = 0; g < pool_.paths.size(); ++g)  // popularity missed them
      if (!opened_.count(g) && fits(g)) return g;
    for (size_t g : stack_)  // every file fitting was opened: a re-open
      if (fits(g)) return g;
    return pool_.paths.size();
  }
  // The file most recently opened that fits (pool size when none).
  template <class Fits>
  size_t recent(Fits fits_too) const {
    auto fits = [&](size_t g) { return !pool_.whole_only[g] && fits_too(g); };
    for (size_t g : stack_)
      if (fits(g)) return g;
    return pool_.paths.size();
  }
  void opened(size_t f) {
    if (pool_.whole_only[f]) {
      ++whole_opens_;
      whole_files_ += !opened_.count(f);
    }
    auto it = std::find(stack_.begin(), stack_.end(), f);
    if (it != stack_.end()) stack_.erase(it);
    stack_.insert(stack_.begin(), f);
    opened_.insert(f);
  }

 private:
  static constexpr int kNewFileTries = 32;  // then the first file not opened yet; all opened: a re-open

  // Of the opens it chooses: the class's re-opens count the opens of files only read whole too
  // (FilePool::whole_only), which it does not choose and which are mostly re-opens (git's
  // /dev/urandom, 29 opens): the other opens re-open less by what those did, as far as this
  // thread's show (their re-opens / their opens; all re-opens before the first).
  double reopen_probability() const {
    const double q = pool_.whole_only_opens;
    const double whole_reopens = whole_opens_ ? static_cast<double>(whole_opens_ - whole_files_) / static_cast<double>(whole_opens_) : 1.0;
    return q < 1.0 ? std::clamp((all_reopen_probability() - q * whole_reopens) / (1.0 - q), 0.0, 1.0) : 0.0;
  }
  double all_reopen_probability() const {
    if (c_.new_file_curve.size() != kNewFileCurveBins || c_.distinct_files.empty()) return c_.reopen_probability;
    // Past its files, the thread goes on as it did at the end of them.
    size_t k = opened_.size();
    return 1.0 - c_.new_file_curve[std::min(kNewFileCurveBins - 1, k * kNewFileCurveBins / files_)];
  }

  const ClassModel& c_;
  FilePool& pool_;
  std::mt19937_64& rng_;
  size_t files_;  // distinct files this thread opens
  std::vector<size_t> stack_;  // most recently opened first
  std::set<size_t> opened_;
  uint64_t whole_opens_ = 0, whole_files_ = 0;  // opens of whole-only files, and of new ones
};

// The name-space changes of one thread, drawn from the class's namespace mix: unlink and rename
// act on pool files (so creates, removals and re-creations cycle as in the trace), mkdir/rmdir on
// directories it makes, link/symlink/mknod make new names. A drawn failure is the same call on
// a name that is missing (for the calls making a name: in a directory that is missing), ENOENT.
class NamespaceWriter {
 public:
  NamespaceWriter(trace::Trace& t, ThreadWriter& w, const ClassModel& c, FilePool& pool, FileChooser& files,
                  std::mt19937_64& rng)
      : t_(t), w_(w), c_(c), pool_(pool), files_(files), rng_(rng) {
    double kinds = 0;
    for (double k : c.namespace_mix) kinds += k;
    drawn_ = c.namespace_per_open > 0 && kinds > 0;
    if (drawn_) kind_ = std::discrete_distribution<size_t>(c.namespace_mix.begin(), c.namespace_mix.end());
  }

  // The calls before one open: their number geometric with the class's mean per open.
  void before_open() {
    if (!drawn_) return;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double more = c_.namespace_per_open / (1.0 + c_.namespace_per_open);
    while (u(rng_) < more) one(static_cast<NamespaceOp>(kind_(rng_)), u(rng_) < c_.namespace_failed_fraction);
  }

 private:
  static Arg cwd() { return {ArgType::kDirFd, kAtFdcwd, kNoStr}; }
  static Arg path(StrId p) { return {ArgType::kPath, 0, p}; }

  void one(NamespaceOp op, bool fail) {
    w_.sync();  // decided at this call's begin: other threads' changes before it are seen
    const size_t none = pool_.paths.size();
    auto closed_and_there = [&](size_t f) { return pool_.usable(f) && pool_.open[f] == 0; };
    switch (op) {
      case NamespaceOp::kUnlink: {
        size_t f = fail ? none : files_.choose(closed_and_there);
        if (f == none) return w_.emit(kUnlinkat, {cwd(), path(missing()), {ArgType::kAtFlags, 0, kNoStr}}, -ENOENT);
        pool_.remove(f);
        return w_.emit(kUnlinkat, {cwd(), path(pool_.paths[f]), {ArgType::kAtFlags, 0, kNoStr}}, 0);
      }
      case NamespaceOp::kRename: {
        size_t from = fail ? none : files_.recent(closed_and_there);
        size_t to = from == none ? none : files_.choose([&](size_t g) { return g != from && pool_.open[g] == 0; });
        if (to == none) return w_.emit(kRenameat, {cwd(), path(missing()), cwd(), path(pool_.paths[0])}, -ENOENT);
        pool_.use(from);
        pool_.sized[from] = pool_.sized[to] = true;
        uint64_t size = pool_.sizes[from];
        if (pool_.state[to] == FileState::kFresh) pool_.state[to] = FileState::kAbsent;  // a name it makes
        pool_.create(to);
        pool_.sizes[to] = size;
        pool_.remove(from);
        return w_.emit(kRenameat, {cwd(), path(pool_.paths[from]), cwd(), path(pool_.paths[to])}, 0);
      }
      case NamespaceOp::kMkdir: {
        if (fail) return w_.emit(kMkdirat, {cwd(), path(in_missing_dir()), {ArgType::kMode, 0755, kNoStr}}, -ENOENT);
        StrId d = pool_.new_name(t_, 'd');
        pool_.made_dirs.push_back(d);
        return w_.emit(kMkdirat, {cwd(), path(d), {ArgType::kMode, 0755, kNoStr}}, 0);
      }
      case NamespaceOp::kRmdir: {
        if (fail) return w_.emit(kRmdir, {path(missing())}, -ENOENT);
        // The directory made last, else one the trace needs to have existed (replay --init makes it).
        StrId d = pool_.made_dirs.empty() ? pool_.new_name(t_, 'e') : pool_.made_dirs.back();
        if (!pool_.made_dirs.empty()) pool_.made_dirs.pop_back();
        return w_.emit(kRmdir, {path(d)}, 0);
      }
      case NamespaceOp::kLink: {
        size_t from = fail ? none : files_.recent(closed_and_there);
        if (from == none)
          return w_.emit(kLinkat, {cwd(), path(missing()), cwd(), path(pool_.new_name(t_, 'l')), {ArgType::kAtFlags, 0, kNoStr}}, -ENOENT);
        pool_.use(from);
        return w_.emit(kLinkat, {cwd(), path(pool_.paths[from]), cwd(), path(pool_.new_name(t_, 'l')), {ArgType::kAtFlags, 0, kNoStr}}, 0);
      }
      case NamespaceOp::kSymlink:
        return w_.emit(kSymlinkat, {path(pool_.paths[0]), cwd(), path(fail ? in_missing_dir() : pool_.new_name(t_, 's'))},
                       fail ? -ENOENT : 0);
      case NamespaceOp::kMknod:
        return w_.emit(kMknodat, {cwd(), path(fail ? in_missing_dir() : pool_.new_name(t_, 'n')),
                                  {ArgType::kMode, S_IFREG | 0644, kNoStr}, {ArgType::kInt, 0, kNoStr}},
                       fail ? -ENOENT : 0);
    }
  }

  StrId missing() { return pool_.new_name(t_, 'm'); }  // a name never made
  StrId in_missing_dir() { return t_.strings.intern(fmt::format("{}/x", t_.str(missing()))); }

  trace::Trace& t_;
  ThreadWriter& w_;
  const ClassModel& c_;
  FilePool& pool_;
  FileChooser& files_;
  std::mt19937_64& rng_;
  bool drawn_ = false;  // the class changes names (a mean per open and kinds to draw from)
  std::discrete_distribution<size_t> kind_;
};

// Transfers on descriptors the trace never opened (a pipe, an inherited stdout), after each
// partial session as many as the class made per such session: on /dev/zero, opened once when
// first needed and closed at the thread's end — a file every replayer emulates (each call returns
// what the trace says: replay/runtime/special_file.h), and one file, not sessions on pool files
// whose sizes and session lengths they would change.
//
// Their number and their reads are spread systematically (a running credit from a random start,
// a transfer whenever it passes 1), not drawn per session: a geometric count per session added
// its variance m (1 + m) to every session's — tar's model (18 partial sessions, 1.39 transfers
// each) then made 50 stream transfers on seed 1 instead of 25, doubling the write share.
class StreamWriter {
 public:
  StreamWriter(trace::Trace& t, ThreadWriter& w, const ClassModel& c, std::mt19937_64& rng)
      : w_(w), c_(c), rng_(rng), path_(t.strings.intern("/dev/zero")) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    transfer_credit_ = u(rng_);
    read_credit_ = u(rng_);
  }

  template <class More>
  void after_partial_session(More more) {
    transfer_credit_ += c_.sessionless_per_partial_session();
    for (; transfer_credit_ >= 1.0 && more(); transfer_credit_ -= 1.0) transfer();
  }
  void finish() {
    if (open_) w_.call(kClose, {{ArgType::kFd, kStreamFd, path_}}, 0);
  }

 private:
  static constexpr int64_t kStreamFd = 4;  // the sessions' is 3

  void transfer() {
    if (!open_) {
      w_.call(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, path_},
                        {ArgType::kOpenFlags, O_RDWR, kNoStr}, {ArgType::kMode, 0, kNoStr}},
              kStreamFd);
      open_ = true;
    }
    read_credit_ += c_.partial_read_fraction;
    const bool read = read_credit_ >= 1.0;
    if (read) read_credit_ -= 1.0;
    const EmpiricalDistribution& sizes = read ? c_.piece_read_size : c_.plain_write_request.empty() ? c_.write_request : c_.plain_write_request;
    const int64_t len = static_cast<int64_t>(std::max(1.0, std::round(sizes.draw(rng_))));
    w_.call(read ? kRead : kWrite, {{ArgType::kFd, kStreamFd, path_}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, len, kNoStr}},
            len);
  }

  ThreadWriter& w_;
  const ClassModel& c_;
  std::mt19937_64& rng_;
  StrId path_;
  bool open_ = false;
  double transfer_credit_ = 0.0, read_credit_ = 0.0;  // in [0, 1) between transfers
};

// Thread i of n takes the (i + 0.5) / n quantile of the class's calls per thread and start times,
// so a model of a few threads is synthesized with the same spread, not a random pick of it.
int64_t thread_start(const ClassModel& c, double stratum) {
  return static_cast<int64_t>(std::max(0.0, c.start_ns.quantile(stratum)));
}

void synthesize_thread(trace::Trace& t, const ClassModel& c, ClassDraws& draws, FilePool& pool, int32_t id, double stratum,
                       const SynthOptions& o, std::mt19937_64& rng, TurnScheduler* turns = nullptr, size_t turn = 0) {
  int64_t start = thread_start(c, stratum);
  // Calls per thread count every call of the mix; "other" calls (mmap, fcntl, ...) are not
  // synthesized, so the synthesized calls stop at their share: the thread then opens as many
  // files as the traced ones, instead of filling their budget with more sessions.
  double synthesized_share = 1.0 - c.mix[category_index(OpCategory::kOther)];
  uint64_t target =
      static_cast<uint64_t>(std::max(1.0, std::round(c.calls_per_thread.quantile(stratum) * synthesized_share)));
  int64_t stop = o.duration_s ? start + static_cast<int64_t>(*o.duration_s * 1e9) : 0;
  ThreadWriter w(t, id, start, c, pool, rng, turns, turn);
  FileChooser files(c, pool, rng, stratum);
  NamespaceWriter names(t, w, c, pool, files, rng);
  StreamWriter stream(t, w, c, rng);
  SessionPlan plan(c, rng);
  auto more = [&] { return o.duration_s ? w.now() < stop : w.calls() < target; };
  // A session is cut short only at the end of a --scale duration: cutting it at a call count
  // would bias the transfers per open down.
  auto in_session = [&] { return !o.duration_s || w.now() < stop; };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const size_t none = pool.paths.size();
  while (more()) {
    names.before_open();
    if (!more()) break;
    if (u(rng) < c.failed_open_fraction) {  // a probe for a file that does not exist
      w.sync();
      w.emit(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, pool.new_name(t, 'm')},
                       {ArgType::kOpenFlags, O_RDONLY, kNoStr}, {ArgType::kMode, 0, kNoStr}}, -ENOENT);
      continue;
    }
    auto [kind, reading] = plan.next();
    const bool whole_file = kind == SessionKind::kPlain && reading == PlainReading::kWhole && !pool.whole.empty() &&
                            u(rng) < c.whole_read_file_share();
    w.sync();  // the file is chosen at the open's begin: removals and creations before it are seen
    auto closed = [&](size_t g) { return pool.open[g] == 0; };
    auto usable = [&](size_t g) { return pool.usable(g); };
    size_t f = none;
    if (whole_file) {  // a file read whole as it is, as traced (gone: any file)
      f = pool.whole.next();
      if (!pool.usable(f)) f = none;
    }
    if (kind == SessionKind::kCreate) {  // a name that is gone first (the removal -> creation cycle), then any
      f = files.choose([&](size_t g) { return !pool.usable(g) && closed(g); });
      if (f == none) f = files.choose(closed);
      if (f == none) kind = SessionKind::kPlain;  // every file is in another thread's session
    }
    if (f == none) f = files.choose(usable);
    if (f == none) {  // nothing left to open as it is: create a removed file again
      kind = SessionKind::kCreate;
      f = files.choose(closed);
    }
    if (f == none) {  // cannot happen (a file in a session is there): a probe keeps the thread going
      w.emit(kOpenat, {{ArgType::kDirFd, kAtFdcwd, kNoStr}, {ArgType::kPath, 0, pool.new_name(t, 'm')},
                       {ArgType::kOpenFlags, O_RDONLY, kNoStr}, {ArgType::kMode, 0, kNoStr}}, -ENOENT);
      continue;
    }
    files.opened(f);
    Session session(w, c, draws, pool, f, rng);
    session.run(kind, reading, in_session);
    if (session.partial()) stream.after_partial_session(in_session);
  }
  stream.finish();
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
    for (size_t f = 0; f < pool.paths.size(); ++f)
      if (pool.preexisting[f]) initial_sizes[pool.paths[f]] = pool.initial[f];
  };
  int32_t id = kFirstId;
  for (size_t k = 0; k < model.classes.size(); ++k) {
    const ClassModel& c = model.classes[k];
    if (per_class[k] == 0) continue;
    const uint64_t n = per_class[k];
    auto stratum = [n](uint64_t i) { return (static_cast<double>(i) + 0.5) / static_cast<double>(n); };
    for (uint64_t i = 0; i < n; ++i) classes[std::to_string(id + static_cast<int32_t>(i))] = c.name;
    ClassDraws draws(c, rng);
    if (c.shares_files() && n > 1 && n <= kMaxTurnThreads) {
      // One pool for the class; its threads generated together, in turns (one OS thread each).
      FilePool pool = make_pool(c, -1, t, rng);
      std::vector<int64_t> starts;
      for (uint64_t i = 0; i < n; ++i) starts.push_back(thread_start(c, stratum(i)));
      TurnScheduler turns(starts);
      std::vector<std::thread> generators;
      for (uint64_t i = 0; i < n; ++i)
        generators.emplace_back([&, i, tid = id + static_cast<int32_t>(i)] {
          turns.arrive(i, starts[i]);
          synthesize_thread(t, c, draws, pool, tid, stratum(i), options, rng, &turns, i);
          turns.leave(i);
        });
      for (auto& g : generators) g.join();
      remember_initial_sizes(pool);
    } else {
      if (c.shares_files() && n > kMaxTurnThreads)
        notes.push_back(fmt::format("class {}: {} threads, above {}: files not shared between them", c.name, n,
                                    kMaxTurnThreads));
      for (uint64_t i = 0; i < n; ++i) {
        FilePool pool = make_pool(c, id + static_cast<int32_t>(i), t, rng);
        synthesize_thread(t, c, draws, pool, id + static_cast<int32_t>(i), stratum(i), options, rng);
        remember_initial_sizes(pool);
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
