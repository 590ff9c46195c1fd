// Reads TSV/CSV text traces; see text_format.h for the layout.
#include <charconv>
#include <istream>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/formats/text/text_columns.h"
#include "trace/formats/text/text_format.h"
#include "trace/syscalls/arg_format.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

namespace {

std::string excerpt(std::string_view s) {
  std::string out;
  append_c_escaped(out, s.substr(0, 60));
  if (s.size() > 60) out += "...";
  return out;
}

class Reader final : public TraceReader {
 public:
  // Reads the lines before the first row (header comment, strings, column line).
  Reader(std::istream& in, std::string name, std::unique_ptr<std::istream> owned = nullptr)
      : owned_(std::move(owned)), in_(in), name_(std::move(name)) {
    while (!sep_ && next_line()) {
      if (line_.front() == '#')
        comment(line_);
      else
        column_line(line_);
    }
    if (in_.bad()) throw Error(fmt::format("{}: read error after line {}", name_, lineno_));
    if (!sep_) throw Error(fmt::format("{}: no column line (expected 'pid<TAB>tid<TAB>begin<TAB>end<TAB>function<TAB>args<TAB>rvalue')", name_));
  }

  const TraceHeader& header() const override { return header_; }
  const StringTable& strings() const override { return strings_; }
  StringTable take_strings() override { return std::move(strings_); }
  const ReadReport& report() const override { return report_; }
  uint64_t events_read() const override { return events_; }
  uint64_t remaining_hint() override { return 0; }

  bool next_block(std::vector<Event>* out) override {
    size_t before = out->size();
    while (out->size() - before < kTextBlockEvents && next_line()) {
      if (line_.front() == '#') {
        comment(line_);
        continue;
      }
      out->push_back(row(line_));
      ++events_;
    }
    if (in_.bad()) throw Error(fmt::format("{}: read error after line {}", name_, lineno_));
    return out->size() > before;
  }

 private:
  // The next non-empty line (without its CR) into line_; false at the end.
  bool next_line() {
    while (std::getline(in_, line_)) {
      ++lineno_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (!line_.empty()) return true;
    }
    return false;
  }

  [[noreturn]] void error(const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", name_, lineno_, what));
  }

  void comment(std::string_view line) {
    if (line.starts_with(text::kMagic)) {
      if (lineno_ != 1) error("header comment must be the first line");
      nlohmann::json j = nlohmann::json::parse(line.substr(text::kMagic.size()), nullptr, false);
      if (j.is_discarded()) error("header comment is not valid JSON");
      try {
        header_ = TraceHeader::from_json(j);
      } catch (const Error& e) {
        error(e.what());
      }
      return;
    }
    if (line.starts_with(text::kStringsLine)) {
      if (sep_ || strings_.size() > 1) error("'# strings' line must come before the column line, once");
      std::string_view rest = line.substr(text::kStringsLine.size());
      StrId expect = 1;
      while (!rest.empty()) {
        if (rest.front() == ' ') {
          rest.remove_prefix(1);
          continue;
        }
        if (rest.front() != '"') error("'# strings' line: expected a quoted string");
        size_t i = 1;
        for (; i < rest.size() && rest[i] != '"'; ++i)
          if (rest[i] == '\\') ++i;
        if (i >= rest.size()) error("'# strings' line: unterminated string");
        auto s = c_unescape(rest.substr(1, i - 1));
        if (!s.ok()) error("'# strings' line: " + s.error());
        if (strings_.intern(*s) != expect++) error("'# strings' line: duplicate or empty string " + excerpt(*s));
        rest.remove_prefix(i + 1);
      }
    }
    // Other comments are free text.
  }

  void column_line(std::string_view line) {
    sep_ = line.find('\t') != std::string_view::npos ? '\t' : ',';
    auto names = split(line);
    col_.assign(text::kNumColumns, -1);
    for (size_t i = 0; i < names.size(); ++i) {
      bool found = false;
      for (int c = 0; c < text::kNumColumns; ++c) {
        if (names[i] == text::kColumnNames[static_cast<size_t>(c)]) {
          if (col_[static_cast<size_t>(c)] >= 0) error(fmt::format("column '{}' appears twice", names[i]));
          col_[static_cast<size_t>(c)] = static_cast<int>(i);
          found = true;
        }
      }
      if (!found) error(fmt::format("unknown column '{}' (columns: pid tid begin end function args rvalue flags planned_ns expected_rvalue raw_end_ns seq offcpu_ns vol_switches invol_switches uring_user_data uring_enter_ns gap_offcpu_ns)", excerpt(names[i])));
    }
    for (int c = 0; c < text::kRequiredColumns; ++c)
      if (col_[static_cast<size_t>(c)] < 0) error(fmt::format("missing column '{}'", text::kColumnNames[static_cast<size_t>(c)]));
    ncols_ = names.size();
  }

  // Splits one line into fields; CSV fields may be quoted ("a, b" with "" for a quote).
  std::vector<std::string> split(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (true) {
      std::string f;
      if (sep_ == ',' && i < line.size() && line[i] == '"') {
        ++i;
        while (true) {
          if (i >= line.size()) error("unterminated quoted CSV field");
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              f += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          f += line[i++];
        }
        if (i < line.size() && line[i] != sep_) error("text after a quoted CSV field");
      } else {
        size_t end = line.find(sep_, i);
        if (end == std::string_view::npos) end = line.size();
        f.assign(line.substr(i, end - i));
        i = end;
      }
      out.push_back(std::move(f));
      if (i >= line.size()) break;
      ++i;  // the separator
      if (i == line.size()) {
        out.emplace_back();
        break;
      }
    }
    return out;
  }

