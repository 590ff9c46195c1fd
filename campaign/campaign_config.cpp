#include "campaign/campaign_config.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "common/json_integer.h"

namespace rastro::campaign {

namespace {

const std::set<std::string> kTypes = {"rr", "rw", "sr", "sw"};
const std::set<std::string> kInstruments = {"reference", "strace", "ptrace", "ebpf", "stap"};
const std::set<std::string> kReplayers = {"workers", "coordinator", "compiled"};
const std::set<std::string> kOrderings = {"thread", "fs", "temporal"};
const std::set<std::string> kTimings = {"fullspeed", "timestamp", "think"};
const std::set<std::string> kCacheStates = {"cold", "warm"};
const std::set<std::string> kMpis = {"openmpi", "mpich"};
const std::set<std::string> kMpiReplayers = {"workers", "coordinator"};  // replay --mpi has no compiled engine
const std::set<std::string> kMpiCaptureInstruments = {"ptrace", "ebpf", "strace"};

void check_members(const std::vector<std::string>& values, const std::set<std::string>& allowed,
                   const char* key, const std::string& origin) {
  if (values.empty()) throw Error(fmt::format("{}: '{}' must not be empty", origin, key));
  for (const auto& v : values)
    if (!allowed.count(v) && !(std::string(key) == "timings" && v.rfind("think:", 0) == 0))
      throw Error(fmt::format("{}: '{}' has unknown value '{}' (allowed: {})", origin, key, v,
                              fmt::join(allowed, ", ")));
}

}  // namespace

const char* kind_name(CampaignKind kind) {
  switch (kind) {
    case CampaignKind::kCapture: return "capture";
    case CampaignKind::kReplay: return "replay";
    case CampaignKind::kMacro: return "macro";
    case CampaignKind::kMpi: return "mpi";
  }
  return "?";
}

nlohmann::json CampaignConfig::to_json() const {
  nlohmann::json j = {{"kind", kind_name(kind)},     {"types", types},
          {"levels", levels},            {"instruments", instruments},
          {"backgrounds", backgrounds},  {"replicates", replicates},
          {"ops", ops},                  {"block", block},
          {"file_size", file_size},      {"pauses_us", pauses_us},
          {"replayers", replayers},      {"orderings", orderings},
          {"timings", timings},          {"macro_duration_s", macro_duration_s},
          {"macro_files", macro_files},  {"macro_capture_instrument", macro_capture_instrument},
          {"cache", cache},              {"seed", seed},
          {"retries", retries}};
  // Only when set: stores of campaigns defined before these keys existed still resume.
  if (fio) j["fio"] = true;
  if (warmup > 0) j["warmup"] = warmup;
  if (originals != 1) j["originals"] = originals;
  if (!cpus.empty()) j["cpus"] = cpus;
  if (kind == CampaignKind::kMpi) j["mpi_capture_instrument"] = mpi_capture_instrument;
  if (!instrument_commands.empty()) j["instrument_commands"] = instrument_commands;
  return j;
}

CampaignConfig config_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw Error(fmt::format("{}: a campaign definition is a JSON object", origin));
  CampaignConfig c;
  if (j.contains("kind")) {
    std::string k = j.at("kind").is_string() ? j.at("kind").get<std::string>() : "";
    if (k == "capture") c.kind = CampaignKind::kCapture;
    else if (k == "replay") c.kind = CampaignKind::kReplay;
    else if (k == "macro") c.kind = CampaignKind::kMacro;
    else if (k == "mpi") c.kind = CampaignKind::kMpi;
    else throw Error(fmt::format("{}: 'kind' must be capture, replay, macro or mpi", origin));
    c = default_config(c.kind);
  }
  const std::set<std::string> known = {
      "kind", "types", "levels", "instruments", "backgrounds", "replicates", "ops", "block",
      "file_size", "pauses_us", "replayers", "orderings", "timings", "macro_duration_s",
      "macro_files", "macro_capture_instrument", "mpi_capture_instrument", "cache", "drop_caches", "warmup", "originals", "cpus", "instrument_commands", "fio", "seed",
      "retries"};
  for (const auto& [key, value] : j.items())
    if (!known.count(key))
      throw Error(fmt::format("{}: unknown factor '{}' (known: {})", origin, key, fmt::join(known, ", ")));
  // Integers are range-checked before conversion: a float or a 72-digit number must be an error,
  // not undefined behaviour (found by tests/fuzz, F1 in docs/reliability.md).
  auto check_int = [&](const nlohmann::json& v, auto& out, const char* key) {
    if (!json_to_integer(v, &out))
      throw Error(fmt::format("{}: '{}' must be a whole number in range, not {}", origin, key, v.dump()));
  };
  auto get = [&](const char* key, auto& out) {
    if (!j.contains(key)) return;
    using T = std::remove_reference_t<decltype(out)>;
    const nlohmann::json& v = j.at(key);
    try {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        check_int(v, out, key);
      } else if constexpr (std::is_same_v<T, std::vector<int>>) {
        if (!v.is_array()) throw Error(fmt::format("{}: '{}' must be an array", origin, key));
        out.clear();
        for (const auto& x : v) {
          int i = 0;
          check_int(x, i, key);
          out.push_back(i);
        }
      } else if constexpr (std::is_same_v<T, double>) {
        if (!v.is_number()) throw Error(fmt::format("{}: '{}' must be a number", origin, key));
        out = v.get<double>();
      } else {
        v.get_to(out);
      }
    } catch (const nlohmann::json::exception&) {
      throw Error(fmt::format("{}: '{}' has the wrong type", origin, key));
    }
  };
  get("types", c.types);
  get("levels", c.levels);
  get("instruments", c.instruments);
  get("backgrounds", c.backgrounds);
  get("replicates", c.replicates);
  get("ops", c.ops);
  get("block", c.block);
  get("file_size", c.file_size);
  get("pauses_us", c.pauses_us);
  get("replayers", c.replayers);
  get("orderings", c.orderings);
  get("timings", c.timings);
  get("macro_duration_s", c.macro_duration_s);
  get("macro_files", c.macro_files);
  get("macro_capture_instrument", c.macro_capture_instrument);
  get("mpi_capture_instrument", c.mpi_capture_instrument);
  if (j.contains("drop_caches")) {
    if (j.contains("cache"))
      throw Error(fmt::format("{}: give 'cache' or the older 'drop_caches', not both", origin));
    bool drop = true;
    get("drop_caches", drop);
    c.cache = {drop ? "cold" : "warm"};
  }
  get("cache", c.cache);
  get("warmup", c.warmup);
  get("originals", c.originals);
  get("cpus", c.cpus);
  get("instrument_commands", c.instrument_commands);
  get("fio", c.fio);
  get("seed", c.seed);
  get("retries", c.retries);
  const bool mpi = c.kind == CampaignKind::kMpi;
  check_members(c.types, mpi ? kMpis : kTypes, "types", origin);
  std::set<std::string> instruments = kInstruments;
  for (const auto& [name, argv] : c.instrument_commands) {
    if (name.empty() || kInstruments.count(name) || name.rfind("fio", 0) == 0 ||
        name.find_first_of("/|,\"") != std::string::npos)
      throw Error(fmt::format("{}: instrument_commands: '{}' cannot name an external instrument (empty, built in, "
                              "fio…, or holding / | , \")",
                              origin, name));
    if (argv.empty() || std::none_of(argv.begin(), argv.end(), [](const std::string& a) {
          return a.find("{trace}") != std::string::npos;
        }))
      throw Error(fmt::format("{}: instrument_commands: '{}' needs a command with {{trace}} where its trace goes", origin,
                              name));
    if (c.kind != CampaignKind::kCapture)
      throw Error(fmt::format("{}: instrument_commands are capture instruments (kind capture)", origin));
    instruments.insert(name);
  }
  check_members(c.instruments, instruments, "instruments", origin);
  check_members(c.replayers, mpi ? kMpiReplayers : kReplayers, "replayers", origin);
  if (mpi) {
    check_members({c.mpi_capture_instrument}, kMpiCaptureInstruments, "mpi_capture_instrument", origin);
    if (c.instruments != std::vector<std::string>{"reference"})
      throw Error(fmt::format("{}: an mpi campaign's instruments are [\"reference\"] (its capture backend is "
                              "'mpi_capture_instrument')", origin));
    for (int l : c.levels)
      if (l < 2) throw Error(fmt::format("{}: an mpi campaign's levels are ranks per job, at least 2 (got {})", origin, l));
    if (c.pauses_us != std::vector<int>{0}) throw Error(fmt::format("{}: an mpi campaign has no pauses_us", origin));
    if (c.warmup > 0) throw Error(fmt::format("{}: an mpi campaign has no warmup (its measurands are per job)", origin));
  }
  check_members(c.orderings, kOrderings, "orderings", origin);
  check_members(c.timings, kTimings, "timings", origin);
  check_members(c.cache, kCacheStates, "cache", origin);
  if (std::set<std::string>(c.cache.begin(), c.cache.end()).size() != c.cache.size())
    throw Error(fmt::format("{}: 'cache' lists a state twice", origin));
  if (c.warmup >= c.ops)
    throw Error(fmt::format("{}: warmup {} must be below ops {} (some requests must be measured)", origin, c.warmup, c.ops));
  for (int cpu : c.cpus)
    if (cpu < 0 || cpu >= 1024) throw Error(fmt::format("{}: cpu {} is outside 0..1023", origin, cpu));
  if (std::set<int>(c.cpus.begin(), c.cpus.end()).size() != c.cpus.size())
    throw Error(fmt::format("{}: 'cpus' lists a CPU twice", origin));
  if (c.originals < 1 || c.originals > 64) throw Error(fmt::format("{}: originals must be 1..64", origin));
  if (c.originals > 1 && c.kind == CampaignKind::kCapture)
    throw Error(fmt::format("{}: 'originals' applies to replay and macro campaigns", origin));
  for (int l : c.levels)
    if (l < 1 || l > 64) throw Error(fmt::format("{}: level {} is outside 1..64", origin, l));
  for (int b : c.backgrounds)
    if (b < 0 || b > 64) throw Error(fmt::format("{}: background level {} is outside 0..64", origin, b));
  for (int p : c.pauses_us)
    if (p < 0) throw Error(fmt::format("{}: pause {} us is negative", origin, p));
  if (c.levels.empty() || c.backgrounds.empty() || c.pauses_us.empty())
    throw Error(fmt::format("{}: levels, backgrounds and pauses_us must not be empty", origin));
  if (c.replicates < 2) throw Error(fmt::format("{}: replicates must be at least 2 (got {})", origin, c.replicates));
  if (c.ops < 1 || c.block < 1 || c.file_size < c.block)
    throw Error(fmt::format("{}: ops and block must be positive and file_size >= block", origin));
  if (c.fio && c.kind != CampaignKind::kCapture)
    throw Error(fmt::format("{}: 'fio' is a cross-check of capture campaigns only", origin));
  if (c.retries < 0 || c.retries > 5) throw Error(fmt::format("{}: retries must be 0..5", origin));
  if (c.macro_duration_s <= 0 || c.macro_files < 1)
    throw Error(fmt::format("{}: macro_duration_s and macro_files must be positive", origin));
  return c;
}

