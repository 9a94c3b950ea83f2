#include "verify/solvers.hpp"

#include "core/error.hpp"
#include "verify/host_solvers.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/conv/registry.hpp"
#endif

namespace hiprim::verify {

const ConvSolverList& conv_solvers() {
  static const ConvSolverList all = [] {
    ConvSolverList l;
#ifdef HIPRIM_WITH_GPU
    for (auto& s : gpu::gpu_conv_solvers()) l.push_back(s);
#endif
    l.push_back(make_fast_reference_solver());
    return l;
  }();
  return all;
}

bool glob_match(const std::string& g, const std::string& s) {
  // Iterative wildcard match with backtracking to the last '*'.
  std::size_t gi = 0, si = 0, star = std::string::npos, mark = 0;
  while (si < s.size()) {
    if (gi < g.size() && (g[gi] == '?' || g[gi] == s[si])) {
      ++gi;
      ++si;
    } else if (gi < g.size() && g[gi] == '*') {
      star = gi++;
      mark = si;
    } else if (star != std::string::npos) {
      gi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (gi < g.size() && g[gi] == '*') ++gi;
  return gi == g.size();
}

bool glob_list_match(const std::string& globs, const std::string& name) {
  std::size_t start = 0;
  while (start <= globs.size()) {
    const std::size_t comma = globs.find(',', start);
    const std::string g = globs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!g.empty() && glob_match(g, name)) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

ConvSolverList select_conv_solvers(const std::string& glob) {
  ConvSolverList out = match_solvers(conv_solvers(), glob);
  if (out.empty()) {
    std::string names;
    for (auto& s : conv_solvers()) names += (names.empty() ? "" : ", ") + s->name();
    throw InputError("--solver '" + glob + "' matches no solver; known solvers: " + names);
  }
  return out;
}

}  // namespace hiprim::verify
