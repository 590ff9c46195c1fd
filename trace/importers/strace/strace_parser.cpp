#include "trace/importers/strace/strace_parser.h"

#include <charconv>

namespace rastro::trace::strace {

namespace {

constexpr std::string_view kUnfinished = "<unfinished ...>";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool parse_uint(std::string_view s, uint64_t* v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "1700000000.123456" or "...123456789" -> ns. Digits after the 9th are dropped.
bool parse_seconds(std::string_view s, int64_t* ns) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= s.size()) return false;
  uint64_t sec = 0;
  if (!parse_uint(s.substr(0, dot), &sec) || sec > 9000000000ULL) return false;
  std::string_view frac = s.substr(dot + 1);
  int64_t f = 0;
  int digits = 0;
  for (char c : frac) {
    if (!is_digit(c)) return false;
    if (digits < 9) {
      f = f * 10 + (c - '0');
      ++digits;
    }
  }
  while (digits < 9) {
    f *= 10;
    ++digits;
  }
  *ns = static_cast<int64_t>(sec) * 1000000000LL + f;
  return true;
}

// Parses " = RET <DUR>" after the closing parenthesis.
bool parse_return(std::string_view after, StraceLine& out) {
  after = trim(after);
  if (after.empty() || after.front() != '=') return false;
  std::string_view ret = trim(after.substr(1));
  if (!ret.empty() && ret.back() == '>') {
    size_t lt = ret.rfind('<');
    if (lt != std::string_view::npos && (lt == 0 || ret[lt - 1] == ' ')) {
      int64_t d = 0;
      if (parse_seconds(ret.substr(lt + 1, ret.size() - lt - 2), &d)) {
        out.duration_ns = d;
        out.has_duration = true;
        ret = trim(ret.substr(0, lt));
      }
    }
  }
  if (ret.empty()) return false;
  out.ret = ret;
  return true;
}

StraceLine not_strace(std::string_view why) {
  StraceLine l;
  l.kind = StraceLineKind::kNotStrace;
  l.problem = why;
  return l;
}

}  // namespace

size_t FindSplicedMessage(std::string_view line) {
  size_t p = line.find("strace: Process ");
  if (p == std::string_view::npos || p == 0) return std::string_view::npos;
  return p;
}

