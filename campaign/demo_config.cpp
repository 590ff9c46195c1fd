#include "campaign/demo_config.h"

namespace rastro::campaign {

namespace {
CampaignConfig demo_base(CampaignKind kind, int replicates) {
  CampaignConfig c = default_config(kind);
  c.types = {"sr", "sw"};
  c.levels = {1, 2};
  c.backgrounds = {0};
  c.replicates = replicates;
  c.ops = 1000;
  c.file_size = 4u << 20;
  c.pauses_us = {0};
  return c;
}
}  // namespace

CampaignConfig demo_capture_config(int replicates) {
  CampaignConfig c = demo_base(CampaignKind::kCapture, replicates);
  c.instruments = {"reference", "ebpf", "ptrace", "strace"};
  return c;
}

CampaignConfig demo_replay_config(int replicates) {
  CampaignConfig c = demo_base(CampaignKind::kReplay, replicates);
  c.replayers = {"workers", "coordinator", "compiled"};
  c.orderings = {"fs"};
  c.timings = {"fullspeed"};
  return c;
}

}  // namespace rastro::campaign
