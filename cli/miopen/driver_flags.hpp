// MIOpenDriver's command-line parser (driver/InputFlags.{hpp,cpp} of ROCm/MIOpen), reproduced so that
// a line is read exactly as MIOpenDriver reads it:
//   - flags live in a table keyed by their one-letter short name (AddInputFlag keeps the first flag
//     of a short name); every flag takes a value, given as the next argument;
//   - "--name VALUE" looks the long name up (unknown: "Long Name: X Not Found", the run stops) and
//     upper-cases VALUE for flags added with convert2uppercase (conv's --in_layout, bnorm's --layout);
//   - "-x VALUE" uses only the letter after '-' ("-n100" is -n with the NEXT argument as value) and
//     never upper-cases; an unknown letter stops the run ("Input Flag: x Not Found");
//   - an argument not starting with '-' stops the run ("Illegal input flag"); -h, --help, -? print
//     the flag list; a flag given twice keeps the last value;
//   - values are read when used: GetValueInt = atoi, GetValueDouble = atof, GetValueStr as given.
// A run-stopping case throws Refuse (translation.hpp) naming MIOpenDriver's message.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cli/miopen/translation.hpp"

namespace hiprim::mdriver {

// What a flag does for hiprim (documentation and the "ignored" notes).
enum class FlagUse {
  problem,  // read by the translation into the problem(s)
  run,      // changes how MIOpenDriver runs (iterations, timing, verification, search, solution,
            // workspace, printing), not the problem: accepted, reported as ignored when given
  data,     // input/output files or dumps: hiprim uses its own fills and --dump
};

struct FlagSpec {
  std::string long_name;
  char short_name = 0;
  std::string default_value;
  bool uppercase = false;  // AddInputFlag(..., convert2uppercase = true)
  FlagUse use = FlagUse::problem;
  std::string meaning;  // hiprim's meaning (help text and README table)
  // Long names this flag had in older MIOpenDriver versions (accepted, with a note).
  std::vector<std::string> old_names = {};
};

class DriverFlags {
 public:
  // The command's table in AddCmdLineArgs order (InputFlags' constructor adds "help" 'h' first).
  DriverFlags(std::string command, std::vector<FlagSpec> specs);

  // InputFlags::Parse over the arguments after the command. Throws Refuse (kind rejected, or help
  // for -h/--help/-?) where MIOpenDriver stops.
  void parse(const std::vector<std::string>& args);

  bool given(const std::string& long_name) const;  // set on the command line
  std::string str(const std::string& long_name) const;  // GetValueStr (after upper-casing)
  // GetValueInt: atoi of the value. A value that is not a plain integer adds a note saying how
  // MIOpenDriver reads it ("-F '1.5' reads as 1 (atoi)"); outside int range: Refuse.
  int integer(const std::string& long_name);
  // GetValueDouble: atof, with the same note for values that are not plain numbers.
  double real(const std::string& long_name);
  void set(const std::string& long_name, const std::string& value);  // InputFlags::SetValue
  // How the flag was written on the line ("--pad_h" or "-p"), else "--<long>".
  std::string spelled(const std::string& long_name) const;

  const std::vector<FlagSpec>& specs() const { return specs_; }
  const std::string& command() const { return command_; }
  // Notes collected while reading values (atoi/atof readings), then the run/data flags given on
  // the line ("ignored (...): -i 10, -t 1").
  std::vector<std::string> notes() const;
  void note(std::string n) { notes_.push_back(std::move(n)); }

 private:
  const FlagSpec& spec(const std::string& long_name) const;  // throws std::logic_error if unknown
  std::string command_;
  std::vector<FlagSpec> specs_;
  std::map<char, std::size_t> by_short_;
  std::map<std::string, std::string> values_;     // long name -> value
  std::map<std::string, std::string> spelled_;    // long name -> "-p" / "--pad_h" (when given)
  std::vector<std::string> given_order_;          // long names in first-given order
  std::vector<std::string> notes_;
};

// C's atoi/atof as glibc implements them (strtol/strtod; leading white space, sign, stops at the
// first character that does not fit). `clean` says whether the whole string was one number.
long long c_atoll(const std::string& s, bool* clean);
double c_atof(const std::string& s, bool* clean);

}  // namespace hiprim::mdriver
