// Interned strings of a trace. Ids are dense and assigned in first-use order, which lets a
// streaming writer emit only the strings added since its last block.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "trace/model/event.h"

namespace rastro::trace {

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  StrId intern(std::string_view s);
  // Returns kNoStr for "" and ids never issued resolve to "".
  std::string_view get(StrId id) const;
  // Looks a string up without adding it.
  bool find(std::string_view s, StrId* id) const;
  size_t size() const { return strings_.size(); }

 private:
  void rebuild_index();
  std::deque<std::string> strings_;  // deque: stable addresses for the string_view keys
  std::unordered_map<std::string_view, StrId> index_;
};

}  // namespace rastro::trace
