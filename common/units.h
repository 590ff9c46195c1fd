// Parsing and printing of human quantities: sizes ("4K", "1G") and durations ("10us", "2s").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace rastro {

// "4096", "4K", "4KiB", "1M", "1G", "2T" (powers of 1024). Rejects negatives and overflow.
Result<uint64_t> parse_size(std::string_view text);
// "500ns", "10us", "3ms", "2s", "1.5s", plain number = seconds.
Result<int64_t> parse_duration_ns(std::string_view text);
std::string format_size(uint64_t bytes);
std::string format_duration_ns(double ns);

}  // namespace rastro
