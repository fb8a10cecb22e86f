/* Tests of diagc_lcp_solve / diagc_lcp_violation (diagc/lcp.h).
 *
 * Every solution is scored twice: by the library's metric and by ref_viol
 * below, an independent, straightforward implementation of the metric of
 * docs/lcp.md (section 4).  Expected values
 * come from hand-solved problems, never from the solver's own output.
 * Every call also checks: inputs unchanged (memcmp against copies), x
 * finite, stats consistent with the returned x. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/lcp.h"
#include "lcp/gen.h"

#include "lcp/check.h"

/* A problem under test, with pristine copies for the memcmp check. */
typedef struct {
  int n;
  double *A, *b, *lo, *hi;
  int *fx;
} prob;

static _Alignas(64) unsigned char ws_buf[1 << 24];

/* The work budget of solve_checked (diagc_lcp_options.work_budget): the
 * default (0), or unlimited (-1) where a test checks what the methods
 * reach on hard problems rather than what a real-time step gets
 * (tests/c/test_contact.c tests the budget itself). */
static double test_budget = 0.0;

/* Solves with the given method (and cfm, warm start in x); checks the
 * invariants; returns the status and fills *vref (reference violation). */
static int solve_checked(const char *name, const prob *p, double *x, int method, double cfm,
                         diagc_lcp_stats *st, double *vref) {
  int n = p->n, i, rc, bad = 0;
  size_t nn = (size_t)n, ws = diagc_lcp_workspace_size(n);
  diagc_lcp_options o;
  double *cA = malloc(sizeof(double) * nn * nn + 8), *cb = malloc(sizeof(double) * nn + 8);
  double *clo = malloc(sizeof(double) * nn + 8), *chi = malloc(sizeof(double) * nn + 8);
  int *cf = malloc(sizeof(int) * nn + 8);
  if (ws > sizeof ws_buf) {
    printf("FAIL %s: workspace %zu exceeds the test buffer\n", name, ws);
    failures++;
    return -100;
  }
  memcpy(cA, p->A, sizeof(double) * nn * nn);
  memcpy(cb, p->b, sizeof(double) * nn);
  memcpy(clo, p->lo, sizeof(double) * nn);
  memcpy(chi, p->hi, sizeof(double) * nn);
  if (p->fx) memcpy(cf, p->fx, sizeof(int) * nn);
  diagc_lcp_options_init(&o, ws_buf, ws);
  o.method = method;
  o.cfm = cfm;
  o.work_budget = test_budget;
  rc = diagc_lcp_solve(n, p->A, p->b, p->lo, p->hi, p->fx, x, &o, st);
  if (memcmp(cA, p->A, sizeof(double) * nn * nn) || memcmp(cb, p->b, sizeof(double) * nn) ||
      memcmp(clo, p->lo, sizeof(double) * nn) || memcmp(chi, p->hi, sizeof(double) * nn) ||
      (p->fx && memcmp(cf, p->fx, sizeof(int) * nn))) {
    printf("FAIL %s: inputs modified\n", name);
    failures++;
    bad = 1;
  }
  for (i = 0; i < n; i++)
    if (!isfinite(x[i])) {
      printf("FAIL %s: x[%d] = %g is not finite\n", name, i, x[i]);
      failures++;
      bad = 1;
      break;
    }
  *vref = ref_viol(n, p->A, p->b, p->lo, p->hi, p->fx, x, cfm);
  if (!bad && cfm == 0.0) {
    double vl = diagc_lcp_violation(n, p->A, p->b, p->lo, p->hi, p->fx, x);
    if (fabs(vl - *vref) > 1e-12 * (1 + *vref) || fabs(st->violation - vl) > 1e-12 * (1 + vl)) {
      printf("FAIL %s: metrics disagree: reference %.3g, library %.3g, stats %.3g\n", name, *vref,
             vl, st->violation);
      failures++;
    }
  }
  free(cA), free(cb), free(clo), free(chi), free(cf);
  return rc;
}

static prob from_gen(const lcpg_problem *g) {
  prob p;
  p.n = g->n, p.A = g->A, p.b = g->b, p.lo = g->lo, p.hi = g->hi, p.fx = g->findex;
  return p;
}

/* ------------------------------------------------------------------------ */

