// Immediate mode's nearest-neighbour model (tuning/model.hpp).
#include "tuning/model.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "core/op_problem.hpp"

namespace hiprim::tuning {
namespace {

double feature(double v) { return std::log2(1.0 + std::fabs(v)); }

// Every number of an op's string in order; the string with each number replaced by '#'.
ProblemFeatures generic_features(const std::string& s) {
  ProblemFeatures f;
  for (std::size_t i = 0; i < s.size();) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::size_t j = i;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      f.values.push_back(feature(std::strtod(s.substr(i, j - i).c_str(), nullptr)));
      f.category += '#';
      i = j;
    } else {
      f.category += s[i++];
    }
  }
  return f;
}

std::string join(const std::vector<double>& v) {
  std::string s;
  char buf[32];
  for (double x : v) std::snprintf(buf, sizeof buf, "%s%.17g", s.empty() ? "" : " ", x), s += buf;
  return s;
}

std::vector<double> split_numbers(const std::string& s) {
  std::vector<double> v;
  std::istringstream in(s);
  for (double x; in >> x;) v.push_back(x);
  return v;
}

std::string index_key(const DbKey& device, const std::string& category) { return device_of(device).text() + "\n" + category; }

// The points of the verified find records and the perf records (see the header), only of the keys
// `keep` accepts.
template <class Keep>
std::vector<ModelPoint> points_from(const std::vector<FindRecord>& finds, const std::vector<PerfRecord>& perfs, const Keep& keep) {
  struct Entry {
    std::string solver, config;
    double time_us;
  };
  std::map<std::string, std::pair<DbKey, std::map<std::string, Entry>>> by_key;  // key text -> (key, solver -> best)
  auto offer = [&](const DbKey& k, const std::string& solver, const std::string& config, double t) {
    if (!keep(k)) return;
    auto& slot = by_key.try_emplace(k.text(), k, std::map<std::string, Entry>{}).first->second.second;
    auto it = slot.find(solver);
    if (it == slot.end() || t < it->second.time_us) slot[solver] = Entry{solver, config, t};
  };
  for (const auto& r : finds)
    if (r.verified) offer(r.key, r.solver, r.config, r.time_us);
  for (const auto& r : perfs) offer(r.key, r.solver, r.config, r.time_us);
  std::vector<ModelPoint> out;
  for (auto& [text, kv] : by_key) {
    ProblemFeatures f;
    try {
      f = problem_features(kv.first.problem);
    } catch (const InputError&) {
      continue;  // a record of a problem this hiprim cannot parse teaches nothing
    }
    std::vector<Entry> es;
    for (auto& [s, e] : kv.second) es.push_back(e);
    std::sort(es.begin(), es.end(), [](const Entry& a, const Entry& b) { return a.time_us != b.time_us ? a.time_us < b.time_us : a.solver < b.solver; });
    for (std::size_t i = 0; i < es.size(); ++i) out.push_back(ModelPoint{kv.first, f, static_cast<int>(i), es[i].solver, es[i].config, es[i].time_us});
  }
  return out;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

ProblemFeatures problem_features(const std::string& problem) {
  const OpProblemPtr p = parse_op_problem(problem);
  const ConvProblem* c = op_problem_cast<ConvProblem>(*p);
  if (!c) return generic_features(p->str());
  ProblemFeatures f;
  f.category = "conv " + std::string(conv_dir_name(c->dir)) + " " + std::string(dtype_name(c->dtype)) + (c->channels_last ? " nhwc" : " nchw") +
               (c->mode == ConvMode::conv ? " conv" : " trans") + " d" + std::to_string(c->in.size()) + (c->bias ? " bias" : "");
  for (double v : {double(c->n), double(c->c), double(c->k), double(c->groups)}) f.values.push_back(feature(v));
  for (std::size_t i = 0; i < c->in.size(); ++i)
    for (const Dims* d : {&c->in, &c->filter, &c->stride, &c->pad, &c->dilation}) f.values.push_back(feature(double((*d)[i])));
  return f;
}

DbKey device_of(const DbKey& key) {
  DbKey d = key;
  d.problem.clear();
  return d;
}

ImmediateModel::ImmediateModel(std::vector<ModelPoint> points) : points_(std::move(points)) {
  std::sort(points_.begin(), points_.end(), [](const ModelPoint& a, const ModelPoint& b) {
    return a.key.text() != b.key.text() ? a.key.text() < b.key.text() : a.rank < b.rank;
  });
  for (std::size_t i = 0; i < points_.size(); ++i) index_[index_key(points_[i].key, points_[i].features.category)].push_back(i);
}

ImmediateModel ImmediateModel::train(const Db& db) {
  return ImmediateModel(points_from(FindDb(db).all(), PerfDb(db).all(), [](const DbKey&) { return true; }));
}

ImmediateModel ImmediateModel::load(const Db& db) {
  auto st = db.prepare(
      "SELECT problem, device, sm_count, cc, hiprim_version, category, features, rank, solver, config, time_us FROM model_points");
  std::vector<ModelPoint> pts;
  while (st.step()) {
    ModelPoint m;
    m.key = DbKey{st.text(0), st.text(1), static_cast<int>(st.integer(2)), st.text(3), st.text(4)};
    m.features = ProblemFeatures{st.text(5), split_numbers(st.text(6))};
    m.rank = static_cast<int>(st.integer(7));
    m.solver = st.text(8), m.config = st.text(9), m.time_us = st.real(10);
    pts.push_back(std::move(m));
  }
  return ImmediateModel(std::move(pts));
}

void ImmediateModel::store(const Db& db) const {
  db.write([&] {
    db.exec("DELETE FROM model_points");
    auto st = db.prepare(
        "INSERT INTO model_points (problem, device, sm_count, cc, hiprim_version, category, features, rank, solver, config, time_us) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    for (const auto& m : points_) {
      st.bind(0, m.key.problem).bind(1, m.key.device).bind(2, std::int64_t{m.key.sm_count}).bind(3, m.key.compute_capability);
      st.bind(4, m.key.hiprim_version).bind(5, m.features.category).bind(6, join(m.features.values)).bind(7, std::int64_t{m.rank});
      st.bind(8, m.solver).bind(9, m.config).bind(10, m.time_us);
      st.run();
    }
  });
}

std::size_t ImmediateModel::problems() const {
  std::set<std::string> keys;
  for (const auto& m : points_) keys.insert(m.key.text());
  return keys.size();
}

std::vector<ModelPick> ImmediateModel::rank(const DbKey& key, std::size_t limit) const {
  const ProblemFeatures f = problem_features(key.problem);
  const auto it = index_.find(index_key(key, f.category));
  if (it == index_.end()) return {};
  // One distance per trained problem (its points are adjacent, in rank order).
  std::vector<std::pair<double, std::size_t>> near;  // (distance, first point index)
  const std::vector<std::size_t>& ix = it->second;
  for (std::size_t j = 0; j < ix.size(); ++j) {
    const ModelPoint& m = points_[ix[j]];
    if (m.rank != 0 || m.features.values.size() != f.values.size()) continue;
    double d2 = 0;
    for (std::size_t i = 0; i < f.values.size(); ++i) d2 += (m.features.values[i] - f.values[i]) * (m.features.values[i] - f.values[i]);
    near.emplace_back(std::sqrt(d2), j);
  }
  std::sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : points_[ix[a.second]].key.problem < points_[ix[b.second]].key.problem;
  });
  std::vector<ModelPick> out;
  for (const auto& [d, j] : near) {
    const std::string& problem = points_[ix[j]].key.problem;
    for (std::size_t k = j; k < ix.size() && points_[ix[k]].key.problem == problem && out.size() < limit; ++k) {
      const ModelPoint& m = points_[ix[k]];
      out.push_back(ModelPick{m.solver, m.config, problem, d, m.rank});
    }
    if (out.size() >= limit) break;
  }
  return out;
}