std::vector<std::string> capture_command(const CampaignConfig& config, const std::string& self,
                                         const std::string& instrument, const std::string& trace) {
  auto it = config.instrument_commands.find(instrument);
  if (it == config.instrument_commands.end()) return {self, "capture", "-b", instrument, "-o", trace, "--"};
  std::vector<std::string> argv = it->second;
  for (auto& a : argv)
    for (size_t at; (at = a.find("{trace}")) != std::string::npos;) a.replace(at, 7, trace);
  return argv;
}

CampaignConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open campaign definition", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return config_from_json(j, path);
}

CampaignConfig default_config(CampaignKind kind) {
  CampaignConfig c;
  c.kind = kind;
  if (kind == CampaignKind::kReplay) {
    c.instruments = {"reference"};
    c.backgrounds = {0};
    c.pauses_us = {0, 10, 50};
    c.timings = {"fullspeed", "timestamp"};
  } else if (kind == CampaignKind::kMpi) {
    c.types = {"openmpi"};   // the MPI the workload is built and launched with
    c.levels = {2, 4};       // ranks per job
    c.instruments = {"reference"};
    c.backgrounds = {0};
    c.replayers = {"workers", "coordinator"};
    c.ops = 4;               // token-ring rounds
    c.replicates = 5;
  } else if (kind == CampaignKind::kMacro) {
    c.types = {"sr"};  // unused by macro runs; kept valid
    c.levels = {4};
    c.backgrounds = {0};
    c.instruments = {"reference", "ebpf"};
    c.orderings = {"fs"};
  }
  return c;
}

