// The committed corpus files embedded at configure time (generated corpus_data.cpp, see CMakeLists.txt).
#pragma once
#include <string_view>
#include <utility>
#include <vector>

namespace hiprim::fuzz {

// (file name, contents) of every fuzz/corpus/*.repro at configure time.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_corpus_files();

}  // namespace hiprim::fuzz
