// The data a trace moves, per file: every successful read, write, sync, open and close reduced to
// (time, thread, file, offset, bytes). Shared by the fio iolog exporter and `rastro characterize`,
// which both need the same answer to "which bytes of which file did this call touch".
//
// Offsets: explicit for pread/pwrite families; otherwise the descriptor's position, followed
// through open (0, or with O_APPEND the file's size as the trace shows it: the largest extent
// read or written, reset to 0 by O_TRUNC, creat and unlink, set by truncate/ftruncate, carried
// to the new name by rename), read/write (advance by the bytes moved) and lseek (its return value). A descriptor met without its open starts at 0. Bytes are
// the return value (what was really moved); `requested` is the count asked for. A read returning
// 0 (end of file) is kept, with bytes 0: it tells a reader finished the file.
// Files are named by the path the trace recorded for the descriptor (strace -y style: what the
// kernel reports, symlinks resolved), else the path given to open, else "pid<P>.fd<N>" (counted in
// unnamed_fds). When the recorded path differs from the one the open used (/lib/x opened,
// /usr/lib/x reported), it is the same file: the file takes the recorded name, the open's stays an
// alias of it, so the open and its reads are one file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace rastro::trace {

enum class AccessKind : uint8_t { kOpen, kRead, kWrite, kSync, kDataSync, kClose };

struct FileAccess {
  size_t event = 0;     // index in trace.events
  int64_t time_ns = 0;  // begin of the call
  int32_t pid = 0;
  int32_t tid = 0;
  AccessKind kind = AccessKind::kRead;
  uint32_t file = 0;    // index in FileAccessLog::files
  uint64_t offset = 0;  // read/write only
  uint64_t bytes = 0;   // read/write only
  uint64_t requested = 0;  // read/write only: the count argument (bytes when the call has none)
};

struct FileAccessLog {
  std::vector<std::string> files;     // distinct file names, first-use order
  std::vector<FileAccess> accesses;   // trace order
  uint64_t unnamed_fds = 0;           // descriptors whose path the trace does not tell
  uint64_t skipped_transfers = 0;     // sendfile/copy_file_range/splice: not reduced (two files)
};

FileAccessLog file_accesses(const Trace& trace);

// The same reduction one event at a time, for traces read block by block: add() appends the
// accesses of event number `index` to log().accesses, which the caller may consume and clear
// (the descriptor and file state stays in the reducer; its size grows with the files, not the
// events).
class FileAccessReducer {
 public:
  FileAccessReducer();
  ~FileAccessReducer();
  FileAccessReducer(const FileAccessReducer&) = delete;
  FileAccessReducer& operator=(const FileAccessReducer&) = delete;

  void add(size_t index, const Event& e, const StringTable& strings);
  FileAccessLog& log();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rastro::trace
