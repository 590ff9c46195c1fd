// Exporters: a trace written in a format other tools read (as bpftrace's output/output.h: one
// small interface, one file per format). `rastro export -f NAME` picks one by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trace/io/trace_passes.h"
#include "trace/model/trace.h"

namespace rastro::trace {

class Exporter {
 public:
  virtual ~Exporter() = default;
  virtual std::string_view name() const = 0;         // "chrome", "sqlite", "tsv", "csv"
  virtual std::string_view description() const = 0;  // one line for --help
  // Writes the trace to `path` from passes over it (memory bounded by a block, whatever the
  // trace's length). The file appears atomically (temp + rename): a failed export never leaves a
  // partial file. Throws rastro::Error naming the file.
  virtual void write(TracePasses& trace, const std::string& path) const = 0;
  void write(const Trace& trace, const std::string& path) const { write(*passes_over(trace), path); }
};

// Every exporter, in --help order.
std::vector<const Exporter*> all_exporters();
// nullptr when there is no exporter with that name.
const Exporter* find_exporter(std::string_view name);

// One file per format (trace/exporters/<format>_exporter.cpp).
const Exporter& chrome_exporter();
const Exporter& sqlite_exporter();
const Exporter& tsv_exporter();
const Exporter& csv_exporter();
const Exporter& fio_iolog_exporter();

}  // namespace rastro::trace
