// A JSON number read into an integer type only when it is a whole number the type can hold.
// nlohmann's own get<int>() of 1e300 or of a 72-digit number is undefined behaviour (fuzz
// findings F1 and F4, docs/reliability.md), so every reader of untrusted JSON integers uses this.
#pragma once

#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

namespace rastro {

template <class T>
bool json_to_integer(const nlohmann::json& v, T* out) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (!std::in_range<T>(u)) return false;
    *out = static_cast<T>(u);
  } else {
    const int64_t s = v.get<int64_t>();
    if (!std::in_range<T>(s)) return false;
    *out = static_cast<T>(s);
  }
  return true;
}

}  // namespace rastro
