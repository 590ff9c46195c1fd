#include "trace/io/trace_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/formats/binary/binary_reader.h"
#include "trace/formats/text/text_format.h"

namespace rastro::trace {

std::unique_ptr<TraceReader> open_trace_reader(const std::string& path) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string prefix(4096, '\0');
  in->read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  prefix.resize(static_cast<size_t>(in->gcount()));
  if (prefix.empty()) throw Error(fmt::format("{}: empty file, not a trace", path));
  if (binary::has_binary_magic(prefix)) return std::make_unique<binary::BinaryReader>(path);
  if (!looks_like_text_trace(prefix))
    throw Error(fmt::format("{}: not a rastro trace (neither the binary magic number nor a "
                            "TSV/CSV trace header)",
                            path));
  in->clear();
  in->seekg(0);
  return open_text_reader(std::move(in), path);
}

bool TraceReader::next_events(std::span<const Event>* out) {
  view_buffer_.clear();
  if (!next_block(&view_buffer_)) return false;
  *out = view_buffer_;
  return true;
}

Trace read_remaining(TraceReader& reader, ReadReport* report) {
  Trace t;
  // One allocation instead of a doubling vector copying ~200-byte events (bounded, so a bogus
  // block header cannot make us reserve terabytes).
  t.events.reserve(std::min<uint64_t>(reader.remaining_hint(), uint64_t{1} << 28));
  while (reader.next_block(&t.events)) {
  }
  t.header = reader.header();
  t.strings = reader.take_strings();
  if (report) *report = reader.report();
  return t;
}

}  // namespace rastro::trace
