#include "trace/io/trace_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_write.h"
#include "common/error.h"
#include "trace/formats/binary/binary_writer.h"
#include "trace/io/trace_passes.h"
#include "trace/io/trace_reader.h"
#include "trace/formats/text/text_format.h"

namespace rastro::trace {

void write_text_trace_file(const std::string& path, TracePasses& trace, char sep) {
  std::string tmp = temp_path_for(path);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("{}: cannot create: {}", tmp, std::strerror(errno)));
    write_text_trace(out, trace, sep);
    out.flush();
    if (!out) throw Error(fmt::format("{}: write failed", tmp));
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file(tmp, path);
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

// Text formats have no block structure to stream into: the sink keeps the trace in memory and
// rewrites the whole file atomically on flush() and finish() (captures should use .rastro).
class TextFileSink final : public TraceSink {
 public:
  TextFileSink(std::string path, TraceHeader header, char sep) : path_(std::move(path)), sep_(sep) {
    mem_.header() = std::move(header);
    mem_.header().complete = false;
  }
  StringTable& strings() override { return mem_.strings(); }
  TraceHeader& header() override { return mem_.header(); }
  void append(Event e) override { mem_.append(e); }
  void flush() override { write_text_trace_file(path_, *passes_over(mem_.trace()), sep_); }
  void finish() override {
    mem_.finish();
    write_text_trace_file(path_, *passes_over(mem_.trace()), sep_);
  }

 private:
  std::string path_;
  char sep_;
  MemorySink mem_;
};

}  // namespace

TraceFormat format_for_path(const std::string& path) {
  if (ends_with(path, ".tsv")) return TraceFormat::kTsv;
  if (ends_with(path, ".csv")) return TraceFormat::kCsv;
  return TraceFormat::kBinary;
}

Trace read_trace(const std::string& path, ReadReport* report) {
  return read_remaining(*open_trace_reader(path), report);
}

void write_trace(const std::string& path, const Trace& trace) {
  write_trace(path, trace, format_for_path(path));
}

void write_trace(const std::string& path, const Trace& trace, TraceFormat format) {
  write_trace(path, *passes_over(trace), format);
}

void write_trace(const std::string& path, TracePasses& trace, TraceFormat format) {
  switch (format) {
    case TraceFormat::kTsv:
      return write_text_trace_file(path, trace, '\t');
    case TraceFormat::kCsv:
      return write_text_trace_file(path, trace, ',');
    case TraceFormat::kBinary:
      break;
  }
  std::string tmp = temp_path_for(path);
  try {
    binary::write_binary_trace(tmp, trace);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit_temp_file(tmp, path);
}

std::unique_ptr<TraceSink> open_trace_sink(const std::string& path, TraceHeader header) {
  return open_trace_sink(path, std::move(header), format_for_path(path));
}

std::unique_ptr<TraceSink> open_trace_sink(const std::string& path, TraceHeader header,
                                           TraceFormat format) {
  switch (format) {
    case TraceFormat::kTsv:
      return std::make_unique<TextFileSink>(path, std::move(header), '\t');
    case TraceFormat::kCsv:
      return std::make_unique<TextFileSink>(path, std::move(header), ',');
    case TraceFormat::kBinary:
      break;
  }
  return std::make_unique<binary::BinaryWriter>(path, std::move(header));
}

}  // namespace rastro::trace
