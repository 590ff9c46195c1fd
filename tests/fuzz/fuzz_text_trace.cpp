// libFuzzer target: the TSV/CSV trace reader on arbitrary bytes (tests/fuzz/corpus/text_trace).
#include <sstream>
#include <string>
#include "tests/fuzz/fuzz_error_policy.h"
#include "trace/formats/text/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)rastro::trace::looks_like_text_trace(bytes);
  std::istringstream in(bytes);
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::trace::Trace t = rastro::trace::read_text_trace(in, "fuzz.tsv");
    // Whatever was accepted must be writable again (the round trip is documented lossless).
    std::ostringstream out;
    rastro::trace::write_text_trace(out, t, '\t');
  })
  return 0;
}
