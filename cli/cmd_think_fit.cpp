// `rastro think-fit TRACE [--also TRACE]... -d DIR [--candidate T]... [--rounds N] [--max-rounds N]
// [--min-calls N] [--json FILE] [-- REPLAY FLAGS]`: which `--think-work` a program needs, fitted on
// its captures on the machine that made them (replay/session/think_fit.h). Each candidate is replayed
// --rounds times on each capture by `rastro replay` (a child process each: a fresh address space
// and kernel state per replay, as a user's replays have), the candidates in turn and in reverse
// order on alternate rounds so none always runs first; each replay is compared with its capture per
// call class (`rastro compare`'s ratios) and its root deleted. Several captures fit the program,
// not one run of it: a run's own quirks (its page cache, its neighbours) move its ratios as much as
// the candidates do (the mmap reader: `memory,code` on one capture, `none` on another). While the
// fit is a near tie, the two tied candidates get one more round each, up to --max-rounds. Prints the classes' latency ratios per
// candidate, their score (mean |ln ratio|) and the fit, which the program's other captures are then
// replayed with.
//
// Exit status: 0; 1 on bad input (a flag the fit owns among the replay flags, no candidate) or
// when a replay fails (its log named).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "campaign/subprocess.h"
#include "cli/command.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "replay/runtime/think_work.h"
#include "replay/session/think_fit.h"
#include "trace/analysis/replay_comparison.h"

