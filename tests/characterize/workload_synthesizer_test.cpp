#include "characterize/workload_synthesizer.h"

#include <fcntl.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "characterize/model_validation.h"
#include "characterize/workload_characterizer.h"
#include "common/error.h"
#include "tests/characterize/namespace_cycle_trace.h"
#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

WorkloadModel two_class_model() { return characterize(testing::two_class_trace(6, 3), "two").model; }

TEST(WorkloadSynthesizer, RoundTripIsWithinTolerance) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  o.threads = 30;  // enough threads that the drawn samples are large
  trace::Trace s = synthesize(m, o);
  ValidationReport r = validate_synthetic(m, s);
  EXPECT_TRUE(r.pass()) << validation_markdown(r);
  EXPECT_GT(r.checks.size(), 20u);
}

TEST(WorkloadSynthesizer, ScaleThreadsAndLabels) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  parse_scale("threads=12", o);
  trace::Trace s = synthesize(m, o);
  std::set<int32_t> tids;
  for (const trace::Event& e : s.events) tids.insert(e.tid);
  EXPECT_EQ(tids.size(), 12u);
  const auto& labels = s.header.settings.at("classes");
  int readers = 0;
  for (const auto& [tid, cls] : labels.items()) readers += cls == "c0";
  EXPECT_EQ(readers, 8);  // 6/9 of 12
  for (size_t i = 1; i < s.events.size(); ++i) ASSERT_LE(s.events[i - 1].begin_ns, s.events[i].begin_ns);
}

TEST(WorkloadSynthesizer, DurationBoundsEachThread) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  parse_scale("duration=0.05,threads=3", o);
  trace::Trace s = synthesize(m, o);
  std::map<int32_t, std::pair<int64_t, int64_t>> span;
  for (const trace::Event& e : s.events) {
    auto [it, added] = span.try_emplace(e.tid, e.begin_ns, e.begin_ns);
    it->second.second = std::max(it->second.second, e.begin_ns);
  }
  ASSERT_EQ(span.size(), 3u);
  for (const auto& [tid, se] : span) {
    EXPECT_LT(se.second - se.first, 51'000'000) << tid;  // + the session's close
    EXPECT_GT(se.second - se.first, 40'000'000) << tid;  // long past the model's own calls per thread
  }
}

TEST(WorkloadSynthesizer, SameSeedSameTrace) {
  WorkloadModel m = two_class_model();
  EXPECT_EQ(synthesize(m, {}).events, synthesize(m, {}).events);
  SynthOptions other;
  other.seed = 2;
  EXPECT_NE(synthesize(m, {}).events, synthesize(m, other).events);
}

TEST(WorkloadSynthesizer, BadScaleIsRefused) {
  SynthOptions o;
  EXPECT_THROW(parse_scale("threads=0", o), Error);
  EXPECT_THROW(parse_scale("threads=4x", o), Error);
  EXPECT_THROW(parse_scale("duration=-1", o), Error);
  EXPECT_THROW(parse_scale("speed=2", o), Error);
  EXPECT_THROW(parse_scale("threads", o), Error);
}

