// MIOpenDriver conv, convfp16, convbfp16 (convint8, convfp8, convbfp8: refused, no such hiprim
// dtype) -> ConvProblem per direction. Source: driver/conv_driver.hpp (AddCmdLineArgs,
// ParseCmdLineArgs, GetandSetData, GetWeightTensorLengthsFromCmdLine,
// SetConvDescriptorFromCmdLineArgs, RunBackwardGPU), src/convolution.cpp (ConvolutionDescriptor,
// GetForwardOutputTensorWithLayout), src/tensor.cpp (CheckArgsAndInit).
#include <algorithm>

#include "cli/miopen/commands.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> conv_flags() {
  using U = FlagUse;
  return {
      {"in_layout", 'I', "", true, U::problem, "x layout NCHW|NHWC (NCDHW|NDHWC in 3D); CHWN: refused; default NCHW/NCDHW"},
      {"out_layout", 'O', "", true, U::problem, "y layout, as --in_layout (must equal it: hiprim has one layout)"},
      {"fil_layout", 'f', "", true, U::problem, "w layout, as --in_layout (must equal it)"},
      {"spatial_dim", '_', "2", false, U::problem, "2 (H, W) or 3 (D, H, W); the 3D flags are ignored unless 3", {"conv_dim"}},
      {"forw", 'F', "0", false, U::problem, "directions bit mask: 1 fwd, 2 bwd-data, 4 bwd-weights; 0 all three"},
      {"batchsize", 'n', "100", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_d", '!', "32", false, U::problem, "input depth (3D)"},
      {"in_h", 'H', "32", false, U::problem, "input height"},
      {"in_w", 'W', "32", false, U::problem, "input width"},
      {"out_channels", 'k', "32", false, U::problem, "k"},
      {"fil_d", '@', "3", false, U::problem, "filter depth (3D)"},
      {"fil_h", 'y', "3", false, U::problem, "filter height"},
      {"fil_w", 'x', "3", false, U::problem, "filter width"},
      {"conv_stride_d", '#', "1", false, U::problem, "stride depth (3D)"},
      {"conv_stride_h", 'u', "1", false, U::problem, "stride height", {"conv_stride_0"}},
      {"conv_stride_w", 'v', "1", false, U::problem, "stride width", {"conv_stride_1"}},
      {"pad_d", '$', "0", false, U::problem, "padding depth (3D)"},
      {"pad_h", 'p', "0", false, U::problem, "padding height"},
      {"pad_w", 'q', "0", false, U::problem, "padding width"},
      {"pad_val", 'r', "0", false, U::run, "unused by MIOpenDriver (padding is zero)"},
      {"trans_output_pad_d", '%', "0", false, U::problem, "output padding depth (-m trans, 3D)"},
      {"trans_output_pad_h", 'Y', "0", false, U::problem, "output padding height (-m trans)"},
      {"trans_output_pad_w", 'X', "0", false, U::problem, "output padding width (-m trans)"},
      {"iter", 'i', "10", false, U::run, "iterations (must be >= 1)"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"verification_cache", 'C', "", false, U::run, "verification cache directory"},
      {"time", 't', "0", false, U::run, "timing"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"search", 's', "0", false, U::run, "exhaustive find"},
      {"printconv", 'P', "1", false, U::run, "print the dimensions"},
      {"dump_output", 'o', "0", false, U::data, "dump buffers"},
      {"in_data", 'd', "", false, U::data, "x from a file"},
      {"weights", 'e', "", false, U::data, "w from a file"},
      {"bias", 'b', "", false, U::problem, "nonzero: fwd adds bias[k] (with a backward direction: refused, backward bias)"},
      {"mode", 'm', "conv", false, U::problem, "conv | trans"},
      {"pad_mode", 'z', "default", false, U::problem, "same | valid recompute the padding (conv mode, dilation 1 or 1x1 filter)"},
      {"tensor_vect", 'Z', "0", false, U::problem, "0 (1: vectorized NCHWc layouts, refused)"},
      {"vector_length", 'L', "1", false, U::problem, "1 (4 or 8 with -Z 1: refused)"},
      {"dilation_d", '^', "1", false, U::problem, "dilation depth (3D)"},
      {"dilation_h", 'l', "1", false, U::problem, "dilation height"},
      {"dilation_w", 'j', "1", false, U::problem, "dilation width"},
      {"in_bias", 'a', "", false, U::data, "bias from a file"},
      {"group_count", 'g', "1", false, U::problem, "groups (values < 1 read as 1)"},
      {"dout_data", 'D', "", false, U::data, "dy from a file"},
      {"solution", 'S', "-1", false, U::run, "immediate-mode solution id or name"},
      {"gpualloc", 'G', "0", false, U::run, "GPU-side allocation (1 needs -V 0)"},
      {"in_cast_type", 'U', "-1", false, U::problem, "fp8 cast of x: refused when set"},
      {"out_cast_type", 'T', "-1", false, U::problem, "fp8 cast of y: refused when set"},
      {"wei_cast_type", 'R', "-1", false, U::problem, "fp8 cast of w: refused when set"},
  };
}

