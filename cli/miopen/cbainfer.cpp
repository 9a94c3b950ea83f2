// MIOpenDriver CBAInfer, CBAInferfp16 (fused inference) -> FusionProblem (core/fusion_problem.hpp).
// Sources (ROCm/MIOpen, develop of 2024-10): driver/CBAInferFusion_driver.hpp (AddCmdLineArgs,
// ParseCmdLineArgs: -F range, useBatchNorm, bias_mode; GetandSetData; SetBNParametersFromCmdLineArgs;
// SetConvDescriptorFromCmdLineArgs; GetWeightTensorLengthsFromCmdLine; AllocateBuffersAndCopy;
// RunForwardGPU and runGPU*Inference: the ops of each -F in plan order; EPSILON 1e-6),
// driver/miopen_ConvBatchNormActivHost.hpp (the host reference it verifies against: ConvForwardCPU,
// miopenBNSpatialFwdInferHost / miopenBNPerActivFwdInferHost with the estimated mean and variance,
// miopenActivationFwdHost), driver/dm_fusion.cpp (CBAInfer float, CBAInferfp16 half),
// src/convolution.cpp GetForwardOutputTensorWithLayout (the output of miopenPaddingSame/Valid),
// src/driver_arguments.cpp GetFusionMode and src/fusion.cpp LogCmdFusion (what a log line carries),
// driver/main.cpp (CBAInfer runs the forward only).
// Per -F, the plan (fusion_mode_t; RunForwardGPU):
//   0 conv bias bnorm activ   1 conv bnorm activ   2 bnorm activ   3 conv bnorm
//   4 conv bias activ         5 conv activ         6 conv bias
// bnorm is batch-norm inference y = scale*(x - mean)/sqrt(var + 1e-6) + bias over the estimated
// statistics, -M 0 per-activation (the default), -M 1 spatial; activ is miopenActivationMode_t -m
// with -A alpha, -B beta, -G gamma. Tensors are packed NCHW (SetTensor4d).
#include "cli/miopen/commands.hpp"
#include "core/fusion_problem.hpp"

