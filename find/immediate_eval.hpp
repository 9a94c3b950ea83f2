// Immediate mode's held-out picks measured (`hiprim db eval-immediate --measure`). The record-based
// evaluation (tuning/model.hpp) judges the model's solver choice by the times in the db; here each
// held-out pick is run as immediate mode would run it (its solver at model_pick_config's config: ""
// for a held-out problem, the solver's default for it) and so is Find's best (the problem's fastest
// verified record: its solver and config), both verified and timed in this process back to back
// (find/measure.hpp). A hit: both verified and the pick's time <= (1 + tolerance) x the best's.
// When the pick is the best's solver at the same config, one measurement serves both.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "find/measure.hpp"
#include "tuning/model.hpp"

namespace hiprim::find {

struct MeasuredPick {
  std::string problem;
  Measurement picked, best;
  bool same = false;  // the pick is the best's solver and config: measured once
  bool hit = false;
};

struct MeasuredEval {
  std::vector<MeasuredPick> cases;  // the held-out cases the model picked for
  std::size_t hits = 0, failed = 0;  // failed: a pick or a best that did not verify or time
};

// InputError for a case whose problem does not parse or whose solver is not registered.
MeasuredEval measure_immediate_eval(const tuning::ImmediateEval& ev, Backend b, const MeasureOptions& o, double tolerance = 0.10,
                                    const std::function<void(const MeasuredPick&)>& progress = {});

}  // namespace hiprim::find