namespace {

struct Geometry {
  Dims in, filter, pad, stride, dilation, out_pad;
};

const char* kAxis3[] = {"depth", "height", "width"};

}  // namespace

Translation translate_conv(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, conv_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();

  // ---- ParseCmdLineArgs ----
  const int spatial = f.integer("spatial_dim");
  const std::string default_layout = spatial == 2 ? "NCHW" : "NCDHW";
  std::string layout[3];  // in, fil, out
  const char* layout_flag[3] = {"in_layout", "fil_layout", "out_layout"};
  for (int i = 0; i < 3; ++i) {
    std::string v = f.str(layout_flag[i]);
    if (v.empty()) {
      v = default_layout;
    } else if (v != "NCHW" && v != "NHWC" && v != "CHWN" && v != "NCDHW" && v != "NDHWC") {
      // ValidateLayoutInputParameters (long names are upper-cased first, short -I/-O/-f are not).
      reject(who + ": " + f.spelled(layout_flag[i]) + " '" + v + "': MIOpenDriver accepts NCHW, NHWC, CHWN, NCDHW, NDHWC (\"Invalid Layout Parameter Value\")" +
             (f.spelled(layout_flag[i]).size() == 2 ? "; it upper-cases the value of the long name only" : ""));
    }
    layout[i] = v;
  }
  const int vect = f.integer("tensor_vect"), vlen = f.integer("vector_length");
  if (!(((vlen == 4 || vlen == 8) && vect == 1) || (vlen == 1 && vect == 0)))
    reject(who + ": -Z " + std::to_string(vect) + " -L " + std::to_string(vlen) +
           ": MIOpenDriver accepts -Z 1 with -L 4|8 or -Z 0 with -L 1 (\"Invalid Tensor Vectorization Parameter Value\")");
  if (vlen != 1) c.cannot(who + ": -Z 1 -L " + std::to_string(vlen) + " makes the layouts vectorized (NCHWc" + std::to_string(vlen) + "); hiprim has no vectorized layouts");
  const std::string mode = f.str("mode");
  if (mode != "conv" && mode != "trans") reject(who + ": -m '" + mode + "': MIOpenDriver accepts conv | trans (\"Incorrect Convolution Mode\")");
  if (f.integer("iter") < 1) reject(who + ": -i " + f.str("iter") + ": \"Number of iterations must be > 0\"");
  (void)f.integer("time");
  (void)f.integer("wall");
  const int forw = f.integer("forw");
  const bool is_fwd = forw == 0 || (forw & 1), is_bwd = forw == 0 || (forw & 2), is_wrw = forw == 0 || (forw & 4);
  for (const char* cast : {"in_cast_type", "wei_cast_type", "out_cast_type"}) {
    const std::string v = f.str(cast);
    if (v == "-1") continue;
    if (v != "fp32" && v != "fp16" && v != "bf16" && v != "fp8" && v != "bf8")
      reject(who + ": " + f.spelled(cast) + " '" + v + "': MIOpenDriver accepts fp32, fp16, bf16, fp8, bf8 (\"Invalid value for " + cast + " argument\")");
    c.cannot(who + ": " + f.spelled(cast) + " " + v + " sets a cast type (the fp8 compute path of MIOpen); hiprim's conv has no cast types");
  }
  if (f.integer("gpualloc") == 1 && f.integer("verify") == 1)
    reject(who + ": --gpualloc 1 with verification: MIOpenDriver stops (\"'--gpualloc 1' should not be used with enabled verification. Add '--verify 0'\")");

  // ---- GetandSetData ----
  if (spatial != 2 && spatial != 3) reject(who + ": --spatial_dim " + f.str("spatial_dim") + ": \"unsupported convolution dimension\" (2 or 3)");
  const long long n = f.integer("batchsize"), ch = f.integer("in_channels"), k = f.integer("out_channels");
  const int g = std::max(f.integer("group_count"), 1);
  Geometry geo;
  const char* sp3[] = {"in_d", "in_h", "in_w"};
  const char* fl3[] = {"fil_d", "fil_h", "fil_w"};
  const char* pd3[] = {"pad_d", "pad_h", "pad_w"};
  const char* st3[] = {"conv_stride_d", "conv_stride_h", "conv_stride_w"};
  const char* dl3[] = {"dilation_d", "dilation_h", "dilation_w"};
  const char* op3[] = {"trans_output_pad_d", "trans_output_pad_h", "trans_output_pad_w"};
  const int first = spatial == 3 ? 0 : 1;
  for (int i = first; i < 3; ++i) {
    geo.in.push_back(f.integer(sp3[i]));
    geo.filter.push_back(f.integer(fl3[i]));
    geo.pad.push_back(f.integer(pd3[i]));
    geo.stride.push_back(f.integer(st3[i]));
    geo.dilation.push_back(f.integer(dl3[i]));
    geo.out_pad.push_back(f.integer(op3[i]));
  }
  if (g > 1 && (ch % g != 0 || k % g != 0 || g > ch || g > k))
    reject(who + ": -g " + std::to_string(g) + " with -c " + std::to_string(ch) + " -k " + std::to_string(k) +
           ": \"Invalid group number\" (c and k must be multiples of g, and g <= c, g <= k)");
  // The tensors (SetTensorNd: layout size must match the rank; lengths > 0).
  const std::size_t rank = static_cast<std::size_t>(spatial) + 2;
  for (int i = 0; i < 3; ++i)
    if (layout[i].size() != rank)
      reject(who + ": " + f.spelled(layout_flag[i]) + " " + layout[i] + " has " + std::to_string(layout[i].size()) + " letters for a " +
             std::to_string(rank) + "-d tensor (\"unmatched layout and dimension size\")");
  require_length("-n", n, c.command);
  require_length("-c", ch, c.command);
  require_length("-k", k, c.command);
  for (std::size_t i = 0; i < geo.in.size(); ++i) {
    const int a = first + static_cast<int>(i);
    require_length(f.spelled(sp3[a]), geo.in[i], c.command);
    require_length(f.spelled(fl3[a]), geo.filter[i], c.command);
  }
  // SetConvDescriptorFromCmdLineArgs: the padding mode rewrites the pads (conv mode, and every
  // dilation 1 or every filter size 1).
  const std::string pad_mode = f.str("pad_mode");
  const bool all_dil1 = std::all_of(geo.dilation.begin(), geo.dilation.end(), [](auto v) { return v == 1; });
  const bool all_f1 = std::all_of(geo.filter.begin(), geo.filter.end(), [](auto v) { return v == 1; });
  if (mode == "conv" && (all_dil1 || all_f1) && (pad_mode == "same" || pad_mode == "valid")) {
    for (std::size_t i = 0; i < geo.in.size(); ++i) {
      if (pad_mode == "valid") {
        geo.pad[i] = 0;
        continue;
      }
      if (geo.stride[i] == 0) reject(who + ": --pad_mode same with stride 0 divides by zero in MIOpenDriver");
      geo.pad[i] = driver_same_pad(geo.in[i], geo.stride[i], geo.filter[i]);
    }
    if (f.given("pad_mode")) {
      std::string pads;
      for (auto p : geo.pad) {
        if (!pads.empty()) pads += 'x';
        pads += std::to_string(p);
      }
      f.note("--pad_mode " + pad_mode + ": MIOpenDriver replaces the padding by " + pads + " (conv_driver.hpp SetConvDescriptorFromCmdLineArgs)");
    }
  } else if (f.given("pad_mode") && (pad_mode == "same" || pad_mode == "valid")) {
    f.note("--pad_mode " + pad_mode + " has no effect here (MIOpenDriver applies it in conv mode with dilation 1 or a 1x1 filter only)");
  }
  // miopenInitConvolutionNdDescriptor -> ConvolutionDescriptor: pads >= 0, strides >= 1,
  // dilations >= 1, else MIOpen fails (and MIOpenDriver, not checking, goes on with a default
  // descriptor: not the line's problem).
  for (std::size_t i = 0; i < geo.in.size(); ++i) require_conv_descriptor(who, kAxis3[first + i], geo.pad[i], geo.stride[i], geo.dilation[i]);
  const bool trans = mode == "trans";
  if (trans) {
    // GetForwardOutputTensorWithLayout: transposed output padding must be < stride.
    for (std::size_t i = 0; i < geo.in.size(); ++i)
      if (geo.out_pad[i] >= geo.stride[i])
        reject(who + ": output padding " + std::to_string(geo.out_pad[i]) + " >= stride " + std::to_string(geo.stride[i]) + " (" +
               kAxis3[first + i] + "): MIOpen rejects it (\"Output shape doesn't match due to invalid output padding\")");
  }
  // Output sizes: MIOpen clamps them to >= 1; a clamped size is a window partly outside the
  // padded input, which hiprim's conv does not define.
  for (std::size_t i = 0; i < geo.in.size(); ++i) {
    const std::int64_t in = geo.in[i], fl = geo.filter[i], p = geo.pad[i], s = geo.stride[i], d = geo.dilation[i];
    if (!trans) {
      check_fwd_output(c, who, kAxis3[first + i], in, fl, p, s, d);
      continue;
    }
    const std::int64_t o = s * (in - 1) + 1 + d * (fl - 1) - 2 * p + geo.out_pad[i];
    if (o < 1)
      c.cannot(who + ": the " + std::string(kAxis3[first + i]) + " output would be " + std::to_string(o) +
               "; MIOpen clamps it to 1, a window partly outside the padded input, which hiprim's conv does not define");
  }
  const bool bias = f.integer("bias") != 0;

  // ---- what hiprim can express ----
  for (int i = 0; i < 3; ++i)
    if (layout[i] == "CHWN") c.cannot(who + ": " + f.spelled(layout_flag[i]) + " CHWN is not a hiprim layout (NCHW, NHWC)");
  const bool cl[3] = {layout[0] == "NHWC" || layout[0] == "NDHWC", layout[1] == "NHWC" || layout[1] == "NDHWC",
                      layout[2] == "NHWC" || layout[2] == "NDHWC"};
  bool channels_last = cl[0];
  if (cl[0] != cl[1] || cl[0] != cl[2])
    c.cannot(who + ": mixed layouts (x " + layout[0] + ", w " + layout[1] + ", y " + layout[2] +
             "): hiprim's conv problem has one layout for x, w and y");
  if (!c.opts.layout.empty()) {
    const std::string L = c.opts.layout;
    const bool three = L == "ncdhw" || L == "ndhwc";
    if (L != "nchw" && L != "nhwc" && !three) reject("--layout '" + L + "': expected nchw, nhwc, ncdhw or ndhwc");
    if (three != (spatial == 3)) reject("--layout " + L + " does not fit --spatial_dim " + std::to_string(spatial));
    const bool want = L == "nhwc" || L == "ndhwc";
    for (int i = 0; i < 3; ++i)
      if (f.given(layout_flag[i]) && cl[i] != want) reject("--layout " + L + " contradicts " + f.spelled(layout_flag[i]) + " " + layout[i]);
    channels_last = want;
  }
  if (bias && (is_bwd || is_wrw))
    c.cannot(who + ": -b with a backward direction also runs MIOpen's backward bias (db = sum of dy over n and the spatial dims, "
             "conv_driver.hpp RunBackwardGPU); hiprim has no conv backward-bias problem (use -F 1 for the forward with bias)");
  // Flags MIOpenDriver reads only in 3D, or only in trans mode.
  std::string unused;
  const char* only3d[] = {"in_d", "fil_d", "pad_d", "conv_stride_d", "dilation_d", "trans_output_pad_d"};
  if (spatial == 2)
    for (const char* name : only3d)
      if (f.given(name)) unused += (unused.empty() ? "" : ", ") + f.spelled(name) + " " + f.str(name);
  if (!unused.empty()) f.note("ignored on a 2D line, as MIOpenDriver does (--spatial_dim 2): " + unused);
  if (!trans)
    for (std::size_t i = 0; i < geo.out_pad.size(); ++i)
      if (geo.out_pad[i] != 0) {
        f.note("output padding is ignored in conv mode, as MIOpenDriver does (it sets it for -m trans only)");
        break;
      }
  c.finish_checks();

  Translation t = start_translation(c, f);
  ConvProblem p;
  p.dtype = dtype;
  p.channels_last = channels_last;
  p.n = n;
  p.c = ch;
  p.k = k;
  p.groups = g;
  p.in = geo.in;
  p.filter = geo.filter;
  p.pad = geo.pad;
  p.stride = geo.stride;
  p.dilation = geo.dilation;
  p.mode = trans ? ConvMode::trans : ConvMode::conv;
  p.out_pad = trans ? geo.out_pad : Dims(geo.in.size(), 0);
  if (is_fwd) {
    ConvProblem q = p;
    q.dir = ConvDir::fwd;
    q.bias = bias;
    t.conv.push_back(q);
  }
  if (is_bwd) {
    ConvProblem q = p;
    q.dir = ConvDir::bwd_data;
    t.conv.push_back(q);
  }
  if (is_wrw) {
    ConvProblem q = p;
    q.dir = ConvDir::bwd_weights;
    t.conv.push_back(q);
  }
  if (t.conv.empty()) reject(who + ": -F " + std::to_string(forw) + " selects no direction (bits 1, 2, 4): MIOpenDriver runs nothing");
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
