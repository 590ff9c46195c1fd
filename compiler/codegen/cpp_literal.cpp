#include "compiler/codegen/cpp_literal.h"

#include <limits>

#include <fmt/format.h>

namespace rastro::compiler {

namespace {
bool plain(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case ' ': case '/': case '.': case '_': case '-': case '+': case ',': case ':': case '=': case '@': case '%':
      return true;
    default:
      return false;  // notably ? " \ * ' and every control or non-ASCII byte
  }
}
}  // namespace

std::string cpp_string_literal(std::string_view bytes) {
  std::string out = "\"";
  out.reserve(bytes.size() + 2);
  for (unsigned char c : bytes) {
    if (plain(c)) out += static_cast<char>(c);
    else out += fmt::format("\\{:03o}", c);  // always 3 digits: a following digit cannot extend it
  }
  return out + "\"";
}

std::string cpp_int_literal(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return fmt::format("{}LL", v);
}

std::string cpp_uint_literal(uint64_t v) { return fmt::format("{}ULL", v); }

}  // namespace rastro::compiler
