// Pipes and socket pairs are created O_NONBLOCK by the replayer (a replay that diverges from the
// trace must never block forever on one). This registry keeps the O_NONBLOCK the *traced program*
// asked for, per open file description, so F_GETFL reports it and F_SETFL cannot make a
// replayer pipe blocking. A description is identified by its device, inode and access mode: each end of
// a pipe is one description (shared by dups and forks) with its own mode; each socket of a pair
// has its own inode.
#pragma once

namespace rastro::replay {

// A pipe/socketpair end just created with O_NONBLOCK forced; `wanted` = what the program asked.
void forced_nonblock_created(int replay_fd, bool wanted);

// fcntl(F_GETFL) as the traced program would see it: `flags` is what the replay's F_GETFL returned.
int forced_nonblock_getfl(int replay_fd, int flags);

// The flags to pass to the replay's fcntl(F_SETFL): O_NONBLOCK kept on replayer-created descriptions.
// (The lookups are syscalls of their own, made here, outside the replayed call.)
int forced_nonblock_setfl_flags(int replay_fd, int flags);

}  // namespace rastro::replay
