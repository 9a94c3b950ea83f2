// The fuzz corpus: one failing case per file, the file holding its one repro line
//   hiprim repro "<problem>" --solver S --seed N [--fill exact|bounded] [--special KIND]
// (lines starting with '#' and blank lines are ignored; exactly one repro line per file). Campaigns
// save shrunk failures to a corpus folder (--corpus DIR); the committed corpus fuzz/corpus/*.repro is
// compiled into the library at configure time and replayed by the tests and `hiprim check --suite corpus`.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hiprim::fuzz {

struct ReproLine {
  std::string problem;      // canonical problem string; its first token names the primitive
  std::string solver = "*"; // solver name or glob
  std::uint64_t seed = 1;
  std::string fill;         // "" (the default tier), "exact" or "bounded"
  std::string special;      // "" or the special-values kind (conv: see fuzz/conv_special.hpp)
  std::string op() const;   // first token of problem
  // The command line: hiprim repro "<problem>" --solver S --seed N [--fill F] [--special K]
  // (the solver is single-quoted when it holds glob characters).
  std::string str() const;
  bool operator==(const ReproLine&) const = default;
};

// Splits a command line into words: blanks separate, '...' and "..." quote (no escapes inside
// single quotes; \" and \\ inside double quotes). InputError on an unterminated quote.
std::vector<std::string> split_command_words(std::string_view line);

// Parses a repro line (the words above, in any order after the problem). InputError naming the word
// and the rule on anything else: not starting with "hiprim repro", a missing problem, an unknown or
// repeated flag, a flag without its value, a seed that is not an unsigned 64-bit integer.
// The problem text is not parsed here (its primitive's parser does that when the case runs).
ReproLine parse_repro_line(std::string_view line);

struct CorpusEntry {
  std::string source;  // file path (or "fuzz/corpus/<name>" for the embedded corpus)
  ReproLine repro;
};

// The repro line of a corpus file's text; InputError "<source>: ..." when there is not exactly one.
ReproLine parse_corpus_text(std::string_view text, const std::string& source);
// Every *.repro file of dir, sorted by name. InputError when dir is not a readable folder or a file
// does not parse.
std::vector<CorpusEntry> load_corpus_dir(const std::string& dir);
// The committed corpus (fuzz/corpus/*.repro at configure time), sorted by name.
std::vector<CorpusEntry> embedded_corpus();

// Writes the line to dir/<op>-<solver>-<16 hex digits of its hash>.repro (creating dir); the same line
// always gets the same file. Returns the path. RuntimeError naming the path when it cannot write.
std::string save_to_corpus(const std::string& dir, const ReproLine& line);

}  // namespace hiprim::fuzz
