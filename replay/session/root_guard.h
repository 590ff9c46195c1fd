// Where a replay may write: the rules that keep a replay from destroying data it did not create.
//
// A replay creates, truncates, renames and unlinks files under its --root exactly as the traced
// program did. Pointed at a directory holding someone's data it would destroy that data, so:
//   - a missing or empty root is adopted: rastro creates it (if needed) and leaves a marker file,
//     kRootMarker, saying the tree below is rastro's;
//   - a non-empty root needs --force, and even then must lie inside a rastro root (the marker in it
//     or in a parent) and must not be a mount point or a user's home directory, unless
//     --allow-unsafe-root says the user knows what is there;
//   - `/` is refused whatever the flags (nothing a replay does there can be undone).
// --init never replaces, truncates or extends a file already in the root (fs_init keeps it).
#pragma once

#include <string>
#include <vector>

namespace rastro::replay {

inline constexpr const char* kRootMarker = ".rastro-root";

struct RootPolicy {
  bool force = false;              // replay into a non-empty rastro root as it is
  bool allow_unsafe_root = false;  // also into a mount point, a home, or a tree rastro did not make
};

// What a non-empty root is, for the refusal message (each empty when it does not apply).
struct RootHazards {
  bool is_filesystem_root = false;
  bool is_mount_point = false;
  bool is_home = false;            // $HOME, the real user's or the sudo user's home directory
  std::string marker_dir;          // the directory holding the marker (root or a parent); "" = none
};

// The hazards of an existing directory `dir` (absolute, canonical).
RootHazards root_hazards(const std::string& dir);

// Checks `root` against the policy; creates a missing root (its parent must exist) and marks a
// missing or empty one. Throws rastro::Error naming the root, the reason and the flag that would
// allow it. Returns the canonical path of the root.
std::string guard_replay_root(const std::string& root, const RootPolicy& policy);

// Whether `root` is missing or holds nothing but the marker: a root such a replay starts from
// holds only what --init and the replay make.
bool root_is_empty(const std::string& root);

// Mount points listed in /proc/self/mountinfo (unescaped), for tests and root_hazards.
std::vector<std::string> mount_points();

}  // namespace rastro::replay
