// Runs the hiprim command (HIPRIM_BIN, set by tests/cli/CMakeLists.txt) as a user would, through
// popen, and returns its exit code and its stdout and stderr together.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace hiprim::test {

struct Run {
  int code;         // exit status; -1 if popen failed or the command did not exit normally
  std::string out;  // stdout and stderr together
};

// `hiprim <args> 2>&1`; args are passed through the shell as written.
inline Run hiprim(const std::string& args) {
  std::string cmd = std::string(HIPRIM_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// `hiprim <args> 2>/dev/null`: stdout only (notes and errors go to stderr).
inline Run hiprim_stdout(const std::string& args) {
  std::string cmd = std::string(HIPRIM_BIN) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// A string as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// Whether `needle` occurs in `s`.
inline bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

}  // namespace hiprim::test