  template <typename T>
  T integer(const std::string& s, int col) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      error(fmt::format("column '{}': '{}' is not an integer", text::kColumnNames[static_cast<size_t>(col)], excerpt(s)));
    return v;
  }

  void function(const std::string& text, Event& e) {
    size_t hash = text.rfind('#');
    if (hash != std::string::npos) {
      std::string_view num = std::string_view(text).substr(hash + 1);
      int32_t nr = 0;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), nr);
      if (ec == std::errc() && p == num.data() + num.size() && !num.empty()) {
        e.nr = nr;
        auto name = c_unescape(std::string_view(text).substr(0, hash));
        if (!name.ok()) error("column 'function': " + name.error());
        e.name = strings_.intern(*name);
        return;
      }
    }
    if (const SyscallInfo* info = syscall_by_name(text)) {
      e.nr = info->nr;
      return;
    }
    auto name = c_unescape(text);
    if (!name.ok()) error("column 'function': " + name.error());
    if (name->empty()) error("column 'function' is empty");
    e.nr = -1;
    e.name = strings_.intern(*name);
  }

  Event row(std::string_view line) {
    auto f = split(line);
    if (f.size() != ncols_) error(fmt::format("{} fields, expected {} (one per column)", f.size(), ncols_));
    auto at = [&](int c) -> const std::string& { return f[static_cast<size_t>(col_[static_cast<size_t>(c)])]; };
    auto has = [&](int c) { return col_[static_cast<size_t>(c)] >= 0; };
    Event e;
    e.pid = integer<int32_t>(at(text::kPid), text::kPid);
    e.tid = integer<int32_t>(at(text::kTid), text::kTid);
    e.begin_ns = integer<int64_t>(at(text::kBegin), text::kBegin);
    e.end_ns = integer<int64_t>(at(text::kEnd), text::kEnd);
    function(at(text::kFunction), e);
    auto args = parse_args(at(text::kArgs), e, strings_);
    if (!args.ok()) error("column 'args': " + args.error());
    auto rv = parse_rvalue(at(text::kRvalue));
    if (!rv.ok()) error("column 'rvalue': " + rv.error());
    e.rvalue = *rv;
    if (has(text::kFlags)) e.flags = integer<uint32_t>(at(text::kFlags), text::kFlags);
    if (has(text::kPlanned)) e.planned_ns = integer<int64_t>(at(text::kPlanned), text::kPlanned);
    if (has(text::kExpected)) e.expected_rvalue = integer<int64_t>(at(text::kExpected), text::kExpected);
    if (has(text::kRawEnd)) e.raw_end_ns = integer<int64_t>(at(text::kRawEnd), text::kRawEnd);
    e.seq = has(text::kSeq) ? integer<uint64_t>(at(text::kSeq), text::kSeq) : events_;
    if (has(text::kOffCpu)) e.offcpu_ns = integer<int64_t>(at(text::kOffCpu), text::kOffCpu);
    if (has(text::kVolSwitches)) e.vol_switches = integer<uint32_t>(at(text::kVolSwitches), text::kVolSwitches);
    if (has(text::kInvolSwitches)) e.invol_switches = integer<uint32_t>(at(text::kInvolSwitches), text::kInvolSwitches);
    if (has(text::kUringUserData)) e.uring_user_data = integer<uint64_t>(at(text::kUringUserData), text::kUringUserData);
    if (has(text::kUringEnter)) e.uring_enter_ns = integer<int64_t>(at(text::kUringEnter), text::kUringEnter);
    if (has(text::kGapOffCpu)) e.gap_offcpu_ns = integer<int64_t>(at(text::kGapOffCpu), text::kGapOffCpu);
    return e;
  }

  std::unique_ptr<std::istream> owned_;
  std::istream& in_;
  std::string name_;
  std::string line_;
  uint64_t lineno_ = 0;
  uint64_t events_ = 0;
  TraceHeader header_;
  StringTable strings_;
  ReadReport report_;
  char sep_ = 0;
  std::vector<int> col_;
  size_t ncols_ = 0;
};

}  // namespace

Trace read_text_trace(std::istream& in, const std::string& name_for_errors) {
  Reader r(in, name_for_errors);
  Trace t;
  while (r.next_block(&t.events)) {
  }
  t.header = r.header();
  t.strings = r.take_strings();
  return t;
}

std::unique_ptr<TraceReader> open_text_reader(std::unique_ptr<std::istream> in,
                                              const std::string& name_for_errors) {
  std::istream& ref = *in;
  return std::make_unique<Reader>(ref, name_for_errors, std::move(in));
}

bool looks_like_text_trace(std::string_view b) {
  if (b.starts_with(text::kMagic.substr(0, std::min(b.size(), text::kMagic.size()))) && b.size() >= 8) return true;
  return b.starts_with("pid\ttid\tbegin\t") || b.starts_with("pid,tid,begin,");
}

}  // namespace rastro::trace
