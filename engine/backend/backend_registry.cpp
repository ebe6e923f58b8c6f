#include <sstream>
#include <stdexcept>

#include "engine/backend/backend.h"

namespace hcpsim {

void BackendRegistry::add(const std::string& name, const std::string& description, Factory f) {
  entries_[name] = Entry{description, std::move(f)};
}

std::unique_ptr<Backend> BackendRegistry::create(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw std::invalid_argument(unknown_name_message(name));
  return it->second.factory();
}

std::string BackendRegistry::unknown_name_message(const std::string& name) const {
  std::ostringstream os;
  os << "unknown backend '" << name << "'; valid backends in this build:";
  for (const auto& [n, e] : entries_) os << ' ' << n;
  return os.str();
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, e] : entries_) out.push_back(n);
  return out;
}

std::string BackendRegistry::description(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? std::string() : it->second.description;
}

bool BackendRegistry::has(const std::string& name) const { return entries_.count(name) != 0; }

}  // namespace hcpsim
