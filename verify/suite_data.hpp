// The suite text files embedded at configure time (generated suite_data.cpp, see CMakeLists.txt).
#pragma once
#include <string_view>

namespace hiprim::verify {

// Contents of verify/suites/<file_name>, or an empty view when there is no such embedded file.
std::string_view embedded_suite_file(std::string_view file_name);

}  // namespace hiprim::verify
