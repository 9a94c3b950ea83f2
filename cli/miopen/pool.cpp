// MIOpenDriver pool, poolfp16 -> PoolProblem per direction. Source: driver/pool_driver.hpp
// (develop 2024-10): AddCmdLineArgs (--input NxCx[D]xHxW[,layout|strides] since MIOpen #1313,
// 2022-01-20), GetandSetData, SetPoolDescriptorFromCmdLineArgs, PoolDriver::ParseCmdLineArgs;
// driver/InputFlags.cpp GetValueTensor; src/pooling.cpp GetForwardOutputDimNd (outputs clamped to
// >= 1; same/valid padding modes change only the output size); src/ocl/pooling_ocl.cpp Forward
// ("Index range not enough for max pooling bwd"). Lines in the flags before #1313 (-n -c -H -W -D,
// -d spatial dim) are read with that table (pool_legacy_flags), since current MIOpenDriver rejects -n.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "cli/miopen/commands.hpp"
#include "core/pool_problem.hpp"

namespace hiprim::mdriver {

namespace {

std::vector<FlagSpec> window_flags() {
  using U = FlagUse;
  return {
      {"forw", 'F', "0", false, U::problem, "0 fwd and bwd, 1 fwd only, other even: bwd only, other odd: fwd and bwd"},
      {"win_d", 'Z', "3", false, U::problem, "window depth (3D)"},
      {"win_h", 'y', "3", false, U::problem, "window height"},
      {"win_w", 'x', "3", false, U::problem, "window width"},
      {"pool_stride_d", 's', "1", false, U::problem, "stride depth (3D)"},
      {"pool_stride_h", 'v', "1", false, U::problem, "stride height", {"pool_stride_1"}},
      {"pool_stride_w", 'u', "1", false, U::problem, "stride width", {"pool_stride_0"}},
      {"pad_d", 'o', "0", false, U::problem, "padding depth (3D)"},
      {"pad_h", 'p', "0", false, U::problem, "padding height"},
      {"pad_w", 'q', "0", false, U::problem, "padding width"},
      {"pad_val", 'r', "0", false, U::run, "unused by MIOpenDriver"},
      {"index_position", 'M', "0", false, U::run, "max pooling's saved index: 0 in the window, 1 in the image (3D: always 1); "
                                                "MIOpen's workspace encoding, not a result (hiprim saves window indices)"},
      {"iter", 'i', "10", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"print", 'P', "1", false, U::run, "print the dimensions"},
      {"mode", 'm', "max", false, U::problem, "max | avg (excluding padding) | avg_in (including padding)"},
      {"pad_mode", 'z', "default", false, U::problem, "default | same (output ceil(in/s)) | valid (ceil((in-k+1)/s))"},
      {"index_type", 'I', "miopenIndexUint8", false, U::problem,
       "miopenIndexUint8|16|32|64: with max and a backward MIOpen needs it to exceed the index range"},
  };
}

// InputFlags::GetValueTensor: "NxCxHxW[,LAYOUT|STRIDES]".
struct TensorArg {
  std::vector<long long> lengths, strides;
  std::string layout;
  bool given = false;
};

std::vector<long long> parse_x_list(const std::string& who, const std::string& text, const std::string& line) {
  std::vector<long long> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, 'x')) {
    std::istringstream ss(item);
    int v = 0;
    ss >> v;
    if (ss.fail()) reject(who + ": \"Invalid tensor component " + item + " in " + line + ".\"");
    out.push_back(v);
  }
  return out;
}

TensorArg tensor_arg(const std::string& who, const DriverFlags& f, const std::string& name) {
  TensorArg t;
  const std::string v = f.str(name);
  std::vector<std::string> parts;
  std::istringstream in(v);
  std::string part;
  while (std::getline(in, part, ',')) parts.push_back(part);
  if (parts.empty()) return t;
  t.given = true;
  t.lengths = parse_x_list(who, parts[0], parts[0]);
  if (parts.size() >= 2) {
    if (!parts[1].empty() && std::isdigit(static_cast<unsigned char>(parts[1][0]))) t.strides = parse_x_list(who, parts[1], parts[1]);
    else t.layout = parts[1];
  }
  if (parts.size() > 2) reject(who + ": " + f.spelled(name) + " '" + v + "': \"Too many tensor descriptor parameters.\"");
  return t;
}

