#include "workloads/common/call_log.h"

namespace rastro::workloads {

CallLog::CallLog(size_t expected) {
  if (expected == 0) expected = 1;
  while (capacity_ < expected) grow();
}

void CallLog::grow() {
  // make_unique<T[]> value-initialises, which also touches the pages now rather than on the hot path.
  chunks_.push_back(std::make_unique<CallRecord[]>(kChunk));
  capacity_ += kChunk;
}

}  // namespace rastro::workloads