namespace {

using namespace rastro;
namespace fs = std::filesystem;

struct ThinkFitFlags {
  std::string trace, dir, json;
  std::vector<std::string> also;  // further captures of the same program
  std::vector<std::string> candidates{"none", "memory", "memory,code"};
  unsigned rounds = 2;
  unsigned max_rounds = 6;
  uint64_t min_calls = 5;
  double timeout_s = 3600;
  std::vector<std::string> replay_flags;  // after --
};

// The replay flags the fit sets itself for every replay.
void check_replay_flags(const std::vector<std::string>& flags) {
  static const std::vector<std::string> kOwned = {"--root", "--init", "-o", "--output", "--summary-json",
                                                  "--think-work", "--force", "--allow-unsafe-root"};
  for (const std::string& f : flags) {
    for (const std::string& owned : kOwned) {
      if (f == owned || f.starts_with(owned + "="))
        throw Error(fmt::format("think-fit: {} is the fit's own (each replay gets a fresh root, its output and "
                                "--think-work in -d DIR); give the other replay flags after --",
                                owned));
    }
  }
}

bool has_timing(const std::vector<std::string>& flags) {
  for (const std::string& f : flags)
    if (f == "-T" || f == "--timing" || f.starts_with("--timing=") || (f.starts_with("-T") && f.size() > 2)) return true;
  return false;
}

// TRACE, then the --also captures.
std::vector<std::string> captures(const ThinkFitFlags& o) {
  std::vector<std::string> all = {o.trace};
  all.insert(all.end(), o.also.begin(), o.also.end());
  return all;
}

// The replay of candidate k on capture c in round `round`: its files' stem in DIR (the capture
// named only when there are several).
std::string stem(const ThinkFitFlags& o, size_t k, size_t c, unsigned round) {
  const std::string capture = o.also.empty() ? "" : fmt::format(".capture-{}", c + 1);
  return (fs::path(o.dir) / fmt::format("candidate-{}{}.round-{}", k + 1, capture, round)).string();
}

// Candidate k replayed on capture c (`trace`) in round `round`, compared with that capture.
replay::FitReplay replay_once(const ThinkFitFlags& o, size_t k, size_t c, const std::string& trace, unsigned round,
                              const std::string& self) {
  const std::string s = stem(o, k, c, round);
  std::vector<std::string> argv = {self, "replay", trace, "--root", s + ".root", "--init", "-o", s + ".rastro",
                                   "--summary-json", s + ".json", "--think-work", o.candidates[k]};
  if (!has_timing(o.replay_flags)) argv.insert(argv.end(), {"-T", "think"});
  argv.insert(argv.end(), o.replay_flags.begin(), o.replay_flags.end());
  const std::string on = o.also.empty() ? "" : fmt::format(" on {}", trace);
  if (round <= o.rounds)
    fmt::print(stderr, "think-fit: round {} of {}, --think-work {}{} ...\n", round, o.rounds, o.candidates[k], on);
  else
    fmt::print(stderr, "think-fit: round {} (a near tie: at most {}), --think-work {}{} ...\n", round, o.max_rounds,
               o.candidates[k], on);
  const campaign::ProcessResult r = campaign::run_process(argv, o.timeout_s);
  write_text_atomically(s + ".log", r.output);
  std::error_code ec;
  fs::remove_all(s + ".root", ec);  // (made by this replay: the directory did not exist before it)
  if (r.status != 0)
    throw Error(fmt::format("think-fit: the replay with --think-work {} failed (exit {}{}): see {}.log",
                            o.candidates[k], r.status, r.timed_out ? ", timed out" : "", s));
  replay::FitReplay fr;
  for (const auto& row : trace::compare_replay(trace, s + ".rastro").by_class)
    fr.classes[row.key] = {row.latency_ratio_median_corrected, row.timed};
  return fr;
}

void run(const ThinkFitFlags& o) {
  if (o.candidates.empty()) throw Error("think-fit: no --candidate");
  for (const std::string& c : o.candidates) {
    if (auto w = replay::parse_think_work(c); !w.ok()) throw Error(fmt::format("think-fit: --candidate {}", w.error()));
  }
  check_replay_flags(o.replay_flags);
  if (o.rounds == 0) throw Error("think-fit: --rounds must be at least 1");
  if (o.max_rounds < o.rounds)
    throw Error(fmt::format("think-fit: --max-rounds {} is fewer than --rounds {}", o.max_rounds, o.rounds));
  const std::vector<std::string> traces = captures(o);
  for (const std::string& t : traces)
    if (!fs::exists(t)) throw Error(fmt::format("think-fit: no trace at {}", t));
  fs::create_directories(o.dir);
  for (size_t k = 0; k < o.candidates.size(); ++k) {
    for (size_t c = 0; c < traces.size(); ++c) {
      for (unsigned round = 1; round <= o.max_rounds; ++round) {
        if (fs::exists(stem(o, k, c, round) + ".root"))
          throw Error(fmt::format("think-fit: {}.root exists already: give an empty -d DIR", stem(o, k, c, round)));
      }
    }
  }
  const std::string self = campaign::self_executable();
  std::vector<replay::FitCandidate> cands(o.candidates.size());
  std::vector<std::vector<std::string>> outputs(cands.size());  // [candidate]: its replays' traces
  for (size_t k = 0; k < cands.size(); ++k) cands[k].think_work = o.candidates[k];
  unsigned round = 0;
  auto run_round = [&](const std::vector<size_t>& which) {
    ++round;
    for (size_t c = 0; c < traces.size(); ++c) {
      for (size_t i = 0; i < which.size(); ++i) {
        const size_t k = which[round % 2 == 1 ? i : which.size() - 1 - i];
        cands[k].replays.push_back(replay_once(o, k, c, traces[c], round, self));
        outputs[k].push_back(stem(o, k, c, round) + ".rastro");
      }
    }
  };
  std::vector<size_t> all(cands.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  while (round < o.rounds) run_round(all);
  replay::ThinkFit fit = replay::fit_think_work(cands, o.min_calls).take();
  for (auto tied = replay::tie_break_candidates(fit, round, o.max_rounds); !tied.empty();
       tied = replay::tie_break_candidates(fit, round, o.max_rounds)) {
    run_round(tied);
    fit = replay::fit_think_work(cands, o.min_calls).take();
  }

  std::string table = fmt::format("{:<22}", "--think-work");
  for (const std::string& c : fit.classes) table += fmt::format("{:>11}", c);
  table += fmt::format("{:>8}{:>9}\n", "score", "replays");
  for (size_t k = 0; k < cands.size(); ++k) {
    table += fmt::format("{:<22}", cands[k].think_work + (k == fit.best ? " *" : ""));
    for (double r : fit.ratio[k]) table += fmt::format("{:>11.2f}", r);
    table += fmt::format("{:>8.3f}{:>9}\n", fit.score[k], cands[k].replays.size());
  }
  fmt::print("replay/original latency ratio per call class (geometric mean of the replays), score = mean |ln ratio|:\n{}",
             table);
  fmt::print("fit: --think-work {}{}\n", cands[fit.best].think_work,
             round > o.rounds && fit.near_tie < 0
                 ? fmt::format(" (a near tie after {} rounds, decided by {} more)", o.rounds, round - o.rounds)
                 : "");
  if (fit.near_tie >= 0) {
    const auto& other = cands[static_cast<size_t>(fit.near_tie)];
    fmt::print("near tie: --think-work {} scores within {} of it after {} rounds: the replays do not tell them apart "
               "(either will do)\n",
               other.think_work, replay::ThinkFit::kNearTie, round);
  }

  if (!o.json.empty()) {
    nlohmann::json j;
    j["trace"] = o.trace;
    j["captures"] = traces;
    j["rounds"] = round;  // --rounds, and the rounds that broke a near tie
    j["min_calls"] = o.min_calls;
    j["replay_flags"] = o.replay_flags;
    j["classes"] = fit.classes;
    j["fit"] = cands[fit.best].think_work;
    j["near_tie"] = fit.near_tie < 0 ? nlohmann::json() : nlohmann::json(cands[static_cast<size_t>(fit.near_tie)].think_work);
    for (size_t k = 0; k < cands.size(); ++k) {
      nlohmann::json c;
      c["think_work"] = cands[k].think_work;
      c["score"] = fit.score[k];
      for (size_t i = 0; i < fit.classes.size(); ++i) c["ratio"][fit.classes[i]] = fit.ratio[k][i];
      c["replays"] = outputs[k];
      j["candidates"].push_back(std::move(c));
    }
    write_text_atomically(o.json, j.dump(2) + "\n");
  }
}

cli::RegisterCommand register_think_fit{
    {"think-fit",
     "Choose --think-work for a program: replays its capture (and any --also captures) on the machine that made "
     "it with each candidate (default none, memory, memory,code), --rounds times each in alternating order, "
     "compares each replay with its capture per call class, and prints the ratios and the candidate whose ratios "
     "lie nearest 1 (mean |ln ratio|) — to replay the program's other captures with",
     106, [](CLI::App& app) {
       auto o = std::make_shared<ThinkFitFlags>();
       app.add_option("TRACE", o->trace, "A capture of the program (a trace replayable with --init)")->required();
       app.add_option("--also", o->also,
                      "A further capture of the same program (repeat the option): every round replays each "
                      "candidate on each capture, and a candidate's ratios are over all its replays — a fit for "
                      "the program, not for one run of it")
           ->allow_extra_args(false);
       app.add_option("-d,--dir", o->dir,
                      "Where the replays go: per candidate and round its output (.rastro), summary (.json) and log; "
                      "each root is made there and deleted after its replay")
           ->required();
       app.add_option("--candidate", o->candidates,
                      "A --think-work value to try (repeat the option; default: none, memory, memory,code; the "
                      "first of equal scores wins)")
           ->allow_extra_args(false);  // one value per --candidate: a "--" after it starts the replay flags
       app.add_option("--rounds", o->rounds, "Rounds, each a replay of every candidate on every capture")
           ->capture_default_str();
       app.add_option("--max-rounds", o->max_rounds,
                      "While the fit is a near tie (a candidate scores within 0.05 of it), the two get one more "
                      "round each, up to this many rounds in all (--rounds: none)")
           ->capture_default_str();
       app.add_option("--min-calls", o->min_calls,
                      "A class is judged when every replay timed this many of its calls")
           ->capture_default_str();
       app.add_option("--timeout", o->timeout_s, "Seconds one replay may take (then it is killed and the fit fails)")
           ->capture_default_str();
       app.add_option("--json", o->json, "Write the fit, the ratios and the replays' paths as JSON");
       app.add_option("replay_flags", o->replay_flags,
                      "rastro replay flags after -- (engine, ordering, --processes, --time-with, -T ...; default "
                      "timing think)");
       app.callback([o] { run(*o); });
     }}};

}  // namespace