// Strides of a packed tensor in a layout (a permutation of NCHW / NCDHW), in logical order.
std::vector<long long> layout_strides(const std::vector<long long>& len, const std::string& layout) {
  const std::string logical = len.size() == 5 ? "NCDHW" : "NCHW";
  std::vector<long long> s(len.size());
  for (std::size_t i = 0; i < logical.size(); ++i) {
    long long acc = 1;
    for (std::size_t j = layout.find(logical[i]) + 1; j < layout.size(); ++j) acc *= len[logical.find(layout[j])];
    s[i] = acc;
  }
  return s;
}

// TensorParameters::SetTensordDescriptor: the layout letters or the strides; returns the layout
// name when the tensor is a packed NCHW/NHWC/NCDHW/NDHWC one, "" for anything else.
std::string tensor_layout(const std::string& who, const std::string& flag, const TensorArg& t) {
  const std::size_t n = t.lengths.size();
  if (!t.layout.empty()) {
    const std::string logical = n == 5 ? "NCDHW" : n == 4 ? "NCHW" : "";
    if (t.layout.size() != n) reject(who + ": " + flag + " layout " + t.layout + " for " + std::to_string(n) + " lengths (\"Unmatched layout and lengths sizes.\")");
    if (logical.empty()) reject(who + ": " + flag + ": \"Invalid tensor lengths dimentions.\" (a layout needs 4 or 5 lengths)");
    std::string a = t.layout, b = logical;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) reject(who + ": " + flag + " layout " + t.layout + ": MIOpen: \"mismatched layout string\" (a permutation of " + logical + ")");
    return t.layout;
  }
  if (!t.strides.empty()) {
    if (t.strides.size() != n) reject(who + ": " + flag + ": " + std::to_string(t.strides.size()) + " strides for " + std::to_string(n) +
                                      " lengths (MIOpen: \"Lengths and strides dimensions must be equal\")");
    for (auto s : t.strides)
      if (s <= 0) reject(who + ": " + flag + ": MIOpen: \"Strides must be > 0\"");
    if (n == 4 || n == 5)
      for (const std::string& L : n == 4 ? std::vector<std::string>{"NCHW", "NHWC"} : std::vector<std::string>{"NCDHW", "NDHWC"})
        if (layout_strides(t.lengths, L) == t.strides) return L;
    return "";
  }
  return n == 5 ? "NCDHW" : "NCHW";
}

