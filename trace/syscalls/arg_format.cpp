#include "trace/syscalls/arg_format.h"

#include <charconv>

#include <fmt/format.h>

#include "common/at_fdcwd.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/flag_names.h"

namespace rastro::trace {

namespace {

constexpr std::string_view kTypeNames[] = {
    "none",  "int",   "fd",       "dirfd",      "path",        "openflags", "mode",
    "offset", "count", "whence",  "atflags",    "buf",         "ptr",       "str",
    "fcntlcmd", "cloneflags", "prot", "mapflags", "renameflags", "signal", "fdpair",
    "xattrflags", "msyncflags", "fallocmode", "accessmode", "uid", "time", "locktype",
};
static_assert(std::size(kTypeNames) == static_cast<size_t>(ArgType::kLast) + 1);


std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Drops strace's trailing comments ("0x7ffe47fbc070 /* 41 vars */").
std::string_view strip_comment(std::string_view s) {
  if (s.ends_with("*/")) {
    size_t open = s.rfind("/*");
    if (open != std::string_view::npos) return trim(s.substr(0, open));
  }
  return s;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
size_t utf8_len(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  return n;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Position of the '"' closing the string that starts at s[0] == '"', or npos.
size_t closing_quote(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\')
      ++i;
    else if (s[i] == '"')
      return i;
  }
  return std::string_view::npos;
}

// Splits "3</etc/x>" into value text "3" and annotation "/etc/x" (still escaped).
// The annotation starts at the first '<' outside brackets and must end the text.
bool split_annotation(std::string_view text, std::string_view* value, std::string_view* note) {
  if (text.empty() || text.back() != '>') return false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == '"') {
      size_t q = closing_quote(text.substr(i));
      if (q == std::string_view::npos) return false;
      i += q;
      continue;
    }
    if (c == '<' && depth == 0) {
      *value = text.substr(0, i);
      *note = text.substr(i + 1, text.size() - i - 2);
      return true;
    }
  }
  return false;
}

Failure bad(ArgType t, std::string_view text) {
  if (text.size() > 80) return fail(fmt::format("cannot read '{}...' as {}", text.substr(0, 80), arg_type_name(t)));
  return fail(fmt::format("cannot read '{}' as {}", text, arg_type_name(t)));
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  append_c_escaped(out, s);
  out += '"';
}

bool is_inferable(const Arg& a) { return a.type == ArgType::kInt || a.type == ArgType::kStr; }

}  // namespace

std::string_view arg_type_name(ArgType type) {
  auto i = static_cast<size_t>(type);
  return i < std::size(kTypeNames) ? kTypeNames[i] : std::string_view("?");
}

std::optional<ArgType> arg_type_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypeNames); ++i)
    if (kTypeNames[i] == name) return static_cast<ArgType>(i);
  return std::nullopt;
}

void append_c_escaped(std::string& out, std::string_view s, std::string_view extra) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (!extra.empty() && extra.find(static_cast<char>(c)) != std::string_view::npos) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
      continue;
    }
    switch (c) {
      case '\n': out += "\\n"; continue;
      case '\t': out += "\\t"; continue;
      case '\r': out += "\\r"; continue;
      case '\v': out += "\\v"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c >= 0x80) {
      if (size_t n = utf8_len(s, i)) {
        out.append(s.substr(i, n));
        i += n - 1;
        continue;
      }
    }
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

bool needs_unescape(std::string_view text) { return text.find('\\') != std::string_view::npos; }

Result<std::string> c_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size()) return fail("dangling backslash at the end of a string");
    char e = s[i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'e': out += '\x1b'; break;
      case '"': case '\\': case '\'': case '?': out += e; break;
      case 'x': {
        int h1 = i + 1 < s.size() ? hex_digit(s[i + 1]) : -1;
        if (h1 < 0) return fail(fmt::format("bad \\x escape at byte {}", i));
        int v = h1;
        ++i;
        if (i + 1 < s.size() && hex_digit(s[i + 1]) >= 0) {
          v = v * 16 + hex_digit(s[i + 1]);
          ++i;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k) v = v * 8 + (s[++i] - '0');
          if (v > 255) return fail(fmt::format("octal escape above \\377 at byte {}", i));
          out += static_cast<char>(v);
          break;
        }
        return fail(fmt::format("unknown escape '\\{}' at byte {}", e, i));
    }
  }
  return out;
}

