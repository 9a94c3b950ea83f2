// Runs the hiprim command as a user would, through popen, and returns its exit code and its output:
// the binary is $HIPRIM_BIN when set (binaries carried to another machine), else the build's
// (HIPRIM_BIN, set by the tests' CMakeLists.txt).
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace hiprim::test {

struct Run {
  int code;         // exit status; -1 if popen failed or the command did not exit normally
  std::string out;  // what the command wrote (see hiprim() and hiprim_stdout())
};

inline std::string hiprim_binary() {
  const char* env = std::getenv("HIPRIM_BIN");
  return env && *env ? env : HIPRIM_BIN;
}

// `cmd` through the shell: its exit status and stdout.
inline Run run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// `hiprim <args> 2>&1`: stdout and stderr together; args are passed through the shell as written.
inline Run hiprim(const std::string& args) { return run_shell(hiprim_binary() + " " + args + " 2>&1"); }

// `hiprim <args> 2>/dev/null`: stdout only (notes and errors go to stderr).
inline Run hiprim_stdout(const std::string& args) { return run_shell(hiprim_binary() + " " + args + " 2>/dev/null"); }

// Whether `needle` occurs in `s`.
inline bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// Whether `hiprim <args>` exits with `code` and its output (stdout and stderr) holds `needle` (any
// output when empty); a failure shows the command, both conditions and the output.
inline ::testing::AssertionResult exits_with(const std::string& args, int code, const std::string& needle = "") {
  const Run r = hiprim(args);
  if (r.code == code && has(r.out, needle)) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << "hiprim " << args << "\n  exit " << r.code << ", want " << code;
  if (!needle.empty()) f << (has(r.out, needle) ? "; has \"" : "; lacks \"") << needle << "\"";
  return f << "\n" << r.out;
}

// A string as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace hiprim::test
