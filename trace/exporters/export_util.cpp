#include "trace/exporters/export_util.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::trace::exporters {

std::string_view arg_type_name(ArgType t) {
  static constexpr std::array<std::string_view, static_cast<size_t>(ArgType::kLast) + 1> kNames = {
      "none",  "int",    "fd",     "dirfd",     "path",     "flags",        "mode",
      "offset", "count", "whence", "at_flags",  "buf",      "ptr",          "str",
      "fcntl_cmd", "clone_flags", "prot", "map_flags", "rename_flags", "signal", "fd_pair",
      "xattr_flags", "msync_flags", "falloc_mode", "access_mode", "uid", "time",
      "lock_type"};
  auto i = static_cast<size_t>(t);
  return i < kNames.size() ? kNames[i] : std::string_view("unknown");
}

std::string_view errno_name(int err) {
  const char* n = ::strerrorname_np(err);
  return n ? std::string_view(n) : std::string_view();
}

namespace {
// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t utf8_sequence(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((b & 0xe0) == 0xc0) {
    n = 2;
    cp = b & 0x1f;
  } else if ((b & 0xf0) == 0xe0) {
    n = 3;
    cp = b & 0x0f;
  } else if ((b & 0xf8) == 0xf0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  // Reject overlong forms, surrogates and code points beyond U+10FFFF.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
    return 0;
  return n;
}
}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    size_t n = utf8_sequence(s, i);
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (b < 0x20 || b >= 0x7f) {
          out += fmt::format("\\u{:04x}", b);  // control byte, DEL, or invalid UTF-8 byte
        } else {
          out.push_back(static_cast<char>(b));
        }
    }
  }
  out.push_back('"');
}

}  // namespace rastro::trace::exporters
