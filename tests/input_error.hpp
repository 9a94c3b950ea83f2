// The message of the InputError that f() throws, or "(accepted)" when it throws none: for tests of
// the messages bad problem strings and bad data get.
#pragma once
#include <string>

#include "core/error.hpp"

namespace hiprim::test {

template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace hiprim::test