void append_arg(std::string& out, const Arg& a, const StringTable& strings) {
  auto dec = [&](int64_t v) { fmt::format_to(std::back_inserter(out), "{}", v); };
  switch (a.type) {
    case ArgType::kPath:
    case ArgType::kStr:
      append_quoted(out, strings.get(a.str));
      if (a.value != 0) fmt::format_to(std::back_inserter(out), "@{}", a.value);
      return;  // the string is the quoted text itself, no <> suffix
    case ArgType::kDirFd:
    case ArgType::kFd:
      if (a.value == kAtFdCwd && a.type == ArgType::kDirFd)
        out += "AT_FDCWD";
      else
        dec(a.value);
      break;
    case ArgType::kBuf:
      if (a.value == 0)
        out += "...";
      else
        dec(a.value);
      break;
    case ArgType::kPtr:
      if (a.value == 0)
        out += "NULL";
      else
        fmt::format_to(std::back_inserter(out), "{:#x}", static_cast<uint64_t>(a.value));
      break;
    case ArgType::kTime:
      if (a.value == 0)
        out += "NULL";
      else if (a.value == 1)
        out += "[...]";
      else
        dec(a.value);
      break;
    case ArgType::kFdPair:
      fmt::format_to(std::back_inserter(out), "[{}, {}]", static_cast<int32_t>(a.value & 0xffffffff),
                     static_cast<int32_t>(a.value >> 32));
      break;
    default:
      if (has_flag_names(a.type))
        append_flags(out, a.type, a.value);
      else
        dec(a.value);
  }
  if (a.str != kNoStr) {
    out += '<';
    append_c_escaped(out, strings.get(a.str), "<>");
    out += '>';
  }
}

std::string format_arg(const Arg& arg, const StringTable& strings) {
  std::string s;
  append_arg(s, arg, strings);
  return s;
}

Result<Arg> parse_arg(ArgType type, std::string_view text, StringTable& strings) {
  text = strip_comment(trim(text));
  Arg a;
  a.type = type;
  auto intern_escaped = [&](std::string_view esc) -> Result<StrId> {
    if (!needs_unescape(esc)) return strings.intern(esc);
    auto u = c_unescape(esc);
    if (!u.ok()) return fail(u.error());
    return strings.intern(*u);
  };
  if (type == ArgType::kPath || type == ArgType::kStr) {
    if (text == "NULL") return a;
    if (text.empty() || text.front() != '"') {
      if (auto v = parse_c_integer(text)) {
        a.value = *v;
        return a;
      }
      return bad(type, text);
    }
    size_t q = closing_quote(text);
    if (q == std::string_view::npos) return bad(type, text);
    auto id = intern_escaped(text.substr(1, q - 1));
    if (!id.ok()) return fail(fmt::format("{} in {}", id.error(), arg_type_name(type)));
    a.str = *id;
    std::string_view rest = text.substr(q + 1);
    if (rest.starts_with("...")) rest.remove_prefix(3);  // strace truncated the string
    if (rest.starts_with("@")) {
      auto v = parse_c_integer(rest.substr(1));
      if (!v) return bad(type, text);
      a.value = *v;
    } else if (!rest.empty()) {
      return bad(type, text);
    }
    return a;
  }
  std::string_view value = text, note;
  if (split_annotation(text, &value, &note)) {
    auto id = intern_escaped(note);
    if (!id.ok()) return fail(fmt::format("{} in <{}>", id.error(), note));
    a.str = *id;
  }
  value = trim(value);
  switch (type) {
    case ArgType::kFd:
    case ArgType::kDirFd:
      if (value == "AT_FDCWD") {
        a.value = kAtFdCwd;
        return a;
      }
      break;
    case ArgType::kBuf:
      if (value == "...") return a;
      break;
    case ArgType::kPtr:
    case ArgType::kTime:
      if (value == "NULL") return a;
      if (type == ArgType::kTime && value == "[...]") {
        a.value = 1;
        return a;
      }
      break;
    case ArgType::kFdPair: {
      if (value.size() < 2 || value.front() != '[' || value.back() != ']') return bad(type, text);
      auto items = split_args(value.substr(1, value.size() - 2));
      if (items.size() != 2) return bad(type, text);
      int64_t fds[2];
      for (int k = 0; k < 2; ++k) {
        std::string_view v = items[static_cast<size_t>(k)], n;
        split_annotation(v, &v, &n);  // strace -y: "[3<pipe:[1]>, 4<pipe:[1]>]"
        auto x = parse_c_integer(trim(v));
        if (!x) return bad(type, text);
        fds[k] = *x;
      }
      a.value = static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(fds[0])) |
                                     (static_cast<uint64_t>(fds[1]) << 32));
      return a;
    }
    default:
      break;
  }
  if (auto v = parse_c_integer(value)) {
    a.value = *v;
    return a;
  }
  if (auto v = parse_flags(type, value)) {
    a.value = *v;
    return a;
  }
  return bad(type, text);
}

std::vector<std::string_view> split_args(std::string_view text) {
  std::vector<std::string_view> out;
  text = trim(text);
  if (text.empty()) return out;
  char stack[64];
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (depth > 0 && depth <= 64 && stack[depth - 1] == '<') {
      // Inside a <path> annotation only <, > and escapes matter: "3</a(b,c>" is one argument.
      if (c == '\\')
        ++i;
      else if (c == '<') {
        if (depth < 64) stack[depth] = '<';
        ++depth;
      } else if (c == '>')
        --depth;
      continue;
    }
    if (c == '"') {
      size_t q = closing_quote(text.substr(i));
      if (q == std::string_view::npos) break;
      i += q;
      continue;
    }
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (depth < 64) stack[depth] = c;
      ++depth;
      continue;
    }
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      char open = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
      if (depth > 0 && (depth > 64 || stack[depth - 1] == open)) --depth;
      continue;
    }
    if (c == ',' && depth == 0) {
      out.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(text.substr(start)));
  return out;
}

