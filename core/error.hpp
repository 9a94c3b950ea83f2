// Error types. InputError: the user's input (flag, problem string, file) is wrong; the CLI maps it to
// exit code 2. RuntimeError: something failed while doing valid work (device, I/O); exit code 1.
#pragma once
#include <stdexcept>
#include <string>

namespace hiprim {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace hiprim
