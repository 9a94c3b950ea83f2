// conv.igemm.wgmma's perf-config strings and space (host code; see igemm_sm90_plan.hpp): the
// canonical text of a config, its parse, the rules every config obeys whatever the problem, and the
// whole space in a fixed order (fp16/bf16 "k64" configs, then the tf32 "k32" subset).
#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/conv/igemm_sm90_plan.hpp"

namespace hiprim::gpu::sm90 {

std::string to_string(const IgemmConfig& c) {
  std::string s = "m";
  s += std::to_string(c.bm) + "n" + std::to_string(c.bn) + "k" + std::to_string(c.kb) + ".s" + std::to_string(c.stages) + ".splitk" + std::to_string(c.splitk);
  if (c.ws) s += ".ws";
  if (c.tma) s += ".tma";
  if (c.se) s += ".se";
  if (c.persist) s += ".p";
  if (c.flip) s += ".flip";
  if (c.col2im) s += ".col2im";
  if (c.im2col) s += ".im2col";
  return s;
}

std::optional<IgemmConfig> parse_igemm_config(std::string_view s) {
  IgemmConfig c;
  auto number = [&](std::string_view prefix, int& out) {
    if (s.substr(0, prefix.size()) != prefix) return false;
    s.remove_prefix(prefix.size());
    const char* b = s.data();
    const auto r = std::from_chars(b, b + s.size(), out);
    if (r.ec != std::errc() || r.ptr == b) return false;
    s.remove_prefix(static_cast<std::size_t>(r.ptr - b));
    return true;
  };
  if (!number("m", c.bm) || !number("n", c.bn)) return std::nullopt;
  if (s.substr(0, 3) == "k64") c.kb = kTileK;
  else if (s.substr(0, 3) == "k32") c.kb = kTf32KBlock;
  else return std::nullopt;
  s.remove_prefix(3);
  if (!number(".s", c.stages) || !number(".splitk", c.splitk)) return std::nullopt;
  if (s.substr(0, 3) == ".ws") c.ws = true, s.remove_prefix(3);
  if (s.substr(0, 4) == ".tma") c.tma = true, s.remove_prefix(4);
  if (s.substr(0, 3) == ".se") c.se = true, s.remove_prefix(3);
  if (s == ".p" || s.substr(0, 3) == ".p.") c.persist = true, s.remove_prefix(2);
  if (s == ".flip") c.flip = true, s.remove_prefix(5);
  if (s == ".col2im") c.col2im = true, s.remove_prefix(7);
  if (s == ".im2col") c.im2col = true, s.remove_prefix(7);
  if (!s.empty()) return std::nullopt;
  if (c.bm <= 0 || c.bn <= 0 || c.stages <= 0 || c.splitk <= 0) return std::nullopt;
  return c;
}

std::string igemm_config_space_refusal(const IgemmConfig& c) {
  if (c.kb != kTileK && c.kb != kTf32KBlock) return "k-blocks of " + std::to_string(c.kb) + " elements (k64 or k32 only)";
  if (!igemm_tile_instantiated(c.kb, c.bm, c.bn))
    return "tile m" + std::to_string(c.bm) + "n" + std::to_string(c.bn) + (c.kb == kTileK ? "" : "k32") + " is not instantiated";
  if (c.kb == kTf32KBlock && (c.se || c.persist || c.col2im || c.im2col))
    return "the tf32 (k32) kernels have no .se, .p, .col2im or .im2col (those stage or copy 16-bit elements)";
  if (c.se && c.splitk > 1) return "the staged epilogue (.se) writes rounded outputs: split-K's partials stay direct";
  if (static_cast<int>(c.flip) + c.col2im + c.im2col > 1) return "at most one lowering (.flip, .col2im, .im2col)";
  if (c.col2im && (c.se || c.splitk > 1))
    return ".col2im writes one fp32 sum per dcol element: no staged epilogue, no split-K";
  if (c.tma && !c.ws) return "the TMA producer comes with the warp-specialised variant only (.ws.tma)";
  if (c.persist && (!c.tma || !c.se || c.splitk > 1 || c.flip || c.col2im || c.im2col))
    return "the persistent grid (.p) is a variant of .ws.tma.se with split 1 and no lowering";
  if (c.persist && !igemm_persist_tile(c.bm, c.bn))
    return "tile m" + std::to_string(c.bm) + "n" + std::to_string(c.bn) + " has no persistent (.p) variant";
  if (c.ws && c.bm > 128) return "tile m" + std::to_string(c.bm) + "n" + std::to_string(c.bn) + " has no warp-specialised variant";
  if (c.stages < kMinStages || c.stages > kMaxStages)
    return "stages " + std::to_string(c.stages) + " outside [" + std::to_string(kMinStages) + ", " +
           std::to_string(kMaxStages) + "]";
  if (igemm_smem_bytes(c) > kSmemLimit)
    return "shared memory " + std::to_string(igemm_smem_bytes(c)) + " bytes exceeds " + std::to_string(kSmemLimit);
  if (std::find(std::begin(kSplits), std::end(kSplits), c.splitk) == std::end(kSplits))
    return "splitk " + std::to_string(c.splitk) + " is not one of the listed split counts";
  return "";
}

std::string igemm_fused_staging_refusal(const IgemmConfig& c) {
  if (c.persist && !igemm_fused_persist_tile(c.bm, c.bn))
    return "the fused epilogue runs in the persistent (.p) kernels of tiles m128n128 and m64n64 only (m64n128's spilled "
           "registers; m128n256's fp32 tile does not fit)";
  if (c.persist) {
    if (igemm_smem_bytes(c, true) > kSmemLimit)
      return ".p with the fused epilogue's fp32 tile needs " + std::to_string(igemm_smem_bytes(c, true)) +
             " bytes of shared memory, over " + std::to_string(kSmemLimit);
    return "";
  }
  if (c.bm * (c.bn * 4 + 32) > c.stages * (c.bm + c.bn) * 128) return "the fp32 tile of the fused epilogue does not fit in its stage memory";
  return "";
}

IgemmConfig igemm_fused_config(const IgemmPlan& pl, IgemmConfig c) {
  if (!c.persist) {
    c.se = false;  // (the kernel runs the fused epilogue instead of .se's)
    return c;
  }
  if (igemm_fused_staging_refusal(c).empty()) return c;
  IgemmConfig q = c;  // (m128n256, m64n128) the wide .p tile with the fused epilogue
  q.bm = 128, q.bn = 128;
  if (igemm_fused_staging_refusal(q).empty() && igemm_config_refusal(pl, q).empty()) return q;
  c.persist = c.se = false;
  return c;
}

std::vector<IgemmConfig> igemm_config_space() {
  std::vector<IgemmConfig> out;
  for (int lowering = 0; lowering < 4; ++lowering)  // native; .flip; .col2im; .im2col
    for (bool se : {false, true})
      for (int variant = 0; variant < 3; ++variant)  // all threads; warp-specialised; warp-specialised + TMA
        for (const IgemmTile& t : kTiles)
          for (int st = kMinStages; st <= kMaxStages; ++st)
            for (int sp : kSplits) {
              const IgemmConfig c{t.bm, t.bn, st, sp, variant >= 1, variant == 2, se, lowering == 1, lowering == 2, lowering == 3};
              if (igemm_config_space_refusal(c).empty()) out.push_back(c);
            }
  for (const IgemmTile& t : kTiles)  // .ws.tma.se.p
    for (int st = kMinStages; st <= kMaxStages; ++st) {
      IgemmConfig c{t.bm, t.bn, st, 1, true, true, true};
      c.persist = true;
      if (igemm_config_space_refusal(c).empty()) out.push_back(c);
    }
  for (bool flip : {false, true})  // the tf32 (k32) kernels: native (fwd) and .flip (bwd-data)
    for (int variant = 0; variant < 3; ++variant)
      for (const IgemmTile& t : kTf32Tiles)
        for (int st = kMinStages; st <= kMaxStages; ++st)
          for (int sp : kSplits) {
            IgemmConfig c{t.bm, t.bn, st, sp, variant >= 1, variant == 2, false, flip};
            c.kb = kTf32KBlock;
            if (igemm_config_space_refusal(c).empty()) out.push_back(c);
          }
  return out;
}

std::vector<IgemmConfig> igemm_configs(const IgemmPlan& pl) {
  std::vector<IgemmConfig> out;
  if (!pl.refusal.empty()) return out;
  for (const IgemmConfig& c : igemm_config_space())
    if (igemm_config_refusal(pl, c).empty()) out.push_back(c);
  return out;
}

}  // namespace hiprim::gpu::sm90
