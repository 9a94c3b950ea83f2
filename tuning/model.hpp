// Immediate mode's model: a nearest-neighbour table over problem features, trained from the find
// and perf records (`hiprim db train`) into the db's model_points table, so that a problem without a
// find record gets a solver and config without anything being run.
//   features(problem): a category that must match exactly (conv: direction, dtype, layout, mode,
//     spatial rank, bias; another op: its string with the numbers taken out) and a vector of
//     log2(1 + v) of its sizes (conv: N, C, K, groups, then per spatial axis in, filter, stride, pad,
//     dilation; another op: every number of its string in order);
//   a point: one trained problem's verified solvers, fastest first (rank 0, 1, ...), each with the
//     config that won (the faster of its find record and its perf record);
//   rank(problem): the points of the device key and the category, nearest first (Euclidean
//     distance, ties: the trained problem string), each point's solvers in rank order. The caller
//     takes the first whose solver takes the problem with that config.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuning/records.hpp"

namespace hiprim::tuning {

struct ProblemFeatures {
  std::string category;
  std::vector<double> values;
};
// InputError when problem does not parse.
ProblemFeatures problem_features(const std::string& problem);

// One trained problem's solver at one rank.
struct ModelPoint {
  DbKey key;  // the trained problem and its device
  ProblemFeatures features;
  int rank = 0;
  std::string solver, config;
  double time_us = 0;
};

// A pick: a solver and config, the trained problem it comes from and its distance.
struct ModelPick {
  std::string solver, config, from_problem;
  double distance = 0;
  int rank = 0;
};

// The device part of a key (problem left empty) and the problem string: what a model is split by.
DbKey device_of(const DbKey& key);

class ImmediateModel {
 public:
  ImmediateModel() = default;
  explicit ImmediateModel(std::vector<ModelPoint> points);
  // Points from the find records (verified ones) and the perf records of one db.
  static ImmediateModel train(const Db& db);
  // The model of `db`'s model_points table (empty when none was trained).
  static ImmediateModel load(const Db& db);
  // Replaces db's model_points with this model's points (one transaction).
  void store(const Db& db) const;

  // The candidates for problem on device (device_of(key)), nearest first; empty when no point of
  // that device and category exists. At most `limit` picks.
  std::vector<ModelPick> rank(const DbKey& key, std::size_t limit = 16) const;
  const std::vector<ModelPoint>& points() const { return points_; }
  std::size_t problems() const;  // distinct trained problems

 private:
  std::vector<ModelPoint> points_;
  // device text + "\n" + category -> indices of points_, grouped by problem in rank order.
  std::map<std::string, std::vector<std::size_t>> index_;
};

// `hiprim db eval-immediate`: a share `holdout` of the distinct problems with verified find records
// (chosen by a hash of the problem string: the same split on every device) is held out; the model
// trained on the rest picks for each held-out problem the first ranked solver that has a verified
// find record there; from the records, the pick is a hit when that record's time is within
// `tolerance` (0.10) of the problem's best. That judges the solver choice only: immediate mode runs
// a held-out problem's pick at the solver's default config (verify/immediate.hpp), and the record
// holds the solver's fastest of default and tuned. find/immediate_eval.hpp measures the pick as it
// would run (`--measure`).
struct ImmediateEval {
  std::size_t trained = 0, held_out = 0, picked = 0, hits = 0;  // picked: the model had a candidate
  double mean_pick_us = 0, max_pick_us = 0;                     // rank() time per held-out problem
  struct Case {
    std::string problem, best_solver, best_config, picked_solver;
    std::string record_config;           // the picked solver's record there: the config its time is of
    double best_us = 0, picked_us = -1;  // picked_us < 0: no pick
    bool hit = false;
  };
  std::vector<Case> cases;
};
// InputError unless 0 < holdout < 1.
ImmediateEval evaluate_immediate(const Db& db, double holdout, double tolerance = 0.10);

}  // namespace hiprim::tuning
