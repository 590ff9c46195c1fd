// The real run executor: each experiment is a few rastro sub-commands run as child processes,
// exactly as a user would type them, inside the campaign's work directory.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "campaign/cache_state.h"
#include "campaign/cpu_pinning.h"
#include "campaign/deferred_deletion.h"
#include "campaign/fio_job.h"
#include "campaign/measurement.h"
#include "campaign/mpi_job_measurement.h"
#include "campaign/run_executor.h"
#include "campaign/subprocess.h"
#include "capture/common/backend.h"
#include "common/background_load.h"
#include "common/drop_caches.h"
#include "common/env_inventory.h"
#include "common/error.h"
#include "mpi/launch_env.h"
#include "trace/analysis/concurrency.h"
#include "trace/io/trace_io.h"

namespace fs = std::filesystem;

namespace rastro::campaign {

namespace {

constexpr double kRunTimeout = 900;  // seconds; a run taking longer is killed and retried

bool is_root() { return geteuid() == 0; }

std::string tail(const std::string& s, size_t n = 600) { return s.size() > n ? "…" + s.substr(s.size() - n) : s; }

// A failed step of a run: becomes the run's recorded error.
struct StepFailure {
  std::string message;
};

void run_step(const std::vector<std::string>& argv, const std::string& what) {
  ProcessResult r = run_process(argv, kRunTimeout);
  if (r.timed_out) throw StepFailure{fmt::format("{} timed out after {} s", what, kRunTimeout)};
  if (r.status != 0)
    throw StepFailure{fmt::format("{} exited with status {}: {}", what, r.status, tail(r.output))};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Histogram of the concurrency level (requests in flight at each request's start) of a set of
// functions: the data behind the capture-vs-replay ECDF (thesis Fig. 6.7).
nlohmann::json concurrency_histogram(const trace::Trace& t) {
  std::map<uint32_t, uint64_t> hist;
  for (uint32_t level : trace::concurrency_levels(t)) ++hist[level];
  nlohmann::json j = nlohmann::json::object();
  for (auto [level, count] : hist) j[std::to_string(level)] = count;
  return j;
}

Measurement measure(const std::string& type, const ResponseTimes& measured, const ResponseTimes& reference) {
  if (measured.ns.empty()) throw StepFailure{fmt::format("no {} requests measured", type)};
  if (reference.ns.empty()) throw StepFailure{fmt::format("no {} requests in the reference trace", type)};
  Measurement m;
  m.type = type;
  m.measured = measured.mean;
  m.reference = reference.mean;
  m.reference_u = reference.standard_error();  // within-run; kept for diagnosis, not the catalogue's u
  m.extra["n"] = measured.ns.size();
  m.extra["n_reference"] = reference.ns.size();
  m.extra["sd"] = measured.sd;
  return m;
}

class ProcessExecutor final : public RunExecutor {
 public:
  ProcessExecutor(CampaignConfig config, std::string work_dir)
      : config_(std::move(config)), work_(std::move(work_dir)), self_(self_executable()) {
    fs::create_directories(work_);
    trash_ = std::make_unique<DeferredDeletion>(work_ + "/.trash", deferred_deletion_options(work_));
  }

  std::string unavailable(const std::string& instrument) override {
    if (config_.kind == CampaignKind::kMpi) return mpi_unavailable();
    if (instrument == "reference" || instrument == "workers" || instrument == "coordinator") return "";
    if (instrument.rfind("fio", 0) == 0) {
      if (run_process({"fio", "--version"}, 30).status != 0) return "fio is not installed (scripts/setup.sh installs it)";
      return instrument == "fio" ? "" : unavailable(instrument.substr(4));
    }
    if (instrument == "compiled") {
      ProcessResult r = run_process({"c++", "--version"}, 30);
      return r.status == 0 ? "" : "no C++ compiler (c++) to build the compiled replayer";
    }
    if (auto ext = config_.instrument_commands.find(instrument); ext != config_.instrument_commands.end())
      return executable_in_path(ext->second.front()) ? "" : "command '" + ext->second.front() + "' not found";
    auto backend = capture::make_backend(instrument);
    if (!backend) return "unknown instrument";
    auto missing = backend->missing_requirements();
    std::string why;
    for (const auto& m : missing) why += (why.empty() ? "" : "; ") + m;
    return why;
  }

  RunOutcome execute(const RunSpec& run) override {
    RunOutcome outcome;
    std::string dir = fmt::format("{}/run-{:016x}", work_, std::hash<std::string>{}(run.key));
    trash_->discard(dir);  // an interrupted run's
    trash_->before_run();
    fs::create_directories(dir);
    outcome.environment = collect_environment(dir);
    std::unique_ptr<BackgroundProcess> load;
    try {
      if (run.background > 0)
        load = std::make_unique<BackgroundProcess>(std::vector<std::string>{
            self_, "load", "cpu", "--level", std::to_string(run.background), "--duration", "3600"});
      // Pinned after the load starts, so the load keeps every CPU and the measured processes
      // (forked from this thread) keep the pinned ones.
      ScopedCpuPinning pinning(config_.cpus);
      if (!config_.cpus.empty()) outcome.environment["cpus_allowed"] = cpus_allowed_list();
      BackgroundLoadRecorder recorder;
      recorder.start();
      if (config_.kind == CampaignKind::kCapture) capture_run(run, dir, outcome);
      else if (config_.kind == CampaignKind::kReplay) replay_run(run, dir, outcome);
      else if (config_.kind == CampaignKind::kMpi) mpi_run(run, dir, outcome);
      else macro_run(run, dir, outcome);
      outcome.background = recorder.stop({});
      outcome.background["level"] = run.background;
      outcome.ok = true;
    } catch (const StepFailure& f) {
      outcome.error = f.message;
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    if (load) load->stop();
    trash_->discard(dir);  // traces and data files are large; the measurements are stored
    return outcome;
  }

 private:
  std::vector<std::string> micro_args(const RunSpec& run, const std::string& data_dir, uint64_t seed) const {
    return {self_, "bench", "micro", "--type", run.type, "--threads", std::to_string(run.level),
            "--ops", std::to_string(config_.ops), "--block", std::to_string(config_.block),
            "--file-size", std::to_string(config_.file_size), "--pause-us", std::to_string(run.pause_us),
            "--dir", data_dir, "--seed", std::to_string(seed)};
  }

  // Puts the files under `data` into the run's cache state (campaign/cache_state.h). A run whose
  // caches could not be dropped or read is not in its cell's state: it fails, named. Without root
  // a cold state cannot be made; the run records that instead of pretending.
  // Returns what was done, for the run's environment record.
  std::string set_cache_state(const RunSpec& run, const std::string& data) const {
    if (run.cache == "warm") {
      auto bytes = warm_files(data);
      if (!bytes) throw StepFailure{bytes.error()};
      return fmt::format("warm ({} bytes read after layout)", *bytes);
    }
    if (!is_root()) return "cold requested; caches not dropped (needs root)";
    if (auto dropped = rastro::drop_caches(); !dropped.ok()) throw StepFailure{"drop caches: " + dropped.error()};
    return "cold (caches dropped after layout)";
  }

  // A warm run whose files left the page cache while it ran measured the disk: it fails, named, and
  // the runner retries it (cache_state.h, warm_state_lost).
  static void check_still_warm(const RunSpec& run, const std::string& data) {
    if (run.cache != "warm") return;
    auto lost = warm_state_lost(data);
    if (!lost) throw StepFailure{lost.error()};
    if (!lost->empty()) throw StepFailure{*lost};
  }

  uint64_t run_seed(const RunSpec& run) const { return config_.seed * 1000003u + static_cast<uint64_t>(run.replicate) + 1; }

  // Capture: the instrument's trace and the application's own timing (the reference method) of
  // the same requests of the same run. The catalogue compares the trace with the cell's
  // uninstrumented reference runs (campaign/report/cell_reference.h); the same-run timing splits
  // that error into perturbation and recording error (metrology/error_decomposition.h).
  // fio alone or under an instrument: fio's own clat of the cell's kind of requests, files laid
  // out first, then the same cache state as the benchmark's runs.
  void fio_run(const RunSpec& run, const std::string& dir, RunOutcome& outcome) {
    std::string data = dir + "/data", json = dir + "/fio.json", cap = dir + "/cap.rastro";
    fs::create_directories(data);
    run_step(fio_command(config_, run.type, run.level, data, dir + "/layout.json", true), "fio layout");
    outcome.environment["cache_state"] = set_cache_state(run, data);
    auto fio = fio_command(config_, run.type, run.level, data, json, false);
    if (run.instrument == "fio") run_step(fio, "fio");
    else run_step(concat(capture_command(config_, self_, run.instrument.substr(4), cap), fio), run.instrument);
    check_still_warm(run, data);
    std::ifstream in(json);
    std::stringstream text;
    text << in.rdbuf();
    auto latency = read_fio_latency(text.str(), run.type, json);
    if (!latency) throw StepFailure{latency.error()};
    Measurement m;
    m.type = run.type;
    m.measured = m.reference = latency->clat_mean_ns;
    m.extra["n"] = latency->requests;
    outcome.measurements.push_back(std::move(m));
  }

  void capture_run(const RunSpec& run, const std::string& dir, RunOutcome& outcome) {
    if (run.instrument.rfind("fio", 0) == 0) return fio_run(run, dir, outcome);
    std::string data = dir + "/data", ref = dir + "/ref.rastro", cap = dir + "/cap.rastro";
    auto bench = micro_args(run, data, run_seed(run));
    run_step(concat(bench, {"--prepare-only"}), "workload preparation");
    outcome.environment["cache_state"] = set_cache_state(run, data);
    if (run.instrument == "reference") {
      run_step(concat(bench, {"-o", ref}), "reference workload");
    } else {
      run_step(concat(concat(capture_command(config_, self_, run.instrument, cap), bench), {"-o", ref}),
               run.instrument + " capture");
    }
    check_still_warm(run, data);
    trace::Trace reference = trace::read_trace(ref);
    std::string fn = micro_function(run.type);
    ResponseTimes ref_rt = response_times(reference, {.functions = {fn}, .warmup = config_.warmup});
    if (run.instrument == "reference") {
      outcome.measurements.push_back(measure(run.type, ref_rt, ref_rt));
      return;
    }
    trace::Trace captured = trace::read_trace(cap);
    ResponseTimes cap_rt = response_times(captured, {.functions = {fn}, .tids = threads_issuing(reference, fn), .warmup = config_.warmup});
    Measurement m = measure(run.type, cap_rt, ref_rt);
    m.extra["events_lost"] = captured.header.events_lost;
    if (cap_rt.ns.size() != ref_rt.ns.size())
      m.extra["count_mismatch"] = fmt::format("instrument saw {} of {} requests", cap_rt.ns.size(), ref_rt.ns.size());
    if (auto paired = paired_difference(captured, reference, {.functions = {fn}, .tids = threads_issuing(reference, fn), .warmup = config_.warmup})) {
      m.extra["recording_ns"] = paired->mean_ns;
      m.extra["paired_n"] = paired->n;
    } else {
      m.extra["recording_unpaired"] = paired.error();
    }
    outcome.measurements.push_back(std::move(m));
  }

  // The original traces a replay cell replays: `originals` independent application runs (seeds
  // differ), each made once and kept in the work dir (resumable); replicate r replays original
  // r mod originals, so the replay reference spreads over them (cell_reference.h).
  int original_index(const RunSpec& run) const { return run.replicate % config_.originals; }
  uint64_t original_seed(const RunSpec& run) const { return config_.seed + 7919u * static_cast<uint64_t>(original_index(run)); }
  std::string original_trace(const RunSpec& run) {
    std::string path = fmt::format("{}/originals/{}-L{}-B{}-P{}{}{}.rastro", work_, run.type, run.level, run.background,
                                   run.pause_us, run.cache == "cold" ? "" : "-" + run.cache,
                                   config_.originals > 1 ? fmt::format("-O{}", original_index(run)) : "");
    if (fs::exists(path)) return path;
    fs::create_directories(work_ + "/originals");
    std::string data = work_ + "/originals/data", tmp = path + ".tmp";
    trash_->discard(data);
    trash_->before_run();  // the original is a run of its own
    if (config_.kind == CampaignKind::kMpi) {
      if (run.cache == "cold") set_cache_state(run, data);
      capture_job(run, data, tmp + ".ranks", tmp);
      trash_->discard(tmp + ".ranks");
    } else if (run.type == "fileserver") {
      run_step(macro_args(run, data, original_seed(run), tmp), "original fileserver run");
    } else {
      auto bench = micro_args(run, data, original_seed(run));
      run_step(concat(bench, {"--prepare-only"}), "workload preparation");
      set_cache_state(run, data);
      run_step(concat(bench, {"-o", tmp}), "original workload run");
      check_still_warm(run, data);
    }
    fs::rename(tmp, path);
    trash_->discard(data);
    return path;
  }

  std::vector<std::string> macro_args(const RunSpec& run, const std::string& data, uint64_t seed, const std::string& out) const {
    return {self_, "bench", "macro", "--personality", "fileserver", "--threads", std::to_string(run.level),
            "--files", std::to_string(config_.macro_files), "--duration", fmt::format("{}", config_.macro_duration_s),
            "--dir", data, "--seed", std::to_string(seed), "-o", out};
  }

  // Replays `original` with the run's replayer into `out`; returns the summary JSON.
  nlohmann::json replay(const RunSpec& run, const std::string& original, const std::string& dir, const std::string& out) {
    std::string root = dir + "/root", summary = dir + "/summary.json";
    std::vector<std::string> common = {"--root", root, "--init", "-o", out, "--summary-json", summary};
    // Cold: the replay drops caches after --init lays the files out; warm: --init just wrote them.
    if (run.cache == "cold" && is_root()) common.push_back("--drop-caches");
    if (run.instrument == "compiled") {
      std::string bin_dir = fmt::format("{}/compiled/{:016x}", work_, std::hash<std::string>{}(original + run.ordering + run.timing));
      if (!fs::exists(bin_dir + "/replay"))
        run_step({self_, "compile", "-O", run.ordering, "-T", run.timing, original, "-o", bin_dir, "--build"}, "compile");
      run_step(concat({bin_dir + "/replay"}, common), "compiled replay");
    } else {
      run_step(concat({self_, "replay", "-O", run.ordering, "-T", run.timing, "-e", run.instrument, original}, common),
               run.instrument + " replay");
    }
    std::ifstream in(summary);
    if (!in) return nlohmann::json::object();
    try {
      return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
      throw StepFailure{"replay summary " + summary + " is not valid JSON"};
    }
  }

  static void add_replay_extras(Measurement& m, const nlohmann::json& summary) {
    for (const char* k : {"issue_error_p50_ns", "issue_error_p99_ns", "mismatched", "skipped", "replayed", "wall_ns"})
      if (summary.contains(k)) m.extra[k] = summary[k];
  }

  void replay_run(const RunSpec& run, const std::string& dir, RunOutcome& outcome) {
    std::string original = original_trace(run);
    trace::Trace orig = trace::read_trace(original);
    std::string fn = micro_function(run.type);
    ResponseTimes orig_rt = response_times(orig, {.functions = {fn}, .warmup = config_.warmup});
    if (run.instrument == "reference") {
      std::string data = dir + "/data", ref = dir + "/ref.rastro";
      auto bench = micro_args(run, data, config_.seed);
      run_step(concat(bench, {"--prepare-only"}), "workload preparation");
      outcome.environment["cache_state"] = set_cache_state(run, data);
      run_step(concat(bench, {"-o", ref}), "reference workload");
      check_still_warm(run, data);
      outcome.measurements.push_back(measure(run.type, response_times(trace::read_trace(ref), {.functions = {fn}, .warmup = config_.warmup}), orig_rt));
      return;
    }
    std::string out = dir + "/out.rastro";
    nlohmann::json summary = replay(run, original, dir, out);
    trace::Trace replayed = trace::read_trace(out);
    Measurement m = measure(run.type, response_times(replayed, {.functions = {fn}, .warmup = config_.warmup}), orig_rt);
    add_replay_extras(m, summary);
    m.extra["originals"] = config_.originals;
    m.extra["concurrency"] = concurrency_histogram(replayed);
    m.extra["concurrency_original"] = concurrency_histogram(orig);
    outcome.measurements.push_back(std::move(m));
  }

  // Macro (fileserver): read and write response times; capture vs replay concurrency.
  void macro_run(const RunSpec& run, const std::string& dir, RunOutcome& outcome) {
    std::string original = original_trace(run);
    trace::Trace orig = trace::read_trace(original);
    const std::vector<std::pair<std::string, std::string>> classes = {{"read", "read"}, {"write", "write"}};
    auto measure_classes = [&](const trace::Trace& measured, const trace::Trace& reference, const std::set<int>& tids,
                               const nlohmann::json& extra) {
      for (const auto& [cls, fn] : classes) {
        Measurement m = measure(cls, response_times(measured, {.functions = {fn}, .tids = tids, .warmup = config_.warmup}),
                                response_times(reference, {.functions = {fn}, .warmup = config_.warmup}));
        for (auto& [k, v] : extra.items()) m.extra[k] = v;
        outcome.measurements.push_back(std::move(m));
      }
    };
    if (run.instrument == "reference" || capture::make_backend(run.instrument)) {
      std::string data = dir + "/data", ref = dir + "/ref.rastro", cap = dir + "/cap.rastro";
      auto bench = macro_args(run, data, run_seed(run), ref);
      // The fileserver lays out its own files inside the run: warm has nothing to pre-read.
      outcome.environment["cache_state"] =
          run.cache == "cold" ? set_cache_state(run, data) : "warm (the run creates its own files)";
      if (run.instrument == "reference") {
        run_step(bench, "fileserver run");
        trace::Trace r = trace::read_trace(ref);
        measure_classes(r, orig, {}, {{"concurrency", concurrency_histogram(r)}});
      } else {
        run_step(concat({self_, "capture", "-b", run.instrument, "-o", cap, "--"}, bench), run.instrument + " capture");
        trace::Trace r = trace::read_trace(ref), c = trace::read_trace(cap);
        std::set<int> tids;
        for (const auto& e : r.events) tids.insert(e.tid);
        measure_classes(c, r, tids, {{"concurrency", concurrency_histogram(c)}, {"events_lost", c.header.events_lost}});
      }
      return;
    }
    std::string out = dir + "/out.rastro";
    nlohmann::json summary = replay(run, original, dir, out);
    trace::Trace replayed = trace::read_trace(out);
    nlohmann::json extra = {{"concurrency", concurrency_histogram(replayed)},
                            {"concurrency_original", concurrency_histogram(orig)}};
    for (const char* k : {"issue_error_p50_ns", "issue_error_p99_ns", "mismatched", "skipped", "replayed"})
      if (summary.contains(k)) extra[k] = summary[k];
    extra["originals"] = config_.originals;
    measure_classes(replayed, orig, {}, extra);
  }

  // MPI jobs (docs/campaign.md, "MPI jobs"). Type = the MPI, level = ranks per job.
  static mpi::MpiFlavor mpi_flavor(const RunSpec& run) {
    auto flavor = mpi::flavor_from_name(run.type);
    if (!flavor) throw StepFailure{"'" + run.type + "' is not an MPI (openmpi, mpich)"};
    return *flavor;
  }

  // Why the campaign's MPIs cannot run here: a launcher, the workload or rastro's per-MPI
  // libraries missing, or the capture backend's own requirements.
  std::string mpi_unavailable() const {
    std::string why;
    auto add = [&](const std::string& reason) { why += (why.empty() ? "" : "; ") + reason; };
    for (const auto& name : config_.types) {
      const auto flavor = *mpi::flavor_from_name(name);
      if (!executable_in_path(mpi::launcher_program(flavor)))
        add(mpi::launcher_program(flavor) + " not found (install " + name + ": scripts/setup.sh)");
      for (const auto& file : {mpi::workload_path(flavor), mpi::interposer_path(flavor), mpi::replay_shim_path(flavor)})
        if (!fs::exists(file)) add(file + " was not built (rastro built without " + name + "'s development package)");
    }
    if (auto backend = capture::make_backend(config_.mpi_capture_instrument))
      for (const auto& m : backend->missing_requirements()) add(config_.mpi_capture_instrument + ": " + m);
    return why;
  }

  // `mpirun -n RANKS rastro capture --mpi -b BACKEND -o RANKS_DIR -- workload DATA ROUNDS`, then
  // `rastro merge RANKS_DIR -o JOB`.
  void capture_job(const RunSpec& run, const std::string& data, const std::string& ranks_dir, const std::string& job) {
    const auto flavor = mpi_flavor(run);
    fs::create_directories(data);
    run_step(concat(mpi::local_launch_command(flavor, run.level, is_root()),
                    {self_, "capture", "--mpi", "-b", config_.mpi_capture_instrument, "-q", "-o", ranks_dir, "--",
                     mpi::workload_path(flavor), data, std::to_string(config_.ops)}),
             "MPI capture (" + config_.mpi_capture_instrument + ")");
    run_step({self_, "merge", ranks_dir, "-o", job}, "merge");
  }

  // Every MPI run keeps its merged job (small: the workload and the MPI library's own start-up
  // calls), so each clock component in the results can be checked against its trace's header:
  // work/jobs/<instrument, '/' as '-'>/<mpi>-N<ranks>-B<bg>[-<cache>]-r<replicate, from 1>.rastro.
  std::string job_trace_path(const RunSpec& run) const {
    std::string inst = run.catalogue_instrument();
    std::replace(inst.begin(), inst.end(), '/', '-');
    return fmt::format("{}/jobs/{}/{}-N{}-B{}{}-r{}.rastro", work_, inst, run.type, run.level, run.background,
                       run.cache == "cold" ? "" : "-" + run.cache, run.replicate + 1);
  }

  // A reference run captures and merges the job again (its spread is the original's run-to-run
  // spread); a replayer run replays the cell's original with `mpirun … rastro replay --mpi` and
  // merges the replayed ranks. Both are measured against the original (mpi_job_measurement.h).
  void mpi_run(const RunSpec& run, const std::string& dir, RunOutcome& outcome) {
    const std::string original = original_trace(run);
    const std::string job = job_trace_path(run);
    fs::create_directories(fs::path(job).parent_path());
    nlohmann::json replay_counts = nlohmann::json::object();
    if (run.instrument == "reference") {
      const std::string data = dir + "/data";
      outcome.environment["cache_state"] =
          run.cache == "cold" ? set_cache_state(run, data) : "warm (the job creates its own files)";
      capture_job(run, data, dir + "/ranks", job);
    } else {
      std::vector<std::string> argv = concat(mpi::local_launch_command(mpi_flavor(run), run.level, is_root()),
                                             {self_, "replay", "--mpi", original, "-O", run.ordering, "-T", run.timing, "-e",
                                              run.instrument, "--root", dir + "/root", "--init", "-o", dir + "/replayed"});
      if (run.cache == "cold" && is_root()) argv.push_back("--drop-caches");
      run_step(argv, run.instrument + " MPI replay");
      run_step({self_, "merge", dir + "/replayed", "-o", job}, "merge of the replayed ranks");
      replay_counts = mpi_replay_counts(dir + "/replayed", run.level);
    }
    std::map<std::string, double> reference;
    for (const auto& m : mpi_job_measurements(trace::read_trace(original), run.type, original))
      reference[m.type] = m.measured;
    for (auto& m : mpi_job_measurements(trace::read_trace(job), run.type, job)) {
      auto ref = reference.find(m.type);
      if (ref == reference.end()) throw StepFailure{fmt::format("{}: the original {} has no {}", job, original, m.type)};
      m.reference = ref->second;
      m.extra["originals"] = config_.originals;
      m.extra["job_trace"] = job;
      for (const auto& [k, v] : replay_counts.items()) m.extra[k] = v;
      outcome.measurements.push_back(std::move(m));
    }
  }

  // The replayed ranks' summaries added up: calls replayed, skipped, mismatched.
  static nlohmann::json mpi_replay_counts(const std::string& dir, int ranks) {
    std::map<std::string, int64_t> total = {{"replayed", 0}, {"skipped", 0}, {"mismatched", 0}};
    for (int r = 0; r < ranks; ++r) {
      const std::string path = fmt::format("{}/rank-{}.summary.json", dir, r);
      std::ifstream in(path);
      if (!in) throw StepFailure{path + " is missing: the rank did not finish its replay"};
      try {
        const auto summary = nlohmann::json::parse(in);
        for (auto& [key, count] : total)
          if (summary.contains(key) && summary[key].is_number_integer()) count += summary[key].get<int64_t>();
      } catch (const nlohmann::json::exception&) {
        throw StepFailure{path + " is not valid JSON"};
      }
    }
    return total;
  }

  CampaignConfig config_;
  std::string work_;
  std::string self_;
  // Run directories are set aside, not deleted before the next run (deferred_deletion.h).
  std::unique_ptr<DeferredDeletion> trash_;
};

}  // namespace

std::unique_ptr<RunExecutor> make_process_executor(const CampaignConfig& config, const std::string& work_dir) {
  return std::make_unique<ProcessExecutor>(config, work_dir);
}

}  // namespace rastro::campaign