// The validation must be able to fail: a model whose read sizes differ from what was drawn.
TEST(ModelValidation, DetectsAMismatch) {
  WorkloadModel m = two_class_model();
  trace::Trace s = synthesize(m, {});
  WorkloadModel wrong = m;
  wrong.classes[0].read_size.atoms = {4096};
  wrong.classes[0].sequential_fraction = 0.2;
  ValidationReport r = validate_synthetic(wrong, s);
  EXPECT_FALSE(r.pass());
  std::set<std::string> failed;
  for (const FeatureCheck& c : r.checks)
    if (!c.pass && c.scope == "c0") failed.insert(c.feature);
  EXPECT_TRUE(failed.count("read_size")) << validation_markdown(r);
  EXPECT_TRUE(failed.count("sequential_fraction")) << validation_markdown(r);
  trace::Trace unlabeled = testing::two_class_trace();
  EXPECT_THROW(validate_synthetic(m, unlabeled), Error);
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// Replays the name space and the sizes a trace implies, in begin order, from the sizes declared
// for the files that existed before it — checked independently of the synthesizer's own
// bookkeeping: an open without O_CREAT, a stat, an unlink or a rename succeeds exactly when its
// file is there; a pread64 returns what the file held at that moment (count, or what is left
// before the end, 0 past it); O_TRUNC empties a file, write(2) (O_APPEND) adds at its end.
void expect_calls_consistent_with_file_state(const trace::Trace& s, const std::map<trace::StrId, uint64_t>& initial) {
  std::map<trace::StrId, uint64_t> size = initial;  // the files there now
  for (const trace::Event& e : s.events) {
    const std::string name(trace::function_name(e, s.strings));
    const bool ok = e.rvalue >= 0;
    if (e.nargs > 0 && e.arg(0).str != trace::kNoStr && s.str(e.arg(0).str) == "/dev/zero") continue;  // the stream
    if (e.nargs > 1 && e.arg(1).str != trace::kNoStr && s.str(e.arg(1).str) == "/dev/zero") continue;
    auto there = [&](trace::StrId f) { return size.count(f) > 0; };
    if (name == "openat") {
      const trace::StrId f = e.arg(1).str;
      const int64_t flags = e.arg(2).value;
      if (!(flags & O_CREAT)) {
        ASSERT_EQ(ok, there(f)) << "event " << e.seq << ": open of " << s.str(f);
      } else if ((flags & O_TRUNC) || !there(f)) {
        size[f] = 0;
      }
    } else if (name == "newfstatat" || name == "unlinkat") {
      const trace::StrId f = e.arg(1).str;
      if (s.str(f).find("/f") == std::string::npos) continue;  // a directory or a made name
      ASSERT_EQ(ok, there(f)) << "event " << e.seq << ": " << name << " of " << s.str(f);
      if (name == "unlinkat") size.erase(f);
    } else if (name == "renameat" && ok) {
      const trace::StrId from = e.arg(1).str, to = e.arg(3).str;
      ASSERT_TRUE(there(from)) << "event " << e.seq << ": rename of " << s.str(from);
      size[to] = size[from];
      size.erase(from);
    } else if (name == "pwrite64" || name == "write" || name == "pread64") {
      const trace::StrId f = e.arg(0).str;
      ASSERT_TRUE(there(f)) << "event " << e.seq << ": " << name << " on " << s.str(f) << ", which is not there";
      const uint64_t count = static_cast<uint64_t>(e.arg(2).value);
      if (name == "write") {
        size[f] += count;
        continue;
      }
      const uint64_t off = static_cast<uint64_t>(e.arg(3).value);
      if (name == "pwrite64") {
        size[f] = std::max(size[f], off + count);
      } else {
        const uint64_t expect = size[f] > off ? std::min(count, size[f] - off) : 0;
        ASSERT_EQ(static_cast<uint64_t>(e.rvalue), expect) << "event " << e.seq << " on " << s.str(f);
      }
    }
  }
}

// Which threads used each synthetic file.
std::map<std::string, std::set<int32_t>> threads_by_synthetic_path(const trace::Trace& s) {
  std::map<std::string, std::set<int32_t>> threads_of;
  for (const trace::Event& e : s.events)
    for (int a = 0; a < e.nargs; ++a)
      if (e.arg(a).str != trace::kNoStr && s.str(e.arg(a).str).rfind("/synth/", 0) == 0)
        threads_of[std::string(s.str(e.arg(a).str))].insert(e.tid);
  return threads_of;
}

// The sizes the header declares the files had before the trace (initial_files, for --init).
std::map<trace::StrId, uint64_t> declared_initial_sizes(const trace::Trace& s) {
  std::map<trace::StrId, uint64_t> initial;
  for (const auto& [path, size] : s.header.settings.at("initial_files").items()) {
    trace::StrId id = trace::kNoStr;
    if (!s.strings.find(path, &id)) ADD_FAILURE() << "initial_files names " << path << ", which no event uses";
    initial[id] = size.get<uint64_t>();
  }
  return initial;
}

// The two-class model with every class's shared-file fraction set, synthesized with `threads`.
trace::Trace synthesize_sharing(double shared_file_fraction, uint64_t threads) {
  WorkloadModel m = two_class_model();
  for (auto& c : m.classes) c.shared_file_fraction = shared_file_fraction;
  SynthOptions o;
  o.threads = threads;
  return synthesize(m, o);
}

TEST(WorkloadSynthesizer, AClassThatSharedItsFilesSharesThemAndReadsSeeEveryEarlierWrite) {
  // 12 threads are 8 readers on the readers' pool of 6 files and 4 writers on the writers' 3, and
  // every thread opens at least one file: by the pigeonhole principle two threads of a class open
  // the same file whatever the random stream: the chance they share none is 0 (with 6 threads —
  // 4 readers, 2 writers — it was not, and some streams gave every thread its own file).
  trace::Trace s = synthesize_sharing(1.0, 12);
  const auto threads_of = threads_by_synthetic_path(s);
  size_t shared = 0;
  for (const auto& [path, tids] : threads_of) {
    EXPECT_EQ(path.find("/t"), std::string::npos) << path;  // no per-thread directory
    shared += tids.size() > 1;
  }
  EXPECT_GT(shared, 0u);
  // The sizes the files had before the trace are in the header (initial_files, for replay
  // --init); from them, every read must return what earlier writes of any thread left.
  const auto initial = declared_initial_sizes(s);
  ASSERT_FALSE(initial.empty());
  expect_calls_consistent_with_file_state(s, initial);
}

TEST(WorkloadSynthesizer, AClassThatDidNotShareKeepsFilesPerThread) {
  trace::Trace s = synthesize_sharing(0.0, 4);
  const auto threads_of = threads_by_synthetic_path(s);
  for (const auto& [path, tids] : threads_of) EXPECT_EQ(tids.size(), 1u) << path;
  const auto initial = declared_initial_sizes(s);
  expect_calls_consistent_with_file_state(s, initial);
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

size_t count_calls(const trace::Trace& t, std::string_view function) {
  size_t n = 0;
  for (const trace::Event& e : t.events) n += trace::function_name(e, t.strings) == function;
  return n;
}

// A fileserver-like workload (create, append, whole read, unlink on a shared directory): the
// synthetic trace has the same cycles — unlinks, files created again, appends — and every
// feature round-trips, the namespace mix and session kinds included, on seeds 1-5. Except the
// file sizes (and the whole reads, which read them): each path's largest extent depends on how
// many incarnations the synthesizer gives it, which the model does not say — their KS distance
// is above its tolerance (~0.30 and ~0.11) on about half the seeds, before and after the whole
// reads were tied to their files (11 and 13 of seeds 1-20), at most 0.40 and 0.15: held below
// 0.45 and 0.2 here; docs/characterize.md, Known gaps.
TEST(WorkloadSynthesizer, NamespaceCyclesRoundTrip) {
  WorkloadModel m = characterize(testing::fileserver_like_trace(3, 80), "fs-like").model;
  ASSERT_EQ(m.classes.size(), 1u);
  const ClassModel& c = m.classes[0];
  EXPECT_NEAR(c.create_fraction, 1.0 / 3, 1e-9);
  EXPECT_NEAR(c.append_fraction, 1.0 / 3, 1e-9);
  EXPECT_EQ(c.namespace_mix[static_cast<size_t>(NamespaceOp::kUnlink)], 1.0);
  EXPECT_NEAR(c.namespace_per_open, 1.0 / 3, 1e-9);
  EXPECT_GT(c.shared_file_fraction, 0.5);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SynthOptions o;
    o.threads = 6;
    o.seed = seed;
    trace::Trace s = synthesize(m, o);
    ValidationReport r = validate_synthetic(m, s);
    std::set<std::string> checked;
    for (const FeatureCheck& k : r.checks) {
      checked.insert(k.feature);
      if (k.feature == "file_size") EXPECT_LT(k.distance, 0.45) << "seed " << seed;
      else if (k.feature == "read_size") EXPECT_LT(k.distance, 0.2) << "seed " << seed;
      else EXPECT_TRUE(k.pass) << "seed " << seed << ": " << k.feature << "\n" << validation_markdown(r);
    }
    for (const char* f : {"mix.namespace", "namespace.unlink", "create_fraction", "append_fraction", "file_size", "reuse_fraction"})
      EXPECT_TRUE(checked.count(f)) << f;
    EXPECT_GT(count_calls(s, "unlinkat"), 100u);
    expect_calls_consistent_with_file_state(s, declared_initial_sizes(s));
  }
}

// Every kind of name-space change is drawn, each on a name that is there (or, failing, not).
TEST(WorkloadSynthesizer, EveryNamespaceKindIsDrawn) {
  WorkloadModel m = characterize(testing::fileserver_like_trace(2, 40), "fs-like").model;
  ClassModel& c = m.classes[0];
  c.namespace_mix = {0.3, 0.2, 0.15, 0.15, 0.1, 0.05, 0.05};
  c.namespace_failed_fraction = 0.1;
  SynthOptions o;
  o.threads = 4;
  trace::Trace s = synthesize(m, o);
  for (const char* f : {"unlinkat", "renameat", "mkdirat", "rmdir", "linkat", "symlinkat", "mknodat"})
    EXPECT_GT(count_calls(s, f), 0u) << f;
  expect_calls_consistent_with_file_state(s, declared_initial_sizes(s));
  ValidationReport r = validate_synthetic(m, s);
  for (const FeatureCheck& k : r.checks) {
    if (k.feature.rfind("namespace.", 0) == 0) {
      EXPECT_TRUE(k.pass) << k.feature << " " << k.model << " vs " << k.synthetic;
    }
  }
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// Threads that read files to their end in two ways, 10 files each: a loader reading a library's
// header (832 bytes at 0) and then its program headers again (784 at 64: a jump back, the end of
// what the trace shows of the file), and a reader of 4096-byte requests going on to the 0-byte read.
trace::Trace loader_and_reader_trace(int threads) {
  trace::Trace t;
  for (int32_t id = 100; id < 100 + threads; ++id) {
    int64_t clock = 1000 * id;
    testing::CallWriter w(t, id, clock);
    for (int i = 0; i < 10; ++i) {
      trace::StrId lib = w.path("/lib/" + std::to_string(id) + "/" + std::to_string(i));
      w.open(lib, O_RDONLY);
      w.read(lib, 832, 832);
      w(17, 784, {{trace::ArgType::kFd, 3, lib}, {trace::ArgType::kBuf, 0, trace::kNoStr},
                  {trace::ArgType::kCount, 784, trace::kNoStr}, {trace::ArgType::kOffset, 64, trace::kNoStr}});  // pread64
      w.close(lib);
      trace::StrId data = w.path("/d/" + std::to_string(id) + "/" + std::to_string(i));
      w.open(data, O_RDONLY);
      w.read(data, 4096, 4096);
      w.read(data, 4096, 1000 + 100 * i);
      w.read(data, 4096, 0);
      w.close(data);
    }
  }
  testing::finish(t);
  return t;
}

// The loader's jump back is in the model (half the reads after a session's first jumped) and in
// the synthetic trace: its sequential fraction and read sizes round-trip, and every read returns
// what the file declared before the trace held. (File sizes do not: a first reading's sizes are
// drawn one by one, so the loader's 832 + 784 and the reader's 4096 + rest mix.)
TEST(WorkloadSynthesizer, EndOfFileSessionsJumpAsTraced) {
  WorkloadModel m = characterize(loader_and_reader_trace(4), "loader").model;
  ASSERT_EQ(m.classes.size(), 1u);
  const ClassModel& c = m.classes[0];
  EXPECT_NEAR(c.eof_jump_fraction, 0.5, 1e-9);
  EXPECT_NEAR(c.sequential_fraction, 0.75, 1e-9);
  EXPECT_NEAR(c.eof_session_fraction, 1.0, 1e-9);
  SynthOptions o;
  o.threads = 24;
  trace::Trace s = synthesize(m, o);
  ValidationReport r = validate_synthetic(m, s);
  for (const FeatureCheck& k : r.checks) {
    if (k.feature == "sequential_fraction" || k.feature == "read_size") {
      EXPECT_TRUE(k.pass) << validation_markdown(r);
    }
  }
  expect_calls_consistent_with_file_state(s, declared_initial_sizes(s));
  // Without the jumps in the model, every synthetic transfer is sequential: the check can fail.
  WorkloadModel straight = m;
  straight.classes[0].eof_jump_fraction = 0.0;
  for (const FeatureCheck& k : validate_synthetic(m, synthesize(straight, o)).checks) {
    if (k.feature == "sequential_fraction") {
      EXPECT_FALSE(k.pass) << k.synthetic;
    }
  }
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// Transfers on descriptors the trace never opened (a pipe; /dev/zero in the synthetic trace)
// follow the partial sessions at the class's mean per session, spread evenly: per thread within
// about one transfer of mean x sessions, and their reads within one of the read share, on every
// seed. (Drawn as a geometric count per session they strayed by its standard deviation,
// sqrt(n m (1 + m)): tar's model made twice its traced writes on seed 1.)
TEST(WorkloadSynthesizer, StreamTransfersFollowThePartialSessionsAtTheClassMean) {
  constexpr double kPerSession = 1.39, kReadShare = 0.36;
  WorkloadModel m = two_class_model();
  for (ClassModel& c : m.classes) {
    c.eof_session_fraction = c.create_fraction = c.append_fraction = 0.0;
    c.failed_open_fraction = c.namespace_per_open = 0.0;
    c.partial_session_length = summarize(std::vector<double>{0.0, 0.0});
    c.partial_transfers_per_open = kPerSession;
    c.partial_read_fraction = kReadShare;
  }
  ASSERT_NEAR(m.classes[0].sessionless_per_partial_session(), kPerSession, 1e-12);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SynthOptions o;
    o.threads = 4;
    o.seed = seed;
    const trace::Trace s = synthesize(m, o);
    std::map<int32_t, double> sessions, stream, stream_reads;
    for (const trace::Event& e : s.events) {
      const std::string name(trace::function_name(e, s.strings));
      const bool on_zero = e.nargs > 0 && e.arg(0).str != trace::kNoStr && s.str(e.arg(0).str) == "/dev/zero";
      if (name == "openat" && e.rvalue == 3) sessions[e.tid] += 1;
      if (on_zero && (name == "read" || name == "write")) {
        stream[e.tid] += 1;
        stream_reads[e.tid] += name == "read";
      }
    }
    ASSERT_EQ(sessions.size(), 4u);
    for (const auto& [tid, n] : sessions) {
      ASSERT_GT(n, 20) << tid;
      // The last session's transfers may be cut by the thread's call budget.
      EXPECT_GE(stream[tid], kPerSession * n - kPerSession - 1) << "seed " << seed << " thread " << tid;
      EXPECT_LE(stream[tid], kPerSession * n + 1) << "seed " << seed << " thread " << tid;
      EXPECT_NEAR(stream_reads[tid], kReadShare * stream[tid], 1.0) << "seed " << seed << " thread " << tid;
    }
  }
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// The stat calls hold the class's metadata share per thread to about one call, on every seed
// (drawn per call, their count strayed by its binomial-geometric noise: tar's 0.35 came out 0.28).
TEST(WorkloadSynthesizer, StatCallsHoldTheMetadataShareOnEverySeed) {
  WorkloadModel m = two_class_model();
  constexpr double kMeta = 0.35;
  for (ClassModel& c : m.classes) {
    OpMix mix{};
    mix[static_cast<size_t>(OpCategory::kMeta)] = kMeta;
    for (size_t k = 0; k < kOpCategories; ++k)
      if (k != static_cast<size_t>(OpCategory::kMeta) && k != static_cast<size_t>(OpCategory::kOther))
        mix[k] = c.mix[k] / (1.0 - c.mix[static_cast<size_t>(OpCategory::kMeta)] - c.mix[static_cast<size_t>(OpCategory::kOther)]) *
                 (1.0 - kMeta);
    c.mix = mix;
  }
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SynthOptions o;
    o.threads = 4;
    o.seed = seed;
    const trace::Trace s = synthesize(m, o);
    std::map<int32_t, double> stats, others;
    for (const trace::Event& e : s.events) (trace::function_name(e, s.strings) == "newfstatat" ? stats : others)[e.tid] += 1;
    ASSERT_EQ(others.size(), 4u);
    for (const auto& [tid, n] : others) {
      ASSERT_GT(n, 50) << tid;
      EXPECT_NEAR(stats[tid], kMeta / (1 - kMeta) * n, 1.0) << "seed " << seed << " thread " << tid;
    }
  }
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// One thread reading an 8-byte file whole 20 times (git reading /dev/urandom for each object
// name) between 10 creations of 64 KiB files: the model says which file is read whole and how
// large it is, and the synthetic whole reads are of that size — not of a file drawn from sizes
// pooling the 64 KiB files written (whose reads in 8-byte requests then took thousands of calls).
trace::Trace tiny_file_read_whole_trace() {
  trace::Trace t;
  int64_t clock = 0;
  testing::CallWriter w(t, 100, clock);
  const trace::StrId tiny = w.path("/dev/urandom");
  for (int i = 0; i < 20; ++i) {
    w.open(tiny, O_RDONLY);
    w.read(tiny, 8, 8);
    w.close(tiny);
    if (i % 2 == 0) {
      const trace::StrId big = w.path("/objects/" + std::to_string(i));
      w.open(big, O_RDWR | O_CREAT | O_TRUNC);
      w.write(big, 65536);
      w.close(big);
    }
  }
  testing::finish(t);
  return t;
}

TEST(WorkloadSynthesizer, TheFileReadWholeIsTheTinyOneAndKeepsItsSize) {
  const WorkloadModel m = characterize(tiny_file_read_whole_trace(), "tiny").model;
  ASSERT_EQ(m.classes.size(), 1u);
  const ClassModel& c = m.classes[0];
  ASSERT_EQ(c.popularity.size(), 11u);
  EXPECT_NEAR(c.popularity[0], 20.0 / 30, 1e-9);  // the tiny file is the most opened
  EXPECT_NEAR(c.whole_read_share[0], 20.0 / 30, 1e-9);
  EXPECT_EQ(c.whole_read_size[0], 8u);
  for (size_t r = 1; r < c.popularity.size(); ++r) EXPECT_EQ(c.whole_read_share[r], 0.0) << r;  // written files
  for (uint64_t seed : {1u, 2u, 3u}) {
    SynthOptions o;
    o.threads = 4;
    o.seed = seed;
    const trace::Trace s = synthesize(m, o);
    size_t reads = 0;
    for (const trace::Event& e : s.events) {
      if (trace::function_name(e, s.strings) != "pread64") continue;
      ++reads;
      EXPECT_EQ(e.arg(2).value, 8) << "seed " << seed << ", read " << e.seq;
      EXPECT_EQ(e.rvalue, 8) << "seed " << seed << ", read " << e.seq;
    }
    EXPECT_GT(reads, 40u) << "seed " << seed;  // 4 threads of 20 whole reads in 30 opens
    EXPECT_LT(reads, 120u) << "seed " << seed;
    ValidationReport r = validate_synthetic(m, s);
    EXPECT_TRUE(r.pass()) << "seed " << seed << "\n" << validation_markdown(r);
  }
}

// A version-1 model (made before the whole reads were tied to their files) still loads and
// synthesizes; its whole reads fall on the files as they are.
TEST(WorkloadSynthesizer, AVersionOneModelStillSynthesizes) {
  nlohmann::json j = to_json(characterize(tiny_file_read_whole_trace(), "tiny").model);
  j["rastro_workload_model"] = 1;
  for (auto& c : j["classes"]) {
    c.erase("whole_read_share");
    c.erase("whole_read_size");
    c.erase("piece_read_size");
  }
  const WorkloadModel m = model_from_json(j, "v1.json");
  EXPECT_TRUE(m.classes[0].whole_read_share.empty());
  EXPECT_EQ(m.classes[0].piece_read_size.count, m.classes[0].read_size.count);
  EXPECT_FALSE(synthesize(m, {}).events.empty());
}

}  // namespace
}  // namespace rastro::characterize