CampaignConfig quick_config(CampaignKind kind) {
  CampaignConfig c = default_config(kind);
  if (kind == CampaignKind::kMpi) {
    c.levels = {2};
    c.replicates = 3;
    c.ops = 2;
    c.replayers = {"workers"};
    c.orderings = {"fs"};
    c.timings = {"fullspeed"};
    return c;
  }
  c.types = {"sr", "sw"};
  c.levels = {1, 2};
  c.replicates = 3;
  c.ops = 200;
  c.file_size = 1u << 20;
  c.backgrounds = {0};
  c.instruments = kind == CampaignKind::kCapture ? std::vector<std::string>{"reference", "strace", "ptrace", "ebpf"}
                  : kind == CampaignKind::kMacro  ? std::vector<std::string>{"reference", "ebpf"}
                                                  : std::vector<std::string>{"reference"};
  if (kind == CampaignKind::kReplay) {
    c.pauses_us = {0};
    c.timings = {"fullspeed"};
    c.orderings = {"fs"};
  }
  if (kind == CampaignKind::kMacro) {
    c.levels = {2};
    c.macro_duration_s = 1;
    c.macro_files = 50;
    c.types = {"sr"};
  }
  return c;
}

CampaignConfig thesis_capture_config() {
  CampaignConfig c = default_config(CampaignKind::kCapture);
  c.types = {"rr", "rw", "sr", "sw"};
  c.levels = {1, 2, 3, 4, 5, 6, 7, 8};
  c.backgrounds = {0};
  c.instruments = {"reference", "strace", "ptrace", "ebpf"};
  c.replicates = 10;
  c.ops = 5000;
  c.file_size = 20u << 20;  // > 5000 requests of 4 KiB, so sequential runs never wrap
  c.fio = true;             // the independent second reference (cheap next to strace runs)
  c.warmup = 100;           // 2 % of each thread's requests: its first blocks and page-table faults
  return c;
}

}  // namespace rastro::campaign
