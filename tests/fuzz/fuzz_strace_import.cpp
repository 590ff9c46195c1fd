// libFuzzer target: the strace-log importer on arbitrary bytes (tests/fuzz/corpus/strace_import).
#include <sstream>
#include <string>
#include "tests/fuzz/fuzz_error_policy.h"
#include "trace/importers/strace/strace_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  rastro::trace::MemorySink sink;
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::trace::ImportReport r = rastro::trace::import_strace(in, "fuzz.log", sink);
    // Every event the importer kept must be consistent with what it counted.
    if (r.events != sink.trace().events.size()) {
      std::fprintf(stderr, "fuzz finding: report says %llu events, sink has %zu\n",
                   static_cast<unsigned long long>(r.events), sink.trace().events.size());
      std::abort();
    }
  })
  return 0;
}