void append_args(std::string& out, const Event& e, const StringTable& strings) {
  // The table's row, or fcntl's lock signature for a 6-argument fcntl (fcntl_lock.h).
  const auto* sig = signature_for(syscall_by_nr(e.nr), e.nargs);
  bool match = sig != nullptr;
  for (int i = 0; match && i < e.nargs; ++i) match = e.args[static_cast<size_t>(i)].type == (*sig)[static_cast<size_t>(i)];
  bool tag_all = sig && !match;
  for (int i = 0; i < e.nargs && i < kMaxArgs; ++i) {
    if (i) out += ", ";
    const Arg& a = e.args[static_cast<size_t>(i)];
    if (!match && (tag_all || !is_inferable(a))) {
      out += arg_type_name(a.type);
      out += ':';
    }
    append_arg(out, a, strings);
  }
}

std::string format_args(const Event& e, const StringTable& strings) {
  std::string s;
  append_args(s, e, strings);
  return s;
}

Result<bool> parse_args(std::string_view text, Event& e, StringTable& strings) {
  auto items = split_args(text);
  if (items.size() > static_cast<size_t>(kMaxArgs))
    return fail(fmt::format("{} arguments (at most {})", items.size(), kMaxArgs));
  struct Item {
    std::optional<ArgType> tag;
    std::string_view text;
  };
  Item parsed[kMaxArgs];
  bool any_tag = false;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string_view t = items[i];
    parsed[i].text = t;
    size_t colon = t.find(':');
    if (colon != std::string_view::npos && colon > 0 && t[0] >= 'a' && t[0] <= 'z') {
      if (auto ty = arg_type_from_name(t.substr(0, colon))) {
        parsed[i].tag = ty;
        parsed[i].text = t.substr(colon + 1);
        any_tag = true;
      }
    }
  }
  const auto* sig = any_tag ? nullptr : signature_for(syscall_by_nr(e.nr), static_cast<int>(items.size()));
  e.nargs = static_cast<uint8_t>(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    ArgType ty;
    if (sig)
      ty = (*sig)[i];
    else if (parsed[i].tag)
      ty = *parsed[i].tag;
    else
      ty = !parsed[i].text.empty() && parsed[i].text.front() == '"' ? ArgType::kStr : ArgType::kInt;
    auto a = parse_arg(ty, parsed[i].text, strings);
    if (!a.ok()) return fail(fmt::format("argument {}: {}", i + 1, a.error()));
    e.args[i] = *a;
  }
  for (size_t i = items.size(); i < static_cast<size_t>(kMaxArgs); ++i) e.args[i] = Arg{};
  return true;
}

ReturnKind return_kind_of(const Event& e) {
  const SyscallInfo* info = syscall_by_nr(e.nr);
  return info ? info->ret : ReturnKind::kInt;
}

void append_rvalue(std::string& out, int64_t rvalue, ReturnKind kind) {
  if (rvalue < 0 && rvalue >= -4095) {
    int err = static_cast<int>(-rvalue);
    fmt::format_to(std::back_inserter(out), "-1 {} ({})", errno_name(err), errno_description(err));
    return;
  }
  if (kind == ReturnKind::kPtr && rvalue > 0)
    fmt::format_to(std::back_inserter(out), "{:#x}", static_cast<uint64_t>(rvalue));
  else
    fmt::format_to(std::back_inserter(out), "{}", rvalue);
}

std::string format_rvalue(int64_t rvalue, ReturnKind kind) {
  std::string s;
  append_rvalue(s, rvalue, kind);
  return s;
}

Result<int64_t> parse_rvalue(std::string_view text) {
  text = trim(text);
  std::string_view orig = text;
  // "-1 ENOENT (No such file or directory)", "? ERESTARTSYS (To be restarted ...)"
  if (text.starts_with("-1 E") || text.starts_with("? E")) {
    std::string_view rest = text.substr(text.find(' ') + 1);
    size_t end = rest.find(' ');
    std::string_view name = rest.substr(0, end);
    if (auto err = errno_number(name)) return -static_cast<int64_t>(*err);
    return fail(fmt::format("unknown errno name '{}' in return value '{}'", name, orig));
  }
  // Drop a trailing comment: "0x1 (flags FD_CLOEXEC)", "1 (in [3])".
  if (size_t sp = text.find(" ("); sp != std::string_view::npos && text.back() == ')') text = text.substr(0, sp);
  std::string_view value = text, note;
  if (split_annotation(text, &value, &note)) text = value;
  if (auto v = parse_c_integer(trim(text))) return *v;
  if (orig.size() > 80) return fail(fmt::format("cannot read return value '{}...'", orig.substr(0, 80)));
  return fail(fmt::format("cannot read return value '{}'", orig));
}

}  // namespace rastro::trace
