// Small text helpers shared by the command-line front ends (cli/, bench/).
#pragma once
#include <string>
#include <vector>

namespace hiprim {

// "a,b,,c" -> {"a", "b", "c"}: the comma-separated items, empty ones dropped.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace hiprim
