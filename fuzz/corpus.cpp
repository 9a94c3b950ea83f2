#include "fuzz/corpus.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "fuzz/corpus_data.hpp"

namespace hiprim::fuzz {
namespace {

// FNV-1a, 64 bit: stable file names for corpus lines.
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::uint64_t parse_seed(const std::string& s) {
  if (s.empty() || s.size() > 20 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw InputError("--seed '" + s + "': expected an unsigned integer");
  if (s.size() == 20 && s > "18446744073709551615") throw InputError("--seed " + s + " is larger than 2^64-1");
  return std::stoull(s);  // <= 20 digits and <= 2^64-1: fits
}

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[] ") != std::string::npos || s.empty(); }

std::string quote_double(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError("cannot read corpus file " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string ReproLine::op() const {
  const auto b = problem.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return problem.substr(b, problem.find_first_of(" \t", b) - b);
}

std::string ReproLine::str() const {
  std::string s = "hiprim repro " + quote_double(problem) + " --solver " + (has_glob_chars(solver) ? "'" + solver + "'" : solver) +
                  " --seed " + std::to_string(seed);
  if (!fill.empty()) s += " --fill " + fill;
  if (!special.empty()) s += " --special " + special;
  return s;
}

std::vector<std::string> split_command_words(std::string_view line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else if (c == '\'') {
      const auto end = line.find('\'', i + 1);
      if (end == std::string_view::npos) throw InputError("unterminated single quote at column " + std::to_string(i + 1));
      cur.append(line.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && (line[j + 1] == '"' || line[j + 1] == '\\')) ++j;
        cur += line[j];
      }
      if (j >= line.size()) throw InputError("unterminated double quote at column " + std::to_string(i + 1));
      in_word = true;
      i = j;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

ReproLine parse_repro_line(std::string_view line) {
  const auto w = split_command_words(line);
  if (w.size() < 2 || w[0] != "hiprim" || w[1] != "repro")
    throw InputError("a repro line starts with 'hiprim repro' (got '" + std::string(line.substr(0, 40)) + "')");
  ReproLine r;
  bool have_problem = false, have_solver = false, have_seed = false;
  for (std::size_t i = 2; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a.rfind("--", 0) != 0) {
      if (have_problem) throw InputError("repro line: unexpected word '" + a + "' (the problem is already given)");
      if (a.find_first_not_of(" \t") == std::string::npos) throw InputError("repro line: the problem string is empty");
      r.problem = a;
      have_problem = true;
      continue;
    }
    auto value = [&]() -> const std::string& {
      if (i + 1 >= w.size()) throw InputError("repro line: " + a + " needs a value");
      return w[++i];
    };
    auto once = [&](bool& seen) {
      if (seen) throw InputError("repro line: " + a + " is given twice");
      seen = true;
    };
    if (a == "--solver") {
      once(have_solver);
      r.solver = value();
      if (r.solver.empty()) throw InputError("repro line: --solver is empty");
    } else if (a == "--seed") {
      once(have_seed);
      r.seed = parse_seed(value());
    } else if (a == "--fill") {
      if (!r.fill.empty()) throw InputError("repro line: --fill is given twice");
      r.fill = value();
      if (r.fill != "exact" && r.fill != "bounded") throw InputError("repro line: --fill '" + r.fill + "': expected exact or bounded");
    } else if (a == "--special") {
      if (!r.special.empty()) throw InputError("repro line: --special is given twice");
      r.special = value();
      if (r.special.empty()) throw InputError("repro line: --special is empty");
    } else {
      throw InputError("repro line: unknown flag '" + a + "' (expected --solver, --seed, --fill, --special)");
    }
  }
  if (!have_problem) throw InputError("repro line: no problem string (hiprim repro \"<problem>\" ...)");
  return r;
}

ReproLine parse_corpus_text(std::string_view text, const std::string& source) {
  std::optional<ReproLine> found;
  std::size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string_view::npos || line[b] == '#') continue;
    if (found) throw InputError(source + ":" + std::to_string(line_no) + ": a corpus file holds exactly one repro line");
    try {
      found = parse_repro_line(line);
    } catch (const InputError& e) {
      throw InputError(source + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (!found) throw InputError(source + ": no repro line (a corpus file holds exactly one)");
  return *found;
}

std::vector<CorpusEntry> load_corpus_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("--corpus " + dir + ": not a folder");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".repro") files.push_back(e.path());
  if (ec) throw InputError("--corpus " + dir + ": cannot list it (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  std::vector<CorpusEntry> out;
  for (auto& f : files) out.push_back({f.string(), parse_corpus_text(read_file(f), f.string())});
  return out;
}

std::vector<CorpusEntry> embedded_corpus() {
  std::vector<CorpusEntry> out;
  for (const auto& [name, text] : embedded_corpus_files()) {
    const std::string source = "fuzz/corpus/" + std::string(name);
    out.push_back({source, parse_corpus_text(text, source)});
  }
  std::sort(out.begin(), out.end(), [](const CorpusEntry& a, const CorpusEntry& b) { return a.source < b.source; });
  return out;
}

std::string save_to_corpus(const std::string& dir, const ReproLine& line) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string solver;
  for (char c : line.solver) solver += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') ? c : '_';
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(line.str())));
  const std::string op = line.op().empty() ? std::string("case") : line.op();
  const fs::path path = fs::path(dir) / (op + "-" + solver + "-" + hex + ".repro");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << line.str() << "\n";
  if (!out) throw RuntimeError("cannot write corpus file " + path.string());
  return path.string();
}

}  // namespace hiprim::fuzz