ImmediateEval evaluate_immediate(const Db& db, double holdout, double tolerance) {
  if (!(holdout > 0 && holdout < 1)) throw InputError("--holdout " + std::to_string(holdout) + ": expected a share between 0 and 1 (e.g. 0.2)");
  const std::vector<FindRecord> finds = FindDb(db).all();
  auto held = [&](const DbKey& k) { return double(fnv1a(k.problem) % 1000003) / 1000003.0 < holdout; };
  ImmediateEval ev;
  const ImmediateModel model(points_from(finds, PerfDb(db).all(), [&](const DbKey& k) { return !held(k); }));
  ev.trained = model.problems();
  // The held-out problems' verified records, fastest first (FindDb::all orders by key, then time).
  std::map<std::string, std::vector<const FindRecord*>> tests;
  for (const auto& r : finds)
    if (r.verified && held(r.key)) tests[r.key.text()].push_back(&r);
  double total_us = 0;
  for (const auto& [text, rs] : tests) {
    ImmediateEval::Case c;
    c.problem = rs.front()->key.problem;
    c.best_solver = rs.front()->solver, c.best_config = rs.front()->config, c.best_us = rs.front()->time_us;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<ModelPick> picks = model.rank(rs.front()->key);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    total_us += us, ev.max_pick_us = std::max(ev.max_pick_us, us);
    for (const auto& p : picks) {
      const auto r = std::find_if(rs.begin(), rs.end(), [&](const FindRecord* x) { return x->solver == p.solver; });
      if (r == rs.end()) continue;  // that solver did not run here: the caller would skip it too
      c.picked_solver = p.solver, c.record_config = (*r)->config, c.picked_us = (*r)->time_us;
      c.hit = c.picked_us <= c.best_us * (1 + tolerance);
      break;
    }
    ev.picked += c.picked_us >= 0;
    ev.hits += c.hit;
    ev.cases.push_back(std::move(c));
  }
  ev.held_out = tests.size();
  ev.mean_pick_us = tests.empty() ? 0 : total_us / double(tests.size());
  return ev;
}

}  // namespace hiprim::tuning
