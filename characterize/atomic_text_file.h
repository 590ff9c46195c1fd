// Writes a whole text file so that it appears atomically (temp file + rename, the exporters'
// helpers): a failed write never leaves a partial model, job file or report behind.
#pragma once

#include <string>

namespace rastro::characterize {

// Throws rastro::Error naming `path`.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace rastro::characterize
