#include "cli/miopen/driver_flags.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace hiprim::mdriver {

long long c_atoll(const std::string& s, bool* clean) {
  const char* b = s.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(b, &end, 10);
  if (clean) {
    // A plain integer: optional sign and digits only (atoi also skips leading blanks; we call
    // those unclean so the note shows how MIOpenDriver read it).
    bool ok = end != b && *end == '\0' && !std::isspace(static_cast<unsigned char>(s[0])) && errno != ERANGE;
    *clean = ok;
  }
  return v;
}

double c_atof(const std::string& s, bool* clean) {
  const char* b = s.c_str();
  char* end = nullptr;
  const double v = std::strtod(b, &end);
  if (clean) *clean = end != b && *end == '\0' && !std::isspace(static_cast<unsigned char>(s[0]));
  return v;
}

DriverFlags::DriverFlags(std::string command, std::vector<FlagSpec> specs) : command_(std::move(command)) {
  // InputFlags(): AddInputFlag("help", 'h', "", "Print Help Message", "string").
  specs_.push_back({"help", 'h', "", false, FlagUse::run, "print the flags"});
  for (auto& s : specs) {
    // AddInputFlag: a second flag with the same short name is dropped ("already exists").
    if (std::any_of(specs_.begin(), specs_.end(), [&](const FlagSpec& o) { return o.short_name == s.short_name; })) continue;
    specs_.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    by_short_[specs_[i].short_name] = i;
    values_[specs_[i].long_name] = specs_[i].default_value;
  }
}

const FlagSpec& DriverFlags::spec(const std::string& long_name) const {
  for (auto& s : specs_)
    if (s.long_name == long_name) return s;
  throw std::logic_error("MIOpenDriver " + command_ + " has no flag --" + long_name);
}

void DriverFlags::parse(const std::vector<std::string>& args) {
  const std::string who = "MIOpenDriver " + command_;
  auto store = [&](const FlagSpec& s, const std::string& value, const std::string& spelled, bool from_long) {
    std::string v = value;
    // StoreOptionalFlagValue upper-cases for long names only; "-x VALUE" stores VALUE as given.
    if (from_long && s.uppercase) std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    values_[s.long_name] = v;
    if (!spelled_.count(s.long_name)) given_order_.push_back(s.long_name);
    spelled_[s.long_name] = spelled;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] != '-')
      reject(who + ": '" + a + "' is not a flag (MIOpenDriver: \"Illegal input flag\"; every flag is -x VALUE or --name VALUE)");
    if (a.size() >= 2 && a[1] == '-') {
      const std::string name = a.substr(2);
      if (name == "help") throw Refuse{RefusalKind::help, who};
      const FlagSpec* s = nullptr;
      for (auto& sp : specs_)
        if (sp.long_name == name) s = &sp;  // FindShortName keeps the last match
      if (!s)
        for (auto& sp : specs_)
          if (std::find(sp.old_names.begin(), sp.old_names.end(), name) != sp.old_names.end()) {
            s = &sp;
            note(a + " is the name of --" + sp.long_name + " (-" + std::string(1, sp.short_name) +
                 ") in older MIOpenDriver versions; current MIOpenDriver rejects it (\"Long Name: " + name + " Not Found\")");
          }
      if (!s) reject(who + " has no flag " + a + " (MIOpenDriver: \"Long Name: " + name + " Not Found !\")");
      if (i + 1 >= args.size()) reject(who + ": " + a + " needs a value (MIOpenDriver reads past the end of the line)");
      store(*s, args[i + 1], a, true);
      ++i;
      continue;
    }
    const char letter = a.size() >= 2 ? a[1] : '\0';
    if (letter == '?') throw Refuse{RefusalKind::help, who};
    auto it = by_short_.find(letter);
    if (it == by_short_.end())
      reject(who + " has no flag " + (letter ? std::string("-") + letter : std::string("'-'")) + " (MIOpenDriver: \"Input Flag: " +
             std::string(letter ? 1 : 0, letter) + " Not Found !\")");
    if (letter == 'h') throw Refuse{RefusalKind::help, who};
    if (i + 1 >= args.size()) reject(who + ": " + a + " needs a value (MIOpenDriver prints its help and runs nothing)");
    const FlagSpec& s = specs_[it->second];
    if (a.size() > 2)
      note("MIOpenDriver reads '" + a + "' as -" + std::string(1, letter) + " (--" + s.long_name + ") with the next argument '" + args[i + 1] +
           "' as its value; the rest of '" + a + "' is ignored");
    store(s, args[i + 1], std::string("-") + letter, false);
    ++i;
  }
}

bool DriverFlags::given(const std::string& long_name) const {
  (void)spec(long_name);
  return spelled_.count(long_name) > 0;
}

std::string DriverFlags::str(const std::string& long_name) const {
  (void)spec(long_name);
  return values_.at(long_name);
}

void DriverFlags::set(const std::string& long_name, const std::string& value) {
  (void)spec(long_name);
  values_[long_name] = value;
}

std::string DriverFlags::spelled(const std::string& long_name) const {
  auto it = spelled_.find(long_name);
  return it == spelled_.end() ? "--" + long_name : it->second;
}

int DriverFlags::integer(const std::string& long_name) {
  const std::string v = str(long_name);
  bool clean = false;
  const long long x = c_atoll(v, &clean);
  if (x < INT_MIN || x > INT_MAX)
    reject("MIOpenDriver " + command_ + ": " + spelled(long_name) + " '" + v + "' does not fit an int (MIOpenDriver reads it with atoi)");
  // An empty default (conv's -b "") reads as 0 without comment; a given odd value gets a note.
  if (!clean && given(long_name))
    note("MIOpenDriver reads " + spelled(long_name) + " '" + v + "' as " + std::to_string(x) + " (atoi)");
  return static_cast<int>(x);
}

double DriverFlags::real(const std::string& long_name) {
  const std::string v = str(long_name);
  bool clean = false;
  const double x = c_atof(v, &clean);
  if (!clean && given(long_name)) note("MIOpenDriver reads " + spelled(long_name) + " '" + v + "' as " + std::to_string(x) + " (atof)");
  return x;
}

std::vector<std::string> DriverFlags::notes() const {
  std::vector<std::string> out = notes_;
  std::string run, data;
  for (const auto& name : given_order_) {
    const FlagSpec& s = spec(name);
    const std::string item = spelled(name) + " " + values_.at(name);
    if (s.use == FlagUse::run) run += (run.empty() ? "" : ", ") + item;
    if (s.use == FlagUse::data) data += (data.empty() ? "" : ", ") + item;
  }
  if (!run.empty())
    out.push_back("ignored (how MIOpenDriver runs, not what): " + run +
                  "; hiprim runs each problem once and always verifies it (timing: hiprim bench)");
  if (!data.empty()) out.push_back("ignored (data files and dumps): " + data + "; hiprim uses its own fills (--seed, --fill) and --dump");
  return out;
}

}  // namespace hiprim::mdriver
