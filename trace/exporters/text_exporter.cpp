// TSV and CSV exports are the text trace format itself (lossless; `rastro import` reads them).
#include "trace/exporters/exporter.h"
#include "trace/io/trace_io.h"

namespace rastro::trace {
namespace {

class TextExporter final : public Exporter {
 public:
  TextExporter(std::string_view name, std::string_view description, TraceFormat format)
      : name_(name), description_(description), format_(format) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  void write(const Trace& trace, const std::string& path) const override {
    write_trace(path, trace, format_);  // atomic
  }

 private:
  std::string_view name_, description_;
  TraceFormat format_;
};

}  // namespace

const Exporter& tsv_exporter() {
  static const TextExporter e("tsv", "tab-separated text: pid tid begin end function args rvalue",
                              TraceFormat::kTsv);
  return e;
}

const Exporter& csv_exporter() {
  static const TextExporter e("csv", "comma-separated text with the same columns as tsv",
                              TraceFormat::kCsv);
  return e;
}

}  // namespace rastro::trace