static void test_metric(void) {
  /* one contact, A = I: w = x - b */
  double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {1, 0.2, 0}, lo[3] = {0, -0.5, -0.5},
         hi[3] = {INFINITY, 0.5, 0.5};
  int fx[3] = {-1, 0, 0};
  double x[3] = {1, 0.2, 0}; /* exact: normal inside, friction inside */
  double v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_zero_on_solution", v == 0.0, "got %g", v);
  x[1] = 0.6; /* outside the box [-0.5, 0.5] by 0.1 */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_outside_box", fabs(v - 0.1) < 1e-15, "got %g", v);
  x[1] = 0.5;
  b[1] = 0.7; /* at H with w = -0.2 <= 0: fine */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_at_upper_ok", v == 0.0, "got %g", v);
  b[1] = 0.3; /* at H with w = 0.2 > 0 */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_at_upper_wrong_sign", fabs(v - 0.2) < 1e-15, "got %g", v);
  x[1] = 0.2, b[1] = 0.2;
  x[0] = 0.0; /* normal at 0 with w = -1: wrong sign; friction box collapses */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_at_lower_wrong_sign", fabs(v - 1.0) < 1e-15, "got %g", v);
  x[0] = 2.0; /* inside with w = 1 */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_inside_nonzero_w", fabs(v - 1.0) < 1e-15, "got %g", v);
  x[0] = 0.1, b[0] = 0.1, x[1] = 0.2; /* bounds scale with x_n: |x_t| <= 0.05 */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_friction_scaled_by_normal", fabs(v - 0.15) < 1e-15, "got %g", v);
  x[0] = 0.0, b[0] = -1.0, x[1] = 0.0, b[1] = 5.0, x[2] = 0.0; /* lo = hi: no complementarity */
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_collapsed_box_zero", v == 0.0, "got %g", v);
  x[0] = NAN;
  v = diagc_lcp_violation(3, A, b, lo, hi, fx, x);
  CHECK("metric_nan_is_inf", v == INFINITY, "got %g", v);
}

