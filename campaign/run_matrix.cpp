#include "campaign/run_matrix.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>

namespace rastro::campaign {

std::string RunSpec::catalogue_instrument() const {
  if (ordering.empty()) return instrument;
  return fmt::format("{}/{}/{}", instrument, ordering, timing);
}

nlohmann::json RunSpec::to_json() const {
  return {{"key", key},           {"instrument", instrument}, {"type", type},
          {"level", level},       {"background", background}, {"pause_us", pause_us},
          {"ordering", ordering}, {"timing", timing},         {"cache", cache},
          {"replicate", replicate}};
}

std::string fio_instrument(const std::string& capture_instrument) {
  return capture_instrument == "reference" ? "fio" : "fio+" + capture_instrument;
}

void assign_keys(RunSpec& r) {
  r.cell = fmt::format("{}|{}|L{}|B{}|P{}|{}|{}", r.instrument, r.type, r.level, r.background,
                       r.pause_us, r.ordering, r.timing);
  if (r.cache != "cold") r.cell += "|" + r.cache;  // cold keys stay as they were (stores resume)
  r.key = fmt::format("{}|R{}", r.cell, r.replicate);
}

std::vector<RunSpec> expand_runs(const CampaignConfig& c) {
  std::vector<RunSpec> runs;
  std::string cache;
  auto add = [&](RunSpec r) {
    r.cache = cache;
    for (int rep = 0; rep < c.replicates; ++rep) {
      r.replicate = rep;
      assign_keys(r);
      runs.push_back(r);
    }
  };
  for (const auto& state : c.cache) {
    cache = state;
    if (c.kind == CampaignKind::kCapture) {
      for (const auto& type : c.types)
        for (int level : c.levels)
          for (int bg : c.backgrounds)
            for (int pause : c.pauses_us)
              for (const auto& inst : c.instruments) {
                add(RunSpec{.instrument = inst, .type = type, .level = level, .background = bg, .pause_us = pause});
                // fio alone ("fio") and under each instrument ("fio+strace"): the second reference.
                if (c.fio && pause == 0)
                  add(RunSpec{.instrument = fio_instrument(inst), .type = type, .level = level, .background = bg});
              }
    } else if (c.kind == CampaignKind::kReplay || c.kind == CampaignKind::kMpi) {
      // An MPI campaign is a replay campaign of jobs: type = the MPI, level = ranks per job.
      for (const auto& type : c.types)
        for (int level : c.levels)
          for (int bg : c.backgrounds)
            for (int pause : c.pauses_us) {
              // The reference method's own replicates (for the F-test of precision).
              add(RunSpec{.instrument = "reference", .type = type, .level = level, .background = bg, .pause_us = pause});
              for (const auto& rep : c.replayers)
                for (const auto& ord : c.orderings)
                  for (const auto& tim : c.timings) {
                    // Timestamp-faithful timing only means something when the trace has pauses.
                    if (pause == 0 && tim != "fullspeed" && c.pauses_us.size() > 1) continue;
                    add(RunSpec{.instrument = rep, .type = type, .level = level, .background = bg,
                                .pause_us = pause, .ordering = ord, .timing = tim});
                  }
            }
    } else {
      for (int level : c.levels)
        for (int bg : c.backgrounds) {
          for (const auto& inst : c.instruments)
            add(RunSpec{.instrument = inst, .type = "fileserver", .level = level, .background = bg});
          for (const auto& rep : c.replayers)
            for (const auto& ord : c.orderings)
              add(RunSpec{.instrument = rep, .type = "fileserver", .level = level, .background = bg,
                          .ordering = ord, .timing = "fullspeed"});
        }
    }
  }
  std::mt19937_64 rng(c.seed);
  std::shuffle(runs.begin(), runs.end(), rng);
  return runs;
}

}  // namespace rastro::campaign
