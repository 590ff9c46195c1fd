// TSV and CSV exports are the text trace format itself (lossless; `rastro import` reads them).
#include "trace/exporters/exporter.h"
#include "trace/io/trace_io.h"

namespace rastro::trace {
namespace {

class TextExporter final : public Exporter {
 public:
  TextExporter(std::string_view name, std::string_view description, char sep)
      : name_(name), description_(description), sep_(sep) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  using Exporter::write;
  void write(TracePasses& trace, const std::string& path) const override {
    write_text_trace_file(path, trace, sep_);  // atomic
  }

 private:
  std::string_view name_, description_;
  char sep_;
};

}  // namespace

const Exporter& tsv_exporter() {
  static const TextExporter e("tsv", "tab-separated text: pid tid begin end function args rvalue",
                              '\t');
  return e;
}

const Exporter& csv_exporter() {
  static const TextExporter e("csv", "comma-separated text with the same columns as tsv",
                              ',');
  return e;
}

}  // namespace rastro::trace