size_t FindArgsEnd(std::string_view t) {
  int depth = 0;
  int angle = 0;  // inside a -y annotation: 3</x(y)> ; nested for -yy: </dev/null<char 1:3>>
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (angle > 0) {
      if (c == '<') ++angle;
      if (c == '>') --angle;
      continue;
    }
    switch (c) {
      case '"':
        for (++i; i < t.size() && t[i] != '"'; ++i)
          if (t[i] == '\\') ++i;
        if (i >= t.size()) return std::string_view::npos;
        break;
      case '<':
        if (i > 0 && (is_digit(t[i - 1]) || t[i - 1] == 'D')) angle = 1;  // "3<...>", "AT_FDCWD<...>"
        break;
      case '(': case '[': case '{':
        ++depth;
        break;
      case ')':
        if (depth == 0) return i;
        --depth;
        break;
      case ']': case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

StraceLine ParseStraceLine(std::string_view line) {
  std::string_view s = trim(line);
  StraceLine out;
  if (s.empty()) {
    out.kind = StraceLineKind::kBlank;
    return out;
  }
  if (s.starts_with("strace: ")) {
    out.kind = StraceLineKind::kStraceMessage;
    std::string_view m = s.substr(8);
    if (m.starts_with("Process ")) {
      m.remove_prefix(8);
      size_t sp = m.find(' ');
      uint64_t pid = 0;
      if (parse_uint(m.substr(0, sp), &pid) && pid < 0x7fffffff) out.message_pid = static_cast<int>(pid);
    }
    return out;
  }
  // Pid prefix: "[pid  812] " (stderr) or "812  " (-o FILE).
  if (s.starts_with("[pid ")) {
    size_t close = s.find(']');
    uint64_t pid = 0;
    if (close == std::string_view::npos || !parse_uint(trim(s.substr(5, close - 5)), &pid) || pid > 0x7fffffff)
      return not_strace("bad '[pid N]' prefix");
    out.tid = static_cast<int>(pid);
    out.has_tid = true;
    s = trim(s.substr(close + 1));
  } else if (is_digit(s.front())) {
    size_t sp = s.find(' ');
    std::string_view tok = s.substr(0, sp);
    uint64_t pid = 0;
    if (sp != std::string_view::npos && parse_uint(tok, &pid)) {
      if (pid > 0x7fffffff) return not_strace("pid out of range");
      out.tid = static_cast<int>(pid);
      out.has_tid = true;
      s = trim(s.substr(sp));
    }
  }
  // Timestamp.
  if (!s.empty() && is_digit(s.front())) {
    size_t sp = s.find(' ');
    std::string_view tok = s.substr(0, sp);
    if (tok.find(':') != std::string_view::npos) {
      out.kind = StraceLineKind::kUnsupported;
      out.problem = "time of day without a date (strace -t/-tt); re-run strace with -ttt";
      return out;
    }
    if (!parse_seconds(tok, &out.time_ns)) return not_strace("bad timestamp");
    out.has_time = true;
    s = sp == std::string_view::npos ? std::string_view() : trim(s.substr(sp));
  }
  if (s.starts_with("--- ")) {
    out.kind = StraceLineKind::kSignal;
    return out;
  }
  if (s.starts_with("+++ ")) {
    out.kind = StraceLineKind::kExit;
    return out;
  }
  std::string_view tail;
  if (s.starts_with("<... ")) {
    size_t r = s.find(" resumed>");
    if (r == std::string_view::npos) return not_strace("'<... ' without ' resumed>'");
    out.name = s.substr(5, r - 5);
    tail = s.substr(r + 9);
    std::string_view t = trim(tail);
    if (t == kUnfinished) {
      out.kind = StraceLineKind::kResumedUnfinished;
      out.args = {};
      return out.has_time ? out : StraceLine{.kind = StraceLineKind::kUnsupported, .problem = "syscall line without a timestamp; re-run strace with -ttt"};
    }
    out.kind = StraceLineKind::kResumed;
  } else {
    size_t i = 0;
    while (i < s.size() && is_ident(s[i])) ++i;
    if (i == 0 || i >= s.size() || s[i] != '(') return not_strace("expected 'name(' or '<... name resumed>'");
    out.name = s.substr(0, i);
    tail = s.substr(i + 1);
    if (tail.ends_with(kUnfinished)) {
      out.kind = StraceLineKind::kUnfinished;
      out.args = tail.substr(0, tail.size() - kUnfinished.size());
      while (!out.args.empty() && out.args.back() == ' ') out.args.remove_suffix(1);
      if (!out.has_time) {
        out.kind = StraceLineKind::kUnsupported;
        out.problem = "syscall line without a timestamp; re-run strace with -ttt";
      }
      return out;
    }
    out.kind = StraceLineKind::kComplete;
  }
  if (!out.has_time) {
    out.kind = StraceLineKind::kUnsupported;
    out.problem = "syscall line without a timestamp; re-run strace with -ttt";
    return out;
  }
  // A task killed inside a call: "read(0,  <unfinished ...>) = ?". The args end where the
  // marker starts; the marker itself is dropped.
  std::string_view after;
  size_t marker = tail.find(kUnfinished);
  if (marker != std::string_view::npos && tail.substr(marker + kUnfinished.size()).starts_with(")")) {
    out.args = trim(tail.substr(0, marker));
    after = tail.substr(marker + kUnfinished.size() + 1);
  } else {
    size_t end = FindArgsEnd(tail);
    if (end == std::string_view::npos) return not_strace("no ')' closing the arguments (truncated line?)");
    out.args = tail.substr(0, end);
    after = tail.substr(end + 1);
  }
  if (!parse_return(after, out)) return not_strace("no ' = RETURN' after the arguments");
  return out;
}

}  // namespace rastro::trace::strace
