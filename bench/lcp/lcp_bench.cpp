// bench/lcp/lcp_bench.cpp: diagc_lcp_solve against DART 6.12's
// DantzigBoxedLcpSolver and PgsBoxedLcpSolver on the same contact-like
// problems (tests/c/lcp/gen.h).  Built and run by bench/lcp/run.
//
//   lcp_bench QUICK   (QUICK = 1: fewer problems and repetitions)
//
// Prints one markdown table row per (n bucket, solver) and a summary; the
// run script wraps them into the PERFORMANCE.md section.
//
// Every answer is scored with diagc_lcp_violation against a pristine copy
// of the problem (the true coupled conditions), whatever the solver says.
// DART harness per the reference notes: A copied into a zero-padded
// buffer of row stride dPAD(n); b, lo, hi, findex fresh copies for every
// call (Dantzig permutes them, PGS rescales A and b); on friction rows lo
// = -hi (DART treats friction bounds as symmetric: asymmetric problems are
// therefore excluded from the DART rows and reported separately); findex
// never NULL.  Copies are inside the timed region (they are part of using
// DART); diagc's only per-call work besides the solve is zeroing x.
#include <dart/constraint/DantzigBoxedLcpSolver.hpp>
#include <dart/constraint/PgsBoxedLcpSolver.hpp>
#include <dart/external/odelcpsolver/common.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "diagc/lcp.h"
#include "lcp/gen.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Problem {
  lcpg_problem p;
  bool asym;
};

