// The coordinator engine's idle wait (replay/engines/doorbell.h): a ring before the wait keeps the
// consumer awake. Sleepers woken by every push: request_queue_test.cpp.
#include "replay/engines/doorbell.h"

#include <gtest/gtest.h>

namespace rastro::replay::detail {
namespace {

TEST(Doorbell, ARingAfterPrepareKeepsTheWaiterAwake) {
  Doorbell bell;
  const uint32_t seen = bell.prepare();
  bell.ring();
  bell.wait(seen);  // would sleep forever if the ring were lost
  SUCCEED();
}

}  // namespace
}  // namespace rastro::replay::detail
