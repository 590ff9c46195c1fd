// CRC-32C (Castagnoli), the checksum of every binary-format block. Uses the SSE4.2 crc32
// instruction when the CPU has it, a slicing-by-8 table otherwise; both give the same value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rastro::trace::binary {

uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

// Visible for testing: the portable implementation.
uint32_t crc32c_portable(const void* data, size_t size, uint32_t crc = 0);

}  // namespace rastro::trace::binary