struct Result {
  std::vector<double> viol;
  std::vector<double> t; /* per problem: best time of one solve (s) */
  double seconds = 0.0;
  long solves = 0;
  long iters = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Dart {
  int n;
  int stride;
  std::vector<double> A, b, lo, hi, x;
  std::vector<int> f;
  const lcpg_problem *P;
  explicit Dart(const lcpg_problem *p) : n(p->n), stride(dPAD(p->n)), P(p) {
    A.assign((size_t)stride * n, 0.0);
    b.resize(n), lo.resize(n), hi.resize(n), x.resize(n), f.resize(n);
  }
  void load() {
    for (int i = 0; i < n; i++)
      std::memcpy(&A[(size_t)i * stride], P->A + (size_t)i * n, sizeof(double) * n);
    std::memcpy(b.data(), P->b, sizeof(double) * n);
    std::memcpy(lo.data(), P->lo, sizeof(double) * n);
    std::memcpy(hi.data(), P->hi, sizeof(double) * n);
    std::memcpy(f.data(), P->findex, sizeof(int) * n);
    for (int i = 0; i < n; i++)
      if (f[i] >= 0) lo[i] = -hi[i];
    std::fill(x.begin(), x.end(), 0.0);
  }
};

// A solver under test: a name, repetitions per problem, the call.
struct Solver {
  std::string name;
  int reps;
  std::function<long(const lcpg_problem &, double *)> solve;
  Result r;
};

// Runs every solver on every problem, interleaved problem by problem (so
// a load change on the shared machine hits all solvers alike).  A
// problem's time for a solver is the best of `batches` timed loops of
// `reps` solves each (preemption on a loaded machine only ever adds
// time); the mean over problems of those per-solve times is reported.
// The answer of the last solve is scored.
void run_interleaved(const std::vector<Problem> &probs, std::vector<Solver> &solvers,
                     int batches) {
  for (const Problem &pr : probs) {
    const lcpg_problem &P = pr.p;
    std::vector<double> x(P.n, 0.0);
    std::vector<double> best(solvers.size(), INFINITY);
    std::vector<long> its(solvers.size(), 0);
    for (int bt = 0; bt < batches; bt++) {
      for (size_t i = 0; i < solvers.size(); i++) {
        Solver &s = solvers[i];
        if (bt > 0 && s.reps == 1 && best[i] > 0.05) continue; /* slow: one batch */
        auto t0 = Clock::now();
        for (int k = 0; k < s.reps; k++) its[i] = s.solve(P, x.data());
        auto t1 = Clock::now();
        double per = std::chrono::duration<double>(t1 - t0).count() / s.reps;
        if (per < best[i]) best[i] = per;
      }
    }
    for (size_t i = 0; i < solvers.size(); i++) { /* score (x is shared): one more solve */
      Solver &s = solvers[i];
      s.solve(P, x.data());
      s.r.viol.push_back(diagc_lcp_violation(P.n, P.A, P.b, P.lo, P.hi, P.findex, x.data()));
      s.r.seconds += best[i];
      s.r.t.push_back(best[i]);
      s.r.solves += 1;
      s.r.iters += its[i];
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  int quick = argc > 1 && std::atoi(argv[1]) == 1;
  const int buckets[] = {6, 12, 30, 60, 150, 300};
  const double mus[] = {0.0, 0.2, 0.5, 1.0, 5.0, 100.0};
  const double tolv = 1e-9;
  std::printf("# columns: n solver share mediann max mean_us iters_per_solve count\n");
  for (int n : buckets) {
    int nc = n / 3;
    int count = quick ? (n <= 30 ? 30 : n <= 60 ? 8 : 3) : (n <= 30 ? 300 : n <= 60 ? 60 : n <= 150 ? 18 : 8);
    int reps = quick ? 3 : (n <= 12 ? 200 : n <= 30 ? 40 : n <= 60 ? 5 : 1);
    int pgs_reps = n <= 30 ? std::max(1, reps / 10) : 1;
    int pgs_long = quick ? 1000 : (n <= 60 ? 10000 : 3000);
    int batches = quick ? 1 : 3;
    std::vector<Problem> sym, asym;
    for (int k = 0; k < count; k++) {
      lcpg_spec sp;
      std::memset(&sp, 0, sizeof sp);
      sp.nc = nc;
      sp.nb = (k % 2 == 0) ? std::max(1, nc / 2) : std::max(1, nc / 4 + 1);
      sp.mu = mus[k % 6];
      sp.asym = 0;
      Problem pr;
      if (lcpg_make(&pr.p, &sp, 1000003ull * n + k) != 0) return 1;
      pr.asym = false;
      sym.push_back(pr);
      if (k % 3 == 0) {
        sp.asym = 1;
        if (lcpg_make(&pr.p, &sp, 2000003ull * n + k) != 0) return 1;
        pr.asym = true;
        asym.push_back(pr);
      }
    }
    size_t wsz = diagc_lcp_workspace_size(n);
    std::vector<double> ws(wsz / sizeof(double) + 1);
    auto diagc_solver = [&](int method, int maxpgs) {
      return [&, method, maxpgs](const lcpg_problem &P, double *x) -> long {
        diagc_lcp_options o;
        diagc_lcp_options_init(&o, ws.data(), wsz);
        o.method = method;
        if (maxpgs > 0) o.max_pgs_iter = maxpgs;
        o.work_budget = -1.0; /* the methods' reach, not a real-time step's budget */
        diagc_lcp_stats st;
        std::memset(x, 0, sizeof(double) * P.n);
        diagc_lcp_solve(P.n, P.A, P.b, P.lo, P.hi, P.findex, x, &o, &st);
        return st.iterations;
      };
    };
    dart::constraint::DantzigBoxedLcpSolver dantzig;
    auto dart_dantzig = [&](const lcpg_problem &P, double *x) -> long {
      Dart d(&P);
      d.load();
      dantzig.solve(P.n, d.A.data(), d.x.data(), d.b.data(), 0, d.lo.data(), d.hi.data(),
                    d.f.data(), false);
      std::memcpy(x, d.x.data(), sizeof(double) * P.n);
      return 0;
    };
    auto dart_pgs = [&](int iters) {
      return [&, iters](const lcpg_problem &P, double *x) -> long {
        dart::constraint::PgsBoxedLcpSolver pgs;
        if (iters > 0) pgs.setOption(dart::constraint::PgsBoxedLcpSolver::Option(iters, 0.0, 0.0, 1e-9, false));
        Dart d(&P);
        d.load();
        pgs.solve(P.n, d.A.data(), d.x.data(), d.b.data(), 0, d.lo.data(), d.hi.data(),
                  d.f.data(), false);
        std::memcpy(x, d.x.data(), sizeof(double) * P.n);
        return iters > 0 ? iters : 30;
      };
    };
    std::vector<Solver> main_solvers = {
        {"diagc auto", reps, diagc_solver(DIAGC_LCP_AUTO, 0), {}},
        {"diagc PGS (to 1e-9, <= 20000 sweeps)", pgs_reps, diagc_solver(DIAGC_LCP_PGS, 20000), {}},
        {"DART Dantzig", reps, dart_dantzig, {}},
        {"DART PGS (default, 30 it.)", reps, dart_pgs(0), {}},
        {"DART PGS (" + std::to_string(pgs_long) + " it.)", pgs_reps, dart_pgs(pgs_long), {}},
    };
    std::vector<Solver> asym_solvers = {
        {"diagc auto, asymmetric friction", reps, diagc_solver(DIAGC_LCP_AUTO, 0), {}},
    };
    run_interleaved(sym, main_solvers, batches);
    /* DART PGS run to the same accuracy: on each problem its long run
       solved, the fewest sweeps reaching tolv (doubling from 8, then
       bisection), timed like the others; compared with diagc auto on those
       problems */
    {
      const Solver &da = main_solvers[0], &lp = main_solvers[4];
      double sum_d = 0.0, sum_p = 0.0, sweeps = 0.0;
      int both = 0;
      std::vector<double> x(n, 0.0);
      for (size_t k = 0; k < sym.size(); k++) {
        const lcpg_problem &P = sym[k].p;
        if (!(lp.r.viol[k] <= tolv) || !(da.r.viol[k] <= tolv)) continue;
        auto reaches = [&](int it) {
          dart_pgs(it)(P, x.data());
          return diagc_lcp_violation(P.n, P.A, P.b, P.lo, P.hi, P.findex, x.data()) <= tolv;
        };
        int bad = 0, good = 8;
        while (good < pgs_long && !reaches(good)) bad = good, good *= 2;
        if (good >= pgs_long) good = pgs_long;
        while (good - bad > 1) {
          int mid = bad + (good - bad) / 2;
          if (reaches(mid)) good = mid; else bad = mid;
        }
        auto run = dart_pgs(good);
        double best = INFINITY;
        for (int bt = 0; bt < batches; bt++) {
          auto t0 = Clock::now();
          for (int r = 0; r < pgs_reps; r++) run(P, x.data());
          double per = std::chrono::duration<double>(Clock::now() - t0).count() / pgs_reps;
          if (per < best) best = per;
        }
        sum_d += da.r.t[k];
        sum_p += best;
        sweeps += good;
        both++;
      }
      std::printf("TTA\t%d\t%d\t%zu\t%.3f\t%.3f\t%.1f\n", n, both, sym.size(),
                  both ? 1e6 * sum_d / both : NAN, both ? 1e6 * sum_p / both : NAN,
                  both ? sweeps / both : NAN);
      std::fflush(stdout);
    }
    run_interleaved(asym, asym_solvers, batches);
    struct Row {
      std::string name;
      Result r;
    };
    std::vector<Row> rows;
    for (Solver &s : main_solvers) rows.push_back({s.name, s.r});
    for (Solver &s : asym_solvers) rows.push_back({s.name, s.r});
    for (const Row &row : rows) {
      int ok = 0;
      double mx = 0.0;
      for (double v : row.r.viol) {
        if (v <= tolv) ok++;
        if (!(v <= mx)) mx = v;
      }
      std::printf("RESULT\t%d\t%s\t%.1f\t%.2e\t%.2e\t%.3f\t%.1f\t%zu\n", n, row.name.c_str(),
                  100.0 * ok / (double)row.r.viol.size(), median(row.r.viol), mx,
                  1e6 * row.r.seconds / (double)row.r.solves,
                  (double)row.r.iters / (double)row.r.viol.size(), row.r.viol.size());
      std::fflush(stdout);
    }
    for (Problem &pr : sym) lcpg_free(&pr.p);
    for (Problem &pr : asym) lcpg_free(&pr.p);
  }
  return 0;
}
