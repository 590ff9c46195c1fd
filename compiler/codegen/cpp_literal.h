// Emitting trace data as C++ source safely. Every byte of a string from a trace is written as a
// three-digit octal escape unless it is a plain letter, digit, space or one of a few harmless
// punctuation marks, so quotes, backslashes, newlines, NUL, `*/`, trigraphs (`??/`) and
// non-UTF-8 bytes can neither break nor inject code, and round-trip exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rastro::compiler {

// A string literal (with quotes) whose bytes are exactly `bytes`.
std::string cpp_string_literal(std::string_view bytes);
// An integer literal valid for any int64 (INT64_MIN has no literal of its own).
std::string cpp_int_literal(int64_t v);
std::string cpp_uint_literal(uint64_t v);

}  // namespace rastro::compiler
