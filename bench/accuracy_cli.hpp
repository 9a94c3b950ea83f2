// What the two accuracy tools (winograd_accuracy_main.cpp, fft_accuracy_main.cpp) share on the command
// line: the batch, the first-N-layers cut, the fill seed and the markdown output, and a list of
// integers each from a fixed set (the tile sizes).
#pragma once
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"

namespace hiprim {

struct AccuracyOptions {
  int batch = 1, layers = 0;  // layers 0: all
  std::uint64_t seed = 1;
  std::string markdown;  // "" : none
};

inline void add_accuracy_options(CLI::App& app, AccuracyOptions& o) {
  app.add_option("--batch", o.batch, "Images per layer")->check(CLI::PositiveNumber);
  app.add_option("--layers", o.layers, "The first N layers only (0: all)")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "Fill seed");
  app.add_option("--markdown", o.markdown, "Write the table as markdown");
}

// The integers of the comma list `text`, each one of `allowed`; InputError naming `flag` otherwise.
inline std::vector<int> int_choices(const std::string& flag, const std::string& text, const std::vector<int>& allowed) {
  std::vector<int> out;
  for (const auto& t : split_list(text)) {
    int v = 0;
    std::size_t used = 0;
    try {
      v = std::stoi(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string names;
      for (const int a : allowed) names += (names.empty() ? "" : ", ") + std::to_string(a);
      throw InputError(flag + ": '" + t + "' is not one of " + names);
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace hiprim