namespace hiprim::mdriver {

std::vector<FlagSpec> cbainfer_flags() {
  using U = FlagUse;
  return {
      {"batchsize", 'n', "32", false, U::problem, "n"},
      {"in_channels", 'c', "3", false, U::problem, "c"},
      {"in_h", 'H', "32", false, U::problem, "height"},
      {"in_w", 'W', "32", false, U::problem, "width"},
      {"out_channels", 'k', "32", false, U::problem, "k"},
      {"group_count", 'g', "1", false, U::problem, "1 (other values: refused, MIOpenDriver keeps k x c x y x x weights)"},
      {"fil_h", 'y', "3", false, U::problem, "filter height"},
      {"fil_w", 'x', "3", false, U::problem, "filter width"},
      {"conv_stride_h", 'u', "1", false, U::problem, "stride height"},
      {"conv_stride_w", 'v', "1", false, U::problem, "stride width"},
      {"pad_h", 'p', "0", false, U::problem, "padding height"},
      {"pad_w", 'q', "0", false, U::problem, "padding width"},
      {"pad_val", 'r', "0", false, U::run, "unused by MIOpenDriver (padding is zero)"},
      {"alpha", 'A', "1.0", false, U::problem, "activation alpha (tanh, power, clippedrelu, leakyrelu, elu)"},
      {"beta", 'B', "0.", false, U::problem, "activation beta (tanh, power)"},
      {"gamma", 'G', "1", false, U::problem, "activation gamma (power)"},
      {"iter", 'i', "1", false, U::run, "iterations"},
      {"verify", 'V', "1", false, U::run, "verification (hiprim always verifies)"},
      {"time", 't', "0", false, U::run, "timing"},
      {"activMode", 'm', "3", false, U::problem, "activation 0 passthru .. 9 elu (miopenActivationMode_t; 6 power: refused)"},
      {"bnMode", 'M', "0", false, U::problem, "batch norm 0 per-activation (refused: hiprim's fusion is spatial), 1 spatial"},
      {"wall", 'w', "0", false, U::run, "wall-clock timing"},
      {"dilation_h", 'l', "1", false, U::problem, "dilation height"},
      {"dilation_w", 'j', "1", false, U::problem, "dilation width"},
      {"pad_mode", 'z', "conv", false, U::problem, "same | valid recompute the padding (and keep the mode: same's output is ceil(in/stride))"},
      {"fusion_mode", 'F', "0", false, U::problem, "0 CBNA, 1 CNA, 2 NA (refused), 3 CN, 4 CBA, 5 CA, 6 CB (C conv, B bias, N bnorm-infer, A activ)"},
      {"dot_graph", 'D', "", false, U::run, "write the fusion graph"},
  };
}

namespace {

// The plan of each -F (RunForwardGPU: runGPUConvBatchNormActivInference for 0, 1, 3, 4,
// runGPUConvActivInference for 5, runGPUBatchNormActivInference for 2, runGPUFusedConvBiasInference for 6).
struct Plan {
  const char* name;
  bool conv, bias, bnorm, activ;
};
constexpr Plan kPlans[] = {
    {"conv+bias+bnorm+activ", true, true, true, true}, {"conv+bnorm+activ", true, false, true, true},
    {"bnorm+activ", false, false, true, true},         {"conv+bnorm", true, false, true, false},
    {"conv+bias+activ", true, true, false, true},      {"conv+activ", true, false, false, true},
    {"conv+bias", true, true, false, false},
};

const char* kAxis[] = {"height", "width"};

}  // namespace

Translation translate_cbainfer(Context& c, const std::vector<std::string>& args) {
  DriverFlags f(c.command, cbainfer_flags());
  f.parse(args);
  const std::string who = "MIOpenDriver " + c.command;
  const DType dtype = c.data_dtype();

  // ---- ParseCmdLineArgs ----
  (void)f.integer("time");
  if (f.integer("iter") < 1)
    f.note("-i " + f.str("iter") + ": MIOpenDriver compiles the plan and executes it no time (RunForwardGPU's loop), then verifies its "
           "output buffer; hiprim runs the problem once");
  const int mode = f.integer("fusion_mode");
  if (mode < 0 || mode > 6) reject(who + ": -F " + f.str("fusion_mode") + ": \"Fusion mode out of range.\" (0..6)");
  const Plan plan = kPlans[mode];
  const std::string plan_is = "-F " + std::to_string(mode) + " (" + plan.name + ")";

  // ---- GetandSetData: SetBNParametersFromCmdLineArgs (for every -F) ----
  const int bn_mode = f.integer("bnMode");
  if (bn_mode != 0 && bn_mode != 1) reject(who + ": -M " + f.str("bnMode") + ": \"Incorrect Batch Normalization Mode\" (0 per-activation, 1 spatial)");

  // ---- SetConvDescriptorFromCmdLineArgs (for every -F) ----
  const long long n = f.integer("batchsize"), ch = f.integer("in_channels"), k = f.integer("out_channels");
  const int groups = f.integer("group_count");
  Dims in = {f.integer("in_h"), f.integer("in_w")}, filter = {f.integer("fil_h"), f.integer("fil_w")};
  Dims pad = {f.integer("pad_h"), f.integer("pad_w")}, stride = {f.integer("conv_stride_h"), f.integer("conv_stride_w")};
  const Dims dilation = {f.integer("dilation_h"), f.integer("dilation_w")};
  // "same" and "valid" replace the pads (whatever the dilation) and stay in the descriptor; any other
  // value is miopenPaddingDefault.
  const std::string pad_mode = f.str("pad_mode");
  const bool same = pad_mode == "same", valid = pad_mode == "valid";
  for (int i = 0; i < 2; ++i) {
    if (same && stride[i] == 0) reject(who + ": --pad_mode same with stride 0 divides by zero in MIOpenDriver");
    if (same) pad[i] = driver_same_pad(in[i], stride[i], filter[i]);
    if (valid) pad[i] = 0;
  }
  if (same || valid)
    f.note("--pad_mode " + pad_mode + ": MIOpenDriver replaces the padding by " + std::to_string(pad[0]) + "x" + std::to_string(pad[1]) +
           " (CBAInferFusion_driver.hpp SetConvDescriptorFromCmdLineArgs)");
  for (int i = 0; i < 2; ++i) require_conv_descriptor(who, kAxis[i], pad[i], stride[i], dilation[i]);

  // ---- SetActivationDescriptorFromCmdLineArgs (stored, not checked) ----
  const int activ_num = f.integer("activMode");
  const double coef[3] = {f.real("alpha"), f.real("beta"), f.real("gamma")};

  // ---- the tensors (SetTensor4d: lengths > 0) ----
  require_length("-n", n, c.command);
  require_length("-c", ch, c.command);
  require_length("-H", in[0], c.command);
  require_length("-W", in[1], c.command);
  require_length("-k", k, c.command);
  require_length("-y", filter[0], c.command);
  require_length("-x", filter[1], c.command);
  if (plan.activ && (activ_num < 0 || activ_num > 9))
    reject(who + ": -m " + f.str("activMode") + ": MIOpen's activation modes are 0..9 (miopenActivationMode_t; the host reference "
           "prints \"ERROR: unknown neuron type\")");
  const bool channels_last = hiprim_layout_option(c, f, 2);

  // ---- what hiprim can express ----
  if (!plan.conv)
    c.cannot(who + " " + plan_is + ": MIOpenDriver fuses batch-norm inference with the activation, no convolution "
             "(runGPUBatchNormActivInference); hiprim's fusion chain starts with a convolution (bnorm fwd-infer and activ fwd "
             "are separate hiprim problems)");
  if (plan.bnorm && bn_mode == 0)
    c.cannot(who + " " + plan_is + " -M 0 (the default): per-activation batch norm (a scale, shift, mean and variance per c, h, w; "
             "miopenBNPerActivFwdInferHost); hiprim's fusion bnorm-infer is spatial (per channel) only: -M 1 is spatial");
  if (plan.conv && groups != 1)
    c.cannot(who + ": -g " + std::to_string(groups) + ": MIOpenDriver passes it to the descriptor but sizes the weights k x c x y x x "
             "whatever the groups (GetWeightTensorLengthsFromCmdLine) and its host reference convolves all c channels "
             "(ConvForwardCPU): no grouped convolution hiprim can express");
  const ActivMode activ = static_cast<ActivMode>(plan.activ ? activ_num : 3);  // hiprim's first ten follow miopenActivationMode_t
  if (plan.activ && activ == ActivMode::power)
    c.cannot(who + " -m 6 (power): MIOpen returns 0 where alpha + beta*x <= epsilon (miopenActivationFwdHost, "
             "activation_functions.hpp); hiprim's power is (alpha + beta*x)^gamma");
  if (plan.conv) {
    // GetForwardOutputTensorWithLayout: with every dilation 1, miopenPaddingSame makes the output
    // ceil(in/stride) and miopenPaddingValid ceil((in - f + 1)/stride); otherwise the formula with the pads.
    const bool dil1 = dilation[0] == 1 && dilation[1] == 1;
    for (int i = 0; i < 2; ++i) {
      if (valid && dil1 && in[i] - filter[i] + 1 < 1)
        reject(who + ": --pad_mode valid: MIOpen makes the " + kAxis[i] + " output ceil((" + std::to_string(in[i]) + " - " +
               std::to_string(filter[i]) + " + 1)/stride) < 1 (convolution.cpp GetForwardOutputTensorWithLayout), no tensor length");
      check_fwd_output(c, who, kAxis[i], in[i], filter[i], pad[i], stride[i], dilation[i]);
      const std::int64_t formula = (in[i] + 2 * pad[i] - filter[i]) / stride[i] + 1;
      const std::int64_t miopen = (in[i] + stride[i] - 1) / stride[i];
      if (same && dil1 && miopen != formula)
        c.cannot(who + ": --pad_mode same keeps miopenPaddingSame in the descriptor, so MIOpen makes the " + kAxis[i] + " output ceil(" +
                 std::to_string(in[i]) + "/" + std::to_string(stride[i]) + ") = " + std::to_string(miopen) + " with padding " +
                 std::to_string(pad[i]) + " before it (convolution.cpp GetForwardOutputTensorWithLayout): more padding after than "
                 "before; hiprim's conv pads both sides alike (padding " + std::to_string(pad[i]) + " gives " + std::to_string(formula) + ")");
    }
  }
  c.finish_checks();

  Translation t = start_translation(c, f);
  FusionProblem p;
  p.dtype = dtype;
  p.channels_last = channels_last;
  FusionStep conv = fusion_step(FusionOp::conv);
  conv.conv.dtype = dtype;
  conv.conv.channels_last = channels_last;
  conv.conv.n = n;
  conv.conv.c = ch;
  conv.conv.k = k;
  conv.conv.in = in;
  conv.conv.filter = filter;
  conv.conv.pad = pad;
  conv.conv.stride = stride;
  conv.conv.dilation = dilation;
  p.steps.push_back(conv);
  if (plan.bias) p.steps.push_back(fusion_step(FusionOp::bias));
  if (plan.bnorm) {
    FusionStep bn = fusion_step(FusionOp::bnorm_infer);
    bn.epsilon = 1e-6;  // CBAInferFusion_driver.hpp: #define EPSILON 1e-6
    p.steps.push_back(bn);
    if (k > ch)
      t.notes.push_back("MIOpenDriver sizes the batch-norm scale, shift, mean and variance by the input's -c " + std::to_string(ch) +
                        " channels (AllocateBuffersAndCopy: miopenDeriveBNTensorDescriptor of the input) but applies them to the conv's -k " +
                        std::to_string(k) + " channels, reading past its buffers; hiprim's bnorm-infer has one of each per output channel");
    if (c.type != DriverType::fp32)
      t.notes.push_back("MIOpenDriver keeps the batch-norm scale, shift, mean and variance in the data type (" +
                        std::string(driver_type_name(c.type)) + ", Tgpu); hiprim's bnorm-infer reads them in fp32");
  } else if (f.given("bnMode")) {
    t.notes.push_back(plan_is + " has no batch norm: " + f.spelled("bnMode") + " " + f.str("bnMode") + " is unused (MIOpenDriver only checks it)");
  }
  if (plan.activ) {
    FusionStep a = fusion_step(FusionOp::activ);
    a.mode = activ;
    const std::string unused = set_activ_coefficients(f, activ, {"alpha", "beta", "gamma"}, coef, a.activ_alpha, a.activ_beta, a.activ_gamma);
    if (!unused.empty()) t.notes.push_back(std::string(activ_mode_name(activ)) + " does not use " + unused + " (MIOpen ignores them too)");
    p.steps.push_back(a);
  } else {
    std::string unused;
    for (const char* name : {"activMode", "alpha", "beta", "gamma"})
      if (f.given(name)) unused += (unused.empty() ? "" : ", ") + f.spelled(name) + " " + f.str(name);
    if (!unused.empty()) t.notes.push_back(plan_is + " has no activation: " + unused + " unused (MIOpenDriver sets the descriptor only)");
  }
  if (c.from_log)
    t.notes.push_back("a logged fusion line (src/fusion.cpp LogCmdFusion) carries -F, the convolution and -g only: the activation (-m -A -B -G) "
                      "and -M here are MIOpenDriver's defaults, which need not be the logged plan's; it names fp16 plans CBAInfer too "
                      "(CBAInferfp16 only for bf16)");
  t.ops.push_back(make_op_problem(p));
  check_hiprim_rules(c, t);
  return t;
}

}  // namespace hiprim::mdriver