// PoolDriver_impl common part after the input tensor: descriptor, output, directions.
Translation finish_pool(Context& c, DriverFlags& f, std::vector<long long> in_len, const std::string& x_layout, bool legacy,
                        const TensorArg* dinput, const TensorArg* output, const TensorArg* doutput) {
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();
  const int spatial = static_cast<int>(in_len.size()) - 2;
  const std::string mode = f.str("mode"), pad_mode = f.str("pad_mode"), index_type = f.str("index_type");
  if (mode != "max" && mode != "avg" && mode != "avg_in") reject(who + ": -m '" + mode + "': \"Incorrect Pooling Mode\" (max, avg, avg_in)");
  if (pad_mode != "same" && pad_mode != "valid" && pad_mode != "default")
    reject(who + ": --pad_mode '" + pad_mode + "': \"Incorrect Padding Mode\" (same, valid, default)");
  const std::vector<std::string> idx_types = {"miopenIndexUint8", "miopenIndexUint16", "miopenIndexUint32", "miopenIndexUint64"};
  const auto idx_it = std::find(idx_types.begin(), idx_types.end(), index_type);
  if (idx_it == idx_types.end()) reject(who + ": -I '" + index_type + "': \"Incorrect Index Data Type\"");
  const double index_max = idx_it == idx_types.begin() ? 255.0 : idx_it == idx_types.begin() + 1 ? 65535.0 : idx_it == idx_types.begin() + 2 ? 4294967295.0 : 1.8e19;
  if (spatial != 2 && spatial != 3)
    reject(who + ": a " + std::to_string(in_len.size()) + "-d input: MIOpen pools 4-d and 5-d tensors (\"Unsupported pooling dimension\")");
  for (std::size_t i = 0; i < in_len.size(); ++i) require_length("input length " + std::to_string(i), in_len[i], c.command);
  const char* wn[] = {"win_d", "win_h", "win_w"};
  const char* pn[] = {"pad_d", "pad_h", "pad_w"};
  const char* sn[] = {"pool_stride_d", "pool_stride_h", "pool_stride_w"};
  const char* axis[] = {"depth", "height", "width"};
  const int first = 3 - spatial;
  Dims win, pad, str, in(in_len.begin() + 2, in_len.end()), out;
  for (int i = first; i < 3; ++i) {
    win.push_back(f.integer(wn[i]));
    pad.push_back(f.integer(pn[i]));
    str.push_back(f.integer(sn[i]));
  }
  for (int i = 0; i < spatial; ++i) {
    // GetForwardOutputDimNd asserts window > 0, stride > 0, pad >= 0 (compiled out in release:
    // a zero stride divides by zero).
    if (win[i] < 1 || str[i] < 1 || pad[i] < 0)
      reject(who + ": " + axis[first + i] + " window " + std::to_string(win[i]) + ", stride " + std::to_string(str[i]) + ", pad " +
             std::to_string(pad[i]) + ": MIOpen's pooling needs window >= 1, stride >= 1, pad >= 0");
    const std::int64_t num = in[i] + 2 * pad[i] - win[i];
    std::int64_t o = std::max<std::int64_t>(1, num / str[i] + 1);
    if (pad_mode == "same") o = std::max<std::int64_t>(1, (in[i] + str[i] - 1) / str[i]);
    if (pad_mode == "valid") {
      const std::int64_t v = in[i] - win[i] + 1;
      o = std::max<std::int64_t>(1, v > 0 ? (v + str[i] - 1) / str[i] : v / str[i]);
    }
    const std::int64_t floor_out = num >= 0 ? num / str[i] + 1 : 0;
    if (o != floor_out)
      c.cannot(who + ": the " + std::string(axis[first + i]) + " output is " + std::to_string(o) +
               (pad_mode == "default" ? " (MIOpen clamps to >= 1: the window is larger than the padded input)"
                                      : " (--pad_mode " + pad_mode + ")") +
               " but windows inside the padded input give " + std::to_string(floor_out) + "; hiprim's pool has no windows past the padding");
    out.push_back(o);
  }
  // dx, y and dy as MIOpenDriver sets them up must be packed tensors of x's layout with the derived
  // lengths: hiprim's pool has one layout.
  std::vector<long long> out_len = {in_len[0], in_len[1]};
  out_len.insert(out_len.end(), out.begin(), out.end());
  auto same_as = [&](const TensorArg* t, const std::vector<long long>& lens, const std::string& flag) {
    if (!t) return;
    const std::vector<long long> l = t->lengths.empty() ? lens : t->lengths;
    const std::string L = tensor_layout(who, flag, TensorArg{l, t->strides, t->layout, true});
    if (l != lens)
      c.cannot(who + ": " + flag + " lengths differ from the ones MIOpenDriver derives; hiprim's pool has the derived shapes only");
    else if (L != x_layout && !x_layout.empty())
      c.cannot(who + ": " + flag + " is " + (L.empty() ? std::string("not a packed tensor") : L) + " while x is " + x_layout +
               ": mixed layouts (pool_driver.hpp GetandSetData: y takes x's layout only when --input names it), which hiprim's pool does not have");
  };
  same_as(dinput, in_len, "dx (--dinput)");
  same_as(output, out_len, "y (--output)");
  same_as(doutput, out_len, "dy (--doutput)");
  if (x_layout.empty()) c.cannot(who + ": the input strides are not those of a packed NCHW/NHWC (NCDHW/NDHWC) tensor; hiprim's tensors are packed");
  else if (x_layout != "NCHW" && x_layout != "NHWC" && x_layout != "NCDHW" && x_layout != "NDHWC")
    c.cannot(who + ": layout " + x_layout + " is not a hiprim layout (NCHW, NHWC, NCDHW, NDHWC)");

  const int forw = f.integer("forw");
  const Directions dirs = main_directions(forw);
  const bool save_index = forw == 0;  // do_backward = !forw: the forward saves the indices
  // pooling_ocl.cpp Forward: the index type must exceed the mask (window) or image index range.
  const bool image_index = spatial == 3 || f.integer("index_position") == 1;
  double range = 1;
  for (int i = 0; i < spatial; ++i) range *= static_cast<double>(image_index ? in[i] : win[i]);
  if (mode == "max" && save_index && index_max <= range)
    reject(who + ": max pooling with a backward needs an index type above " + std::string(image_index ? "the image size " : "the window size ") +
           std::to_string(static_cast<long long>(range)) + " (" + index_type + " holds up to " + std::to_string(static_cast<long long>(index_max)) +
           "): MIOpen: \"Index range not enough for max pooling bwd\"" + (spatial == 3 ? " (3D uses image indices)" : ""));
  c.finish_checks();

  Translation t = start_translation(c, f);
  if (legacy)
    t.notes.insert(t.notes.begin(), "read with MIOpenDriver pool's flags before MIOpen #1313 (2022-01-20: -n -c -H -W, -D, -d); current "
                                    "MIOpenDriver takes --input NxCxHxW[,layout] and rejects -n");
  PoolProblem p;
  p.mode = mode == "max" ? PoolMode::max : mode == "avg" ? PoolMode::avg_excl : PoolMode::avg_incl;
  p.shape.dtype = dtype;
  p.shape.channels_last = x_layout == "NHWC" || x_layout == "NDHWC";
  p.shape.n = in_len[0];
  p.shape.c = in_len[1];
  p.shape.in = in;
  p.window = win;
  p.pad = pad;
  p.stride = str;
  if (dirs.fwd) {
    PoolProblem q = p;
    q.dir = PoolDir::fwd;
    t.ops.push_back(make_op_problem(q));
  }
  if (dirs.bwd) {
    PoolProblem q = p;
    q.dir = PoolDir::bwd;
    t.ops.push_back(make_op_problem(q));
    if (forw != 0)
      t.notes.push_back("-F " + std::to_string(forw) + ": MIOpenDriver runs the backward " + std::string(dirs.fwd ? "after a forward that saves no indices" : "without the forward") +
                        " (do_backward = !forw); hiprim's bwd takes y's saved indices as an input it fills itself");
  }
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace

std::vector<FlagSpec> pool_flags() {
  using U = FlagUse;
  std::vector<FlagSpec> v = {
      {"input", 'W', "100x3x32x32,NCHW", false, U::problem, "x: NxCxHxW or NxCxDxHxW, then ,LAYOUT (NCHW NHWC NCDHW NDHWC) or ,STRIDES (packed)"},
      {"dinput", 'D', "", false, U::problem, "dx descriptor (default x's; must equal it)"},
      {"output", 'O', "", false, U::problem, "y descriptor (default derived, x's layout; must equal it)"},
      {"doutput", 'H', "", false, U::problem, "dy descriptor (default y's; must equal it)"},
  };
  for (auto& s : window_flags()) v.push_back(s);
  v.push_back({"in_data", 'j', "", false, U::data, "x from a file"});
  v.push_back({"out_data", 'k', "", false, U::data, "dy from a file"});
  v.push_back({"dump_root", 'l', "", false, U::data, "dump directory"});
  return v;
}

std::vector<FlagSpec> pool_legacy_flags() {
  using U = FlagUse;
  std::vector<FlagSpec> v = {
      {"spatial_dim", 'd', "2", false, U::problem, "2 or 3"},
      {"batchsize", 'n', "100", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_d", 'D', "32", false, U::problem, "depth (3D)"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
  };
  for (auto& s : window_flags()) v.push_back(s);
  return v;
}

Translation translate_pool(Context& c, const std::vector<std::string>& args) {
  const std::string who = "MIOpenDriver " + c.command;
  // A line in the flags before #1313: one of -n -c -d (or their long names), none of the new ones.
  auto has = [&](std::initializer_list<const char*> names) {
    for (std::size_t i = 0; i < args.size(); i += 2)
      for (const char* n : names)
        if (args[i] == n) return true;
    return false;
  };
  const bool legacy = has({"-n", "-c", "-d", "--batchsize", "--in_channels", "--spatial_dim", "--in_h", "--in_w", "--in_d"}) &&
                      !has({"--input", "--dinput", "--output", "--doutput", "-O", "-j", "-k", "-l", "--in_data", "--out_data", "--dump_root"});
  if (legacy) {
    DriverFlags f(c.command, pool_legacy_flags());
    f.parse(args);
    const int spatial = f.integer("spatial_dim");
    if (spatial != 2 && spatial != 3) reject(who + ": -d " + f.str("spatial_dim") + ": \"Unsupported spatial dimension\" (2 or 3)");
    std::vector<long long> len = {f.integer("batchsize"), f.integer("in_channels")};
    if (spatial == 3) len.push_back(f.integer("in_d"));
    len.push_back(f.integer("in_h"));
    len.push_back(f.integer("in_w"));
    const bool three = spatial == 3;
    std::string layout = three ? "NCDHW" : "NCHW";
    if (hiprim_layout_option(c, f, spatial)) layout = three ? "NDHWC" : "NHWC";
    return finish_pool(c, f, len, layout, true, nullptr, nullptr, nullptr);
  }
  DriverFlags f(c.command, pool_flags());
  f.parse(args);
  (void)f.integer("time");
  TensorArg input = tensor_arg(who, f, "input");
  if (input.lengths.empty()) reject(who + ": --input is empty (MIOpen: \"Number of dimensions must be > 1\")");
  std::string layout = tensor_layout(who, f.spelled("input"), input);
  if (!c.opts.layout.empty()) {
    const bool cl = hiprim_layout_option(c, f, static_cast<int>(input.lengths.size()) - 2);
    const std::string want = input.lengths.size() == 5 ? (cl ? "NDHWC" : "NCDHW") : (cl ? "NHWC" : "NCHW");
    if (f.given("input") && layout != want) reject("--layout " + c.opts.layout + " contradicts --input " + f.str("input"));
    layout = want;
    input.layout = want;
    input.strides.clear();
  }
  // GetandSetData: dinput = FillMissing(input); output: the derived lengths, and x's layout NAME
  // when it gives neither layout nor strides (from strides, as LogCmd prints them, y is packed
  // NCHW); doutput = FillMissing(output). FillMissing takes each missing part from the other.
  auto fill_missing = [](TensorArg t, const TensorArg& o) {
    if (t.lengths.empty()) t.lengths = o.lengths;
    if (t.strides.empty()) t.strides = o.strides;
    if (t.layout.empty()) t.layout = o.layout;
    return t;
  };
  const TensorArg dinput = fill_missing(tensor_arg(who, f, "dinput"), input);
  TensorArg output = tensor_arg(who, f, "output");
  if (output.layout.empty() && output.strides.empty()) output.layout = input.layout;
  const TensorArg doutput = fill_missing(tensor_arg(who, f, "doutput"), output);
  return finish_pool(c, f, input.lengths, layout, false, &dinput, &output, &doutput);
}

}  // namespace hiprim::mdriver
