// Shared by the fuzz targets: rastro::Error is the documented way a parser rejects bad input;
// anything else escaping (another exception, a crash, a sanitizer report) is a finding.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include "common/error.h"

#define RASTRO_FUZZ_EXPECTED_ERRORS(body)                                        \
  try {                                                                          \
    body                                                                         \
  } catch (const rastro::Error&) {                                               \
  } catch (const std::exception& e) {                                            \
    std::fprintf(stderr, "fuzz finding: non-rastro exception: %s\n", e.what()); \
    std::abort();                                                                \
  }
