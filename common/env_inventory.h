// The environment inventory (SPEC §6.4): what a measurement depends on, recorded with every
// capture, replay and experiment (a calibration curve is only valid in the environment it was
// fitted in — thesis Figs. 5.8–5.9).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rastro {

// Keys: hostname, kernel {release, version, machine}, os, cpu {model, cores_online,
// cores_configured, governor, mhz}, memory_bytes, clocksource, target {path, fs_type, device,
// mount_point, mount_options, journal (ext3/ext4 only: whether it keeps one)}, tools {strace,
// bpftool, clang, stap, perf, bpftrace: first line of their version output, absent when not
// installed}. Values that cannot be read are omitted or "unknown"; never throws for a missing
// file.
nlohmann::json collect_environment(const std::string& target_path);

}  // namespace rastro
