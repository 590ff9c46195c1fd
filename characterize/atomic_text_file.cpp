#include "characterize/atomic_text_file.h"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/exporters/export_util.h"

namespace rastro::characterize {

void write_text_file(const std::string& path, const std::string& text) {
  std::string tmp = trace::exporters::temp_path_for(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(fmt::format("{}: cannot write", path));
    }
  }
  trace::exporters::commit_temp_file(tmp, path);
}

}  // namespace rastro::characterize
