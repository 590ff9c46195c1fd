// libFuzzer target: the native binary trace reader (tests/fuzz/corpus/binary_trace).
// Blocks are CRC-protected, so mutated files mostly stop at the first bad CRC; the events-column
// decoder behind the CRC is therefore also fed directly, selected by the input's first byte
// being 0xFF (a .rastro file never starts with it).
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "tests/fuzz/fuzz_error_policy.h"
#include "trace/formats/binary/event_columns.h"
#include "trace/io/trace_io.h"

namespace {
std::string temp_path() {
  char p[] = "/tmp/rastro-fuzz-binary-XXXXXX";
  int fd = mkstemp(p);
  if (fd < 0) std::abort();
  close(fd);
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 3 && data[0] == 0xFF) {
    std::string_view raw(reinterpret_cast<const char*>(data + 3), size - 3);
    std::vector<rastro::trace::Event> out;
    std::string why;
    RASTRO_FUZZ_EXPECTED_ERRORS({
      (void)rastro::trace::binary::decode_event_columns(raw, data[1], data[2], out, &why);
    })
    return 0;
  }
  static const std::string path = temp_path();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  rastro::trace::ReadReport report;
  RASTRO_FUZZ_EXPECTED_ERRORS({ (void)rastro::trace::read_trace(path, &report); })
  return 0;
}
