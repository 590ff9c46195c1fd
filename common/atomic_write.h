// Writing a file so that readers see either the old file or the whole new one: write a temporary
// file next to the target (same file system) and rename() it into place. The one helper for this;
// a failed write leaves no partial file behind.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro {

// "<path>.tmp.<pid>": next to `path`, so the rename stays on one file system.
std::string temp_path_for(const std::string& path);

// Renames `tmp` over `path`; on failure removes `tmp` and throws Error naming `path` and errno.
void commit_temp_file(const std::string& tmp, const std::string& path);

// Calls fn(std::ofstream&) on a temporary file, then renames it into place. Throws Error naming
// the file when it cannot be created or written.
template <class Fn>
void write_file_atomically(const std::string& path, Fn&& fn) {
  const std::string tmp = temp_path_for(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("{}: cannot create file", tmp));
    try {
      fn(out);
      out.flush();
      if (!out) throw Error(fmt::format("{}: write failed", tmp));
    } catch (...) {
      // Whatever failed (the write or the callback), the temporary must not outlive it.
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
  }
  commit_temp_file(tmp, path);
}

// The whole of `text` as the file's new content, atomically.
inline void write_text_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::ofstream& out) { out << text; });
}

}  // namespace rastro