static void test_analytic(void) {
  diagc_lcp_stats st;
  double vref;
  {
    /* 1-D: A = 2, b = 4: x = 2; b = -4: x = 0; hi = 1: x = 1 */
    double A[1] = {2}, b[1] = {4}, lo[1] = {0}, hi[1] = {INFINITY}, x[1] = {0};
    prob p = {1, A, b, lo, hi, NULL};
    int rc = solve_checked("analytic_1d", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("analytic_1d_interior", rc == DIAGC_OK && fabs(x[0] - 2) < 1e-15, "rc %d x %g", rc, x[0]);
    b[0] = -4, x[0] = 0.5;
    rc = solve_checked("analytic_1d", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("analytic_1d_lower", rc == DIAGC_OK && x[0] == 0.0, "rc %d x %g", rc, x[0]);
    b[0] = 4, hi[0] = 1, x[0] = 0;
    rc = solve_checked("analytic_1d", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("analytic_1d_upper", rc == DIAGC_OK && x[0] == 1.0, "rc %d x %g", rc, x[0]);
  }
  {
    /* One contact sliding, normal and tangent coupled through A:
       A = [[1, a, 0], [a, 1, 0], [0, 0, 1]], b = (1, 3, 0), mu = 0.5, a = 0.5.
       Sliding at +mu x_n: w_n = x_n + a mu x_n - 1 = 0 -> x_n = 1/1.25 = 0.8,
       x_t = 0.4, w_t = a x_n + x_t - 3 = -2.2 <= 0.  Frozen bounds (from the
       frictionless x_n = 1) would give x_t = 0.5 and a wrong x_n. */
    double A[9] = {1, 0.5, 0, 0.5, 1, 0, 0, 0, 1}, b[3] = {1, 3, 0}, lo[3] = {0, -0.5, -0.5},
           hi[3] = {INFINITY, 0.5, 0.5}, x[3] = {0, 0, 0};
    int fx[3] = {-1, 0, 0}, m;
    prob p = {3, A, b, lo, hi, fx};
    for (m = 0; m < 3; m++) {
      char nm[64];
      int rc;
      x[0] = x[1] = x[2] = 0;
      snprintf(nm, sizeof nm, "analytic_coupled_sliding_method%d", m);
      rc = solve_checked(nm, &p, x, m, 0, &st, &vref);
      CHECK(nm, rc == DIAGC_OK && fabs(x[0] - 0.8) < 1e-9 && fabs(x[1] - 0.4) < 1e-9 &&
                    fabs(x[2]) < 1e-9,
            "rc %d x = (%.12g, %.12g, %.12g)", rc, x[0], x[1], x[2]);
    }
    /* asymmetric bounds: lo = -0.1, hi = 0.5 and b_t = -3: sliding at
       lo x_n: w_n = x_n - 0.05 x_n - 1 = 0 -> x_n = 1/0.95, x_t = -x_n/10 */
    lo[1] = -0.1, b[1] = -3;
    x[0] = x[1] = x[2] = 0;
    {
      int rc = solve_checked("analytic_asymmetric", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
      CHECK("analytic_asymmetric_friction",
            rc == DIAGC_OK && fabs(x[0] - 1 / 0.95) < 1e-12 && fabs(x[1] + 0.1 / 0.95) < 1e-12,
            "rc %d x = (%.12g, %.12g)", rc, x[0], x[1]);
    }
  }
}

/* Random contact problems: one ok line per group. */
static void random_group(const char *tag, int nc, int nb, double mu, int asym, int nextra, int dup,
                         int count, int method, double cfm) {
  char name[160];
  int k, nfail = 0, rc_bad = 0;
  double worst = 0.0;
  snprintf(name, sizeof name, "%s_nc%d_nb%d_mu%g%s%s%s", tag, nc, nb, mu, asym ? "_asym" : "",
           nextra ? "_extra" : "", dup ? "_dup" : "");
  for (k = 0; k < count; k++) {
    lcpg_spec sp;
    lcpg_problem g;
    prob p;
    double *x, vref;
    diagc_lcp_stats st;
    int rc;
    memset(&sp, 0, sizeof sp);
    sp.nc = nc, sp.nb = nb, sp.mu = mu, sp.asym = asym, sp.nextra = nextra, sp.dup = dup;
    if (lcpg_make(&g, &sp, (uint64_t)(7919 * k + 31 * nc + nb) + (uint64_t)(mu * 1000)) != 0) {
      printf("FAIL %s: out of memory\n", name);
      failures++;
      return;
    }
    p = from_gen(&g);
    x = calloc((size_t)g.n, sizeof(double));
    rc = solve_checked(name, &p, x, method, cfm, &st, &vref);
    if (vref > worst) worst = vref;
    if (rc != DIAGC_OK) rc_bad++;
    if (!(vref <= 1e-9)) nfail++;
    free(x);
    lcpg_free(&g);
  }
  CHECK(name, nfail == 0 && rc_bad == 0, "%d of %d problems above 1e-9 (worst %.3g), %d not SOLVED",
        nfail, count, worst, rc_bad);
}

static void test_random(void) {
  static const double mus[] = {0.0, 0.1, 0.5, 1.0, 10.0, 1e3};
  static const int ncs[] = {1, 2, 4, 7, 10, 20};
  unsigned a, m;
  test_budget = -1.0; /* hard problems: the methods' reach, unbudgeted */
  for (a = 0; a < sizeof ncs / sizeof ncs[0]; a++)
    for (m = 0; m < sizeof mus / sizeof mus[0]; m++) {
      int nc = ncs[a];
      /* symmetric or asymmetric friction, about two contacts per body */
      random_group("random", nc, (nc + 1) / 2, mus[m], (int)(m % 2), 0, 0, nc <= 4 ? 20 : 8,
                   DIAGC_LCP_AUTO, 0);
      /* fewer bodies (rank-deficient A), asymmetric friction, plus rows
         with constant bounds (motor-, limit- and joint-like) */
      random_group("random_mixed", nc, 1 + nc / 4, mus[m], 1, 1 + nc / 2, 0, nc <= 4 ? 12 : 5,
                   DIAGC_LCP_AUTO, 0);
    }
  /* very large friction (sticking, or sliding with normal impulses of order 1/mu) */
  random_group("random_huge_mu", 2, 1, 1e6, 0, 0, 0, 12, DIAGC_LCP_AUTO, 0);
  random_group("random_huge_mu", 4, 2, 1e6, 1, 0, 0, 8, DIAGC_LCP_AUTO, 0);
  random_group("random_huge_mu", 10, 5, 1e6, 0, 0, 0, 6, DIAGC_LCP_AUTO, 0);
  random_group("random_huge_mu", 7, 4, 1e6, 1, 0, 0, 6, DIAGC_LCP_AUTO, 0);
  /* large n */
  random_group("random_large", 50, 25, 0.5, 0, 0, 0, 2, DIAGC_LCP_AUTO, 0);
  random_group("random_large", 100, 50, 0.0, 0, 0, 0, 1, DIAGC_LCP_AUTO, 0);
  random_group("random_large", 100, 50, 0.3, 1, 0, 0, 1, DIAGC_LCP_AUTO, 0);
  /* the pivoting method alone */
  random_group("pivot_only", 4, 2, 0.5, 0, 0, 0, 8, DIAGC_LCP_PIVOT, 0);
  test_budget = 0.0;
}

static void test_degenerate(void) {
  diagc_lcp_stats st;
  double vref;
  int rc;
  /* duplicated contacts (A singular), rank-deficient (many contacts, one body) */
  random_group("duplicated_contacts", 6, 2, 0.5, 0, 0, 3, 6, DIAGC_LCP_AUTO, 0);
  random_group("duplicated_contacts", 4, 2, 0.0, 0, 0, 2, 6, DIAGC_LCP_AUTO, 0);
  random_group("rank_deficient_one_body", 12, 1, 0.5, 0, 0, 0, 4, DIAGC_LCP_AUTO, 0);
  random_group("rank_deficient_one_body", 8, 1, 2.0, 1, 2, 0, 4, DIAGC_LCP_AUTO, 0);
  /* regularized (constraint force mixing): the solution of A + cfm I */
  random_group("cfm_duplicated", 6, 2, 0.5, 0, 0, 3, 4, DIAGC_LCP_AUTO, 1e-6);
  {
    /* mu = 100 on a rank-deficient scene (20 contacts on 6 bodies: A is
       60 x 60 of rank 36), the benchmark's n = 60 problem 59: every
       coupled-pivoting attempt and the Dantzig pass stop, Lemke's method
       fails too; PGS from the start point (x = 0) converges, and the
       active set of its iterate verifies (AUTO step 5, docs/lcp.md).  The
       counts pin that stage: at most 40 early sweeps plus its budget of
       1000, and about 2000 pivots, where reaching Lemke's method (step 6)
       adds about 1800 more. */
    lcpg_spec sp;
    lcpg_problem g;
    prob q;
    double *x;
    memset(&sp, 0, sizeof sp);
    sp.nc = 20, sp.nb = 6, sp.mu = 100.0;
    if (lcpg_make(&g, &sp, 1000003ull * 60 + 59) == 0) {
      q = from_gen(&g);
      x = calloc((size_t)g.n, sizeof(double));
      test_budget = -1.0; /* the path, unbudgeted (about 3000 units of work) */
      rc = solve_checked("degenerate_mu100_start_pgs", &q, x, DIAGC_LCP_AUTO, 0, &st, &vref);
      test_budget = 0.0;
      CHECK("degenerate_mu100_start_pgs",
            rc == DIAGC_OK && vref <= 1e-9 && st.method == DIAGC_LCP_PIVOT_AFTER_PGS &&
                st.pgs_sweeps <= 1040 && st.pivots < 2600,
            "rc %d violation %.3g method %d sweeps %d pivots %d", rc, vref, st.method, st.pgs_sweeps, st.pivots);
      free(x);
      lcpg_free(&g);
    } else {
      CHECK("degenerate_mu100_start_pgs", 0, "out of memory");
    }
  }
  {
    /* all separating: b = -J v* with v* moving away: b_n < 0 -> x = 0 */
    double A[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2}, b[3] = {-1, 0.4, -0.2},
           lo[3] = {0, -1, -1}, hi[3] = {INFINITY, 1, 1}, x[3] = {0.3, 0.1, -0.1};
    int fx[3] = {-1, 0, 0};
    prob p = {3, A, b, lo, hi, fx};
    rc = solve_checked("all_separating", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("all_separating", rc == DIAGC_OK && x[0] == 0 && x[1] == 0 && x[2] == 0,
          "rc %d x = (%g %g %g)", rc, x[0], x[1], x[2]);
  }
  {
    /* a zero row/column (b = 0): any x in its box is complementary; the
       others: 2 x1 = 4 -> x1 = 2 */
    double A[4] = {0, 0, 0, 2}, b[2] = {0, 4}, lo[2] = {-1, 0}, hi[2] = {1, INFINITY}, x[2] = {0, 0};
    prob p = {2, A, b, lo, hi, NULL};
    rc = solve_checked("zero_row", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("zero_row", rc == DIAGC_OK && vref <= 1e-12 && fabs(x[1] - 2) < 1e-12,
          "rc %d viol %g x1 %g", rc, vref, x[1]);
  }
  {
    /* lo = hi rows: x fixed at 0.25; the other row: 2 x1 + 0.5*0.25 = 1 */
    double A[4] = {1, 0.5, 0.5, 2}, b[2] = {7, 1}, lo[2] = {0.25, 0}, hi[2] = {0.25, INFINITY},
           x[2] = {0, 0};
    prob p = {2, A, b, lo, hi, NULL};
    rc = solve_checked("lo_equals_hi", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("lo_equals_hi", rc == DIAGC_OK && x[0] == 0.25 && fabs(x[1] - 0.4375) < 1e-14,
          "rc %d x = (%.17g, %.17g)", rc, x[0], x[1]);
  }
  {
    /* n = 0 */
    diagc_lcp_options o;
    diagc_lcp_options_init(&o, ws_buf, diagc_lcp_workspace_size(0));
    rc = diagc_lcp_solve(0, NULL, NULL, NULL, NULL, NULL, NULL, &o, &st);
    CHECK("empty_problem", rc == DIAGC_OK, "rc %d", rc);
  }
}

/* The FCLIB sample converted by scripts/convert_fclib_lcp.sh. */
static void test_fclib(void) {
  FILE *f = fopen("tests/fixtures/lcp/fclib_local_problem_test.txt", "r");
  char line[256];
  int n = 0, nc = 0, nrows = 0, nnz = 0, rc, i;
  double mu = 0, *A = NULL, *b = NULL, *lo = NULL, *hi = NULL, *x = NULL, vref;
  int *fx = NULL;
  diagc_lcp_stats st;
  if (!f) {
    CHECK("fclib_fixture_present", 0, "cannot open tests/fixtures/lcp/fclib_local_problem_test.txt");
    return;
  }
  while (fgets(line, sizeof line, f)) {
    int r, c, j;
    double v, l, h, bb;
    char ls[64], hs[64];
    if (line[0] == '#') continue;
    if (sscanf(line, "n %d", &r) == 1) {
      n = r;
      A = calloc((size_t)n * n, sizeof(double));
      b = calloc((size_t)n, sizeof(double)), lo = calloc((size_t)n, sizeof(double));
      hi = calloc((size_t)n, sizeof(double)), x = calloc((size_t)n, sizeof(double));
      fx = calloc((size_t)n, sizeof(int));
    } else if (sscanf(line, "contacts %d", &r) == 1) {
      nc = r;
    } else if (sscanf(line, "mu %lf", &v) == 1) {
      mu = v;
    } else if (A && sscanf(line, "row %d %lf %63s %63s %d", &r, &bb, ls, hs, &j) == 5 && r >= 0 && r < n) {
      l = strtod(ls, NULL), h = strtod(hs, NULL);
      b[r] = bb, lo[r] = l, hi[r] = h, fx[r] = j;
      nrows++;
    } else if (A && sscanf(line, "a %d %d %lf", &r, &c, &v) == 3 && r >= 0 && r < n && c >= 0 && c < n) {
      A[r * n + c] = v;
      nnz++;
    }
  }
  fclose(f);
  CHECK("fclib_loads_48_contacts_n144_mu07", n == 144 && nc == 48 && nrows == 144 && fabs(mu - 0.7) < 1e-15 && nnz > 0,
        "n %d contacts %d rows %d mu %g nnz %d", n, nc, nrows, mu, nnz);
  if (n != 144) return;
  {
    int layout = 1;
    for (i = 0; i < n; i++)
      if ((i % 3 == 0 && (fx[i] != -1 || lo[i] != 0 || hi[i] != INFINITY)) ||
          (i % 3 != 0 && (fx[i] != i - i % 3 || lo[i] != -0.7 || hi[i] != 0.7)))
        layout = 0;
    CHECK("fclib_contact_layout", layout, "rows are not [n, t1, t2] with findex {-1, base, base}");
  }
  {
    prob p = {n, A, b, lo, hi, fx};
    rc = solve_checked("fclib_auto", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    /* DART: Dantzig 4.9e-3, PGS 4.0e-8 after 100 000 sweeps (reference notes) */
    CHECK("fclib_auto_beats_pgs_100k", rc == DIAGC_OK && vref <= 1e-9 && vref < 4.0e-8,
          "rc %d violation %.3g (method %d)", rc, vref, st.method);
  }
  free(A), free(b), free(lo), free(hi), free(x), free(fx);
}

static void test_warm_start_and_pgs(void) {
  lcpg_spec sp;
  lcpg_problem g;
  prob p;
  diagc_lcp_stats st;
  double *x, vref;
  int rc, i, k, okc = 0, its_ok = 1;
  memset(&sp, 0, sizeof sp);
  for (k = 0; k < 6; k++) {
    sp.nc = 8, sp.nb = 4, sp.mu = 0.4 + 0.2 * k, sp.asym = k % 2;
    lcpg_make(&g, &sp, 555 + (uint64_t)k);
    p = from_gen(&g);
    x = calloc((size_t)g.n, sizeof(double));
    rc = solve_checked("warm_start_cold", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    if (rc == DIAGC_OK) {
      uint64_t s = 99 + (uint64_t)k;
      for (i = 0; i < g.n; i++) x[i] += 1e-3 * lcpg_range(&s, -1, 1);
      rc = solve_checked("warm_start_perturbed", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
      if (rc == DIAGC_OK && vref <= 1e-9) okc++;
      if (st.iterations > 10) its_ok = 0;
    }
    free(x);
    lcpg_free(&g);
  }
  CHECK("warm_start_perturbed_converges", okc == 6, "%d of 6", okc);
  CHECK("warm_start_few_iterations", its_ok, "a perturbed warm start took more than 10 iterations");

  /* PGS alone on an easy problem: one contact per body, well conditioned */
  memset(&sp, 0, sizeof sp);
  sp.nc = 2, sp.nb = 2, sp.mu = 0.0;
  lcpg_make(&g, &sp, 4242);
  p = from_gen(&g);
  x = calloc((size_t)g.n, sizeof(double));
  rc = solve_checked("pgs_easy", &p, x, DIAGC_LCP_PGS, 0, &st, &vref);
  CHECK("pgs_easy_converges", rc == DIAGC_OK && vref <= 1e-9 && st.method == DIAGC_LCP_PGS &&
                                  st.pgs_sweeps > 0 && st.pgs_sweeps == st.iterations && st.pivots == 0,
        "rc %d viol %.3g method %d sweeps %d iterations %d", rc, vref, st.method, st.pgs_sweeps,
        st.iterations);
  /* and the pivoting method on the same problem: stats sensible */
  memset(x, 0, sizeof(double) * (size_t)g.n);
  rc = solve_checked("pivot_stats", &p, x, DIAGC_LCP_PIVOT, 0, &st, &vref);
  CHECK("pivot_stats_sensible", rc == DIAGC_OK &&
                                    (st.method == DIAGC_LCP_PIVOT || st.method == DIAGC_LCP_COUPLED) &&
                                    st.iterations >= 1 && st.pgs_sweeps == 0 && st.violation <= 1e-9,
        "rc %d method %d iterations %d sweeps %d viol %g", rc, st.method, st.iterations, st.pgs_sweeps,
        st.violation);
  /* PGS with a tiny sweep budget on a hard problem: not SOLVED, x finite */
  free(x);
  lcpg_free(&g);
  memset(&sp, 0, sizeof sp);
  sp.nc = 10, sp.nb = 2, sp.mu = 0.5;
  lcpg_make(&g, &sp, 77);
  p = from_gen(&g);
  x = calloc((size_t)g.n, sizeof(double));
  {
    diagc_lcp_options o;
    diagc_lcp_options_init(&o, ws_buf, diagc_lcp_workspace_size(g.n));
    o.method = DIAGC_LCP_PGS;
    o.max_pgs_iter = 2;
    rc = diagc_lcp_solve(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
    vref = ref_viol(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, 0);
    CHECK("pgs_budget_status_honest",
          (rc == DIAGC_OK) == (vref <= 1e-9) && (rc == DIAGC_LCP_E_UNSOLVED) == (vref > 1e-6) &&
              st.pgs_sweeps <= 2 && isfinite(vref),
          "rc %d viol %.3g sweeps %d", rc, vref, st.pgs_sweeps);
  }
  free(x);
  lcpg_free(&g);
}

static void test_arguments(void) {
  double A[4] = {1, 0, 0, 1}, b[2] = {1, 1}, lo[2] = {0, -1}, hi[2] = {INFINITY, 1}, x[2] = {7, 8};
  int fx[2] = {-1, 0}, rc;
  diagc_lcp_options o;
  diagc_lcp_stats st;
  size_t need = diagc_lcp_workspace_size(2);
  diagc_lcp_options_init(&o, ws_buf, need - 1);
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("workspace_too_small", rc == DIAGC_LCP_E_WORKSPACE && x[0] == 7 && x[1] == 8, "rc %d", rc);
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, NULL, &st);
  CHECK("options_null_no_workspace", rc == DIAGC_LCP_E_WORKSPACE && x[0] == 7, "rc %d", rc);
  diagc_lcp_options_init(&o, NULL, 0);
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("workspace_null", rc == DIAGC_LCP_E_WORKSPACE, "rc %d", rc);
  diagc_lcp_options_init(&o, ws_buf, need);
  rc = diagc_lcp_solve(-1, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_negative_n", rc == DIAGC_LCP_E_ARG, "rc %d", rc);
  fx[0] = 1, fx[1] = 0; /* friction row pointing at a friction row */
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_findex_chain", rc == DIAGC_LCP_E_ARG && x[0] == 7 && x[1] == 8, "rc %d", rc);
  fx[0] = -1, fx[1] = 1; /* self reference */
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_findex_self", rc == DIAGC_LCP_E_ARG, "rc %d", rc);
  fx[1] = 0;
  lo[1] = 0.5; /* friction lo > 0 */
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_friction_bounds", rc == DIAGC_LCP_E_ARG, "rc %d", rc);
  lo[1] = -1;
  lo[0] = 2, hi[0] = 1; /* lo > hi */
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_lo_above_hi", rc == DIAGC_LCP_E_ARG, "rc %d", rc);
  lo[0] = 0, hi[0] = INFINITY;
  A[1] = NAN;
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_nan_in_A", rc == DIAGC_LCP_E_ARG && x[0] == 7, "rc %d", rc);
  A[1] = 0;
  { /* finite entries whose difference A_01 - A_10 overflows: a valid (not
       symmetric) A (a P-matrix; x = (0, 1), w = (1e308 - 1, 0), and,
       within the bound tolerance, x = (-1e-308, 1e-308), w = 0) */
    double Ah[4] = {1, 1e308, -1e308, 1}, bh[2] = {1, 1}, loh[2] = {0, 0},
           hih[2] = {INFINITY, INFINITY}, xh[2] = {0, 0};
    rc = diagc_lcp_solve(2, Ah, bh, loh, hih, NULL, xh, &o, &st);
    CHECK("huge_asymmetric_entries_valid",
          rc == DIAGC_OK && isfinite(xh[0]) && isfinite(xh[1]) &&
              diagc_lcp_violation(2, Ah, bh, loh, hih, NULL, xh) <= 1e-9,
          "rc %d x = (%g, %g)", rc, xh[0], xh[1]);
  }
  o.method = 42;
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("bad_arg_method", rc == DIAGC_LCP_E_ARG, "rc %d", rc);
  o.method = DIAGC_LCP_AUTO;
  x[0] = NAN, x[1] = INFINITY; /* a non-finite warm start reads as zero */
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, &st);
  CHECK("nonfinite_warm_start", rc == DIAGC_OK && x[0] == 1 && fabs(x[1]) <= 1 && isfinite(x[1]),
        "rc %d x = (%g, %g)", rc, x[0], x[1]);
  rc = diagc_lcp_solve(2, A, b, lo, hi, fx, x, &o, NULL);
  CHECK("stats_null_allowed", rc == DIAGC_OK, "rc %d", rc);
  CHECK("workspace_size_monotone", diagc_lcp_workspace_size(10) < diagc_lcp_workspace_size(11) &&
                                       diagc_lcp_workspace_size(-1) == 0,
        "sizes %zu %zu", diagc_lcp_workspace_size(10), diagc_lcp_workspace_size(11));
}

/* The incremental pivoting pass: on frictionless problems the coupled
 * pivoting (DIAGC_LCP_COUPLED) is a plain Dantzig pass, which alone must
 * solve them exactly (one counted iteration, no PGS, no Lemke), also with
 * duplicated contacts (dependent columns kept out of the factor) and with
 * box, limit and bilateral rows. */
static void dantzig_group(const char *tag, int nc, int nb, int nextra, int dup, int count) {
  char name[160];
  int k, bad = 0;
  char detail[160] = "";
  snprintf(name, sizeof name, "dantzig_%s_nc%d_nb%d", tag, nc, nb);
  for (k = 0; k < count; k++) {
    lcpg_spec sp;
    lcpg_problem g;
    prob p;
    double *x, vref;
    diagc_lcp_stats st;
    int rc;
    memset(&sp, 0, sizeof sp);
    sp.nc = nc, sp.nb = nb, sp.nextra = nextra, sp.dup = dup;
    if (lcpg_make(&g, &sp, (uint64_t)(104729 * k + 17 * nc + nb)) != 0) {
      printf("FAIL %s: out of memory\n", name);
      failures++;
      return;
    }
    p = from_gen(&g);
    x = calloc((size_t)g.n, sizeof(double));
    rc = solve_checked(name, &p, x, DIAGC_LCP_PIVOT, 0, &st, &vref);
    if (!bad && (rc != DIAGC_OK || !(vref <= 1e-9) || (st.method != DIAGC_LCP_PIVOT && st.method != DIAGC_LCP_COUPLED) ||
                 st.pgs_sweeps != 0 || (vref > 0 && st.iterations != 1))) {
      bad = 1;
      snprintf(detail, sizeof detail, "problem %d: rc %d viol %.3g method %d iterations %d", k, rc,
               vref, st.method, st.iterations);
    }
    free(x);
    lcpg_free(&g);
  }
  CHECK(name, !bad, "%s", detail);
}

static void test_dantzig(void) {
  diagc_lcp_stats st;
  double vref;
  dantzig_group("frictionless", 10, 5, 0, 0, 10);
  dantzig_group("frictionless_rank_deficient", 12, 2, 0, 0, 10);
  dantzig_group("frictionless_duplicated", 8, 3, 0, 3, 10);
  dantzig_group("frictionless_box_limit_bilateral", 6, 4, 5, 0, 10);
  {
    /* non-symmetric P-matrix: [[2,1,0],[0,2,1],[1,0,2]] x = (3,3,3) -> x = 1 */
    double A[9] = {2, 1, 0, 0, 2, 1, 1, 0, 2}, b[3] = {3, 3, 3}, lo[3] = {0, 0, 0},
           hi[3] = {INFINITY, INFINITY, INFINITY}, x[3] = {0, 0, 0};
    prob p = {3, A, b, lo, hi, NULL};
    int rc = solve_checked("nonsymmetric", &p, x, DIAGC_LCP_AUTO, 0, &st, &vref);
    CHECK("nonsymmetric_p_matrix", rc == DIAGC_OK && fabs(x[0] - 1) < 1e-14 &&
                                       fabs(x[1] - 1) < 1e-14 && fabs(x[2] - 1) < 1e-14,
          "rc %d x = (%.17g, %.17g, %.17g)", rc, x[0], x[1], x[2]);
  }
}

int main(void) {
  test_metric();
  test_analytic();
  test_arguments();
  test_degenerate();
  test_dantzig();
  test_warm_start_and_pgs();
  test_fclib();
  test_random();
  return failures ? 1 : 0;
}
