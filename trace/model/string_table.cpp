#include "trace/model/string_table.h"

namespace rastro::trace {

StringTable::StringTable() { strings_.emplace_back(); index_.emplace(strings_.front(), kNoStr); }

StringTable::StringTable(const StringTable& other) : strings_(other.strings_) { rebuild_index(); }

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) {
    strings_ = other.strings_;
    rebuild_index();
  }
  return *this;
}

void StringTable::rebuild_index() {
  index_.clear();
  for (size_t i = 0; i < strings_.size(); ++i) index_.emplace(strings_[i], static_cast<StrId>(i));
}

StrId StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  auto id = static_cast<StrId>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

std::string_view StringTable::get(StrId id) const {
  return id < strings_.size() ? std::string_view(strings_[id]) : std::string_view();
}

bool StringTable::find(std::string_view s, StrId* id) const {
  auto it = index_.find(s);
  if (it == index_.end()) return false;
  if (id) *id = it->second;
  return true;
}

}  // namespace rastro::trace
