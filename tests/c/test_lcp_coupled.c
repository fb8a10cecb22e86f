/* Tests of the coupled incremental pivoting method (DIAGC_LCP_COUPLED:
 * the method alone, no PGS/Lemke fallbacks) of diagc_lcp_solve.
 *
 * Every answer is scored with ref_viol, an independent implementation of
 * the metric of docs/lcp.md (section 4), and
 * checked for honesty (status SOLVED exactly when the violation is at most
 * 1e-9), finite x and unchanged inputs.  Agreement checks compare against
 * projected Gauss-Seidel run to 1e-12 on problems whose solution is unique
 * (full-rank A, small friction), and against hand-solved problems. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/lcp.h"
#include "lcp/gen.h"

#include "lcp/check.h"

static _Alignas(64) unsigned char ws_buf[1 << 24];

/* Solves g with the given method and cfm from x (warm start as given);
 * checks inputs unchanged, x finite, status honest.  Returns the reference
 * violation (INFINITY on a broken invariant, reported once per name). */
static double solve(const char *name, const lcpg_problem *g, double *x, int method, double cfm,
                    diagc_lcp_stats *st, int *rc_out) {
  int n = g->n, i, rc;
  size_t nn = (size_t)n, ws = diagc_lcp_workspace_size(n);
  diagc_lcp_options o;
  double v, *cA = malloc(sizeof(double) * nn * nn + 8), *cb = malloc(sizeof(double) * nn + 8);
  double *clo = malloc(sizeof(double) * nn + 8), *chi = malloc(sizeof(double) * nn + 8);
  int *cf = malloc(sizeof(int) * nn + 8), bad = 0;
  memcpy(cA, g->A, sizeof(double) * nn * nn);
  memcpy(cb, g->b, sizeof(double) * nn);
  memcpy(clo, g->lo, sizeof(double) * nn);
  memcpy(chi, g->hi, sizeof(double) * nn);
  memcpy(cf, g->findex, sizeof(int) * nn);
  diagc_lcp_options_init(&o, ws_buf, ws);
  o.method = method;
  o.cfm = cfm;
  rc = diagc_lcp_solve(n, g->A, g->b, g->lo, g->hi, g->findex, x, &o, st);
  if (memcmp(cA, g->A, sizeof(double) * nn * nn) || memcmp(cb, g->b, sizeof(double) * nn) ||
      memcmp(clo, g->lo, sizeof(double) * nn) || memcmp(chi, g->hi, sizeof(double) * nn) ||
      memcmp(cf, g->findex, sizeof(int) * nn)) {
    printf("FAIL %s: inputs modified\n", name);
    failures++;
    bad = 1;
  }
  for (i = 0; i < n && !bad; i++)
    if (!isfinite(x[i])) {
      printf("FAIL %s: x[%d] not finite\n", name, i);
      failures++;
      bad = 1;
    }
  v = ref_viol(n, g->A, g->b, g->lo, g->hi, g->findex, x, cfm);
  if (!bad && ((rc == DIAGC_OK) != (v <= 1e-9) ||
               fabs(st->violation - v) > 1e-12 * (1.0 + v))) {
    printf("FAIL %s: status %d but reference violation %.3g (stats %.3g)\n", name, rc, v,
           st->violation);
    failures++;
    bad = 1;
  }
  free(cA), free(cb), free(clo), free(chi), free(cf);
  *rc_out = rc;
  return bad ? INFINITY : v;
}

/* A group of random problems with the coupled method alone: the share
 * solved to 1e-9 must be at least min_share. */
static void coupled_group(const char *tag, int nc, int nb, double mu, int asym, int nextra, int dup,
                          int count, double min_share) {
  char name[160];
  int k, solved = 0, coupled = 0;
  double worst = 0.0;
  snprintf(name, sizeof name, "coupled_%s_nc%d_nb%d_mu%g%s%s%s", tag, nc, nb, mu,
           asym ? "_asym" : "", nextra ? "_extra" : "", dup ? "_dup" : "");
  for (k = 0; k < count; k++) {
    lcpg_spec sp;
    lcpg_problem g;
    diagc_lcp_stats st;
    double *x, v;
    int rc;
    memset(&sp, 0, sizeof sp);
    sp.nc = nc, sp.nb = nb, sp.mu = mu, sp.asym = asym, sp.nextra = nextra, sp.dup = dup;
    if (lcpg_make(&g, &sp, (uint64_t)(6007 * k + 13 * nc + nb) + (uint64_t)(mu * 977)) != 0) {
      printf("FAIL %s: out of memory\n", name);
      failures++;
      return;
    }
    x = calloc((size_t)g.n, sizeof(double));
    v = solve(name, &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    if (v <= 1e-9) solved++;
    if (v <= 1e-9 && (st.method == DIAGC_LCP_COUPLED || st.iterations == 0)) coupled++;
    if (v > worst && v < INFINITY) worst = v;
    free(x);
    lcpg_free(&g);
  }
  CHECK(name, solved >= min_share * count && coupled == solved,
        "%d of %d solved (need %.0f%%; %d reported as COUPLED), worst violation %.3g", solved,
        count, 100 * min_share, coupled, worst);
}

static void test_random(void) {
  static const int ncs[] = {1, 2, 4, 7, 10, 20};
  unsigned a;
  /* frictionless and moderate friction, full rank or rank-deficient,
     asymmetric bounds, extra constant rows, duplicated contacts: all */
  for (a = 0; a < sizeof ncs / sizeof ncs[0]; a++) {
    int nc = ncs[a], cnt = nc <= 4 ? 12 : 6;
    coupled_group("random", nc, (nc + 1) / 2, 0.0, 0, 0, 0, cnt, 1.0);
    coupled_group("random", nc, (nc + 1) / 2, 0.3, 1, 0, 0, cnt, 1.0);
    coupled_group("random_mixed", nc, 1 + nc / 4, 0.5, 1, 1 + nc / 2, 0, cnt, 1.0);
  }
  coupled_group("random_dup", 8, 3, 0.2, 0, 0, 3, 8, 1.0);
  /* large friction on rank-deficient scenes: the method alone may meet
     configurations where no complementary pivot continues (Painleve-like);
     AUTO falls back then.  Most must still be solved by it. */
  coupled_group("random_high_mu", 10, 3, 5.0, 0, 0, 0, 20, 0.75);
  coupled_group("random_high_mu", 10, 3, 100.0, 0, 0, 0, 20, 0.6);
  coupled_group("random_large", 50, 25, 0.5, 0, 0, 0, 2, 1.0);
}

/* Agreement with an independent method where the solution is unique:
 * full-rank A (3 nc <= 6 nb) and small friction; PGS run to 1e-12. */
static void test_agreement(void) {
  int k, bad = 0;
  double worst = 0.0;
  for (k = 0; k < 12; k++) {
    lcpg_spec sp;
    lcpg_problem g;
    diagc_lcp_stats st;
    double *xc, *xp, vc, vp, d = 0.0;
    int rc, i;
    diagc_lcp_options o;
    memset(&sp, 0, sizeof sp);
    sp.nc = 2 + k % 3, sp.nb = 3, sp.mu = (k % 4) * 0.1, sp.asym = k % 2;
    lcpg_make(&g, &sp, 31337 + (uint64_t)k);
    xc = calloc((size_t)g.n, sizeof(double));
    xp = calloc((size_t)g.n, sizeof(double));
    vc = solve("coupled_agrees_with_pgs", &g, xc, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    diagc_lcp_options_init(&o, ws_buf, diagc_lcp_workspace_size(g.n));
    o.method = DIAGC_LCP_PGS;
    o.tol = 1e-12;
    o.max_pgs_iter = 200000;
    diagc_lcp_solve(g.n, g.A, g.b, g.lo, g.hi, g.findex, xp, &o, &st);
    vp = ref_viol(g.n, g.A, g.b, g.lo, g.hi, g.findex, xp, 0.0);
    for (i = 0; i < g.n; i++) {
      double e = fabs(xc[i] - xp[i]) / (1.0 + fabs(xp[i]));
      if (e > d) d = e;
    }
    if (d > worst) worst = d;
    if (!(vc <= 1e-9) || !(vp <= 1e-11) || !(d <= 1e-8)) bad++;
    free(xc), free(xp);
    lcpg_free(&g);
  }
  CHECK("coupled_agrees_with_pgs", bad == 0, "%d of 12 disagree (worst relative difference %.3g)",
        bad, worst);
}

static void test_small(void) {
  diagc_lcp_stats st;
  int rc;
  {
    /* one contact, A = I, b = (1, 2, 0), mu = 0.5: the normal impulse is 1
       and the friction row slides at its upper bound 0.5 (w_t = -1.5) */
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {1, 2, 0}, lo[3] = {0, -0.5, -0.5},
           hi[3] = {INFINITY, 0.5, 0.5}, x[3] = {0, 0, 0};
    int fx[3] = {-1, 0, 0};
    lcpg_problem g = {3, 1, A, b, lo, hi, fx};
    double v = solve("coupled_sliding_contact", &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    CHECK("coupled_sliding_contact", v <= 1e-15 && fabs(x[0] - 1) < 1e-15 &&
                                         fabs(x[1] - 0.5) < 1e-15 && x[2] == 0.0,
          "x = (%.17g, %.17g, %.17g), violation %.3g", x[0], x[1], x[2], v);
  }
  {
    /* coupling through A: normal and tangent interact.  A = [[2, 1], [1, 2]],
       b = (2, 3), friction row 1 in [-0.25 x0, 0.25 x0].  Sticking would need
       x = (1/3, 4/3), outside the box; sliding at the upper bound: 2 x0 +
       0.25 x0 = 2 -> x0 = 8/9, x1 = 2/9, w1 = 8/9 + 4/9 - 3 < 0 */
    double A[4] = {2, 1, 1, 2}, b[2] = {2, 3}, lo[2] = {0, -0.25}, hi[2] = {INFINITY, 0.25},
           x[2] = {0, 0};
    int fx[2] = {-1, 0};
    lcpg_problem g = {2, 1, A, b, lo, hi, fx};
    double v = solve("coupled_folded_column", &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    CHECK("coupled_folded_column", v <= 1e-15 && fabs(x[0] - 8.0 / 9) < 1e-14 &&
                                       fabs(x[1] - 2.0 / 9) < 1e-14,
          "x = (%.17g, %.17g), violation %.3g", x[0], x[1], v);
  }
  {
    /* non-symmetric P-matrix [[2,1,0],[0,2,1],[1,0,2]] x = (3,3,3) -> x = 1 */
    double A[9] = {2, 1, 0, 0, 2, 1, 1, 0, 2}, b[3] = {3, 3, 3}, lo[3] = {0, 0, 0},
           hi[3] = {INFINITY, INFINITY, INFINITY}, x[3] = {0, 0, 0};
    int fx[3] = {-1, -1, -1};
    lcpg_problem g = {3, 0, A, b, lo, hi, fx};
    double v = solve("coupled_nonsymmetric", &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    CHECK("coupled_nonsymmetric", v <= 1e-15 && fabs(x[0] - 1) < 1e-14 && fabs(x[1] - 1) < 1e-14 &&
                                      fabs(x[2] - 1) < 1e-14,
          "x = (%.17g, %.17g, %.17g)", x[0], x[1], x[2]);
  }
  {
    /* duplicated contact: A singular (rank 3 of 6), both copies must share
       an impulse that satisfies both (any split is a solution) */
    double A[36], b[6], lo[6], hi[6], x[6] = {0};
    int fx[6] = {-1, 0, 0, -1, 3, 3}, i, j;
    double base[9] = {1.5, 0.2, -0.1, 0.2, 1.0, 0.3, -0.1, 0.3, 0.8};
    lcpg_problem g = {6, 2, A, b, lo, hi, fx};
    for (i = 0; i < 6; i++)
      for (j = 0; j < 6; j++) A[i * 6 + j] = base[(i % 3) * 3 + j % 3];
    for (i = 0; i < 6; i++) {
      b[i] = i % 3 == 0 ? 1.0 : (i % 3 == 1 ? 0.7 : -0.4);
      lo[i] = i % 3 == 0 ? 0.0 : -0.6;
      hi[i] = i % 3 == 0 ? INFINITY : 0.6;
    }
    {
      double v = solve("coupled_duplicated_contact", &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
      CHECK("coupled_duplicated_contact", v <= 1e-9, "violation %.3g (rc %d)", v, rc);
    }
  }
  {
    /* everything separating: b <= 0 on normals -> x = 0 */
    lcpg_spec sp;
    lcpg_problem g;
    double *x, v;
    memset(&sp, 0, sizeof sp);
    sp.nc = 6, sp.nb = 2, sp.mu = 0.5, sp.v_up = 50.0;
    lcpg_make(&g, &sp, 9);
    x = calloc((size_t)g.n, sizeof(double));
    v = solve("coupled_separating", &g, x, DIAGC_LCP_COUPLED, 0.0, &st, &rc);
    {
      int i, zero = 1;
      for (i = 0; i < g.n; i++)
        if (x[i] != 0.0) zero = 0;
      CHECK("coupled_separating", v <= 1e-12 && zero, "violation %.3g, x zero %d", v, zero);
    }
    free(x);
    lcpg_free(&g);
  }
  {
    /* regularization: rank-deficient scene with cfm; the violation is that
       of the regularized problem */
    lcpg_spec sp;
    lcpg_problem g;
    double *x, v;
    memset(&sp, 0, sizeof sp);
    sp.nc = 12, sp.nb = 2, sp.mu = 0.5;
    lcpg_make(&g, &sp, 10);
    x = calloc((size_t)g.n, sizeof(double));
    v = solve("coupled_cfm", &g, x, DIAGC_LCP_COUPLED, 1e-6, &st, &rc);
    CHECK("coupled_cfm", v <= 1e-9 && rc == DIAGC_OK, "violation %.3g (rc %d)", v, rc);
    free(x);
    lcpg_free(&g);
  }
}

/* The caller's tol sets both the verification and the noise level below
 * which a driven row counts as complementary (min(tol / 10, 1e-10)): with
 * a loose tol (1e-6) or a tight one (1e-12), AUTO's status must match the
 * reference violation against that tol on every problem, and every
 * problem must end within accept_tol. */
static void test_user_tol(void) {
  static const double tols[2] = {1e-6, 1e-12};
  int t, k;
  for (t = 0; t < 2; t++) {
    int bad = 0, solved = 0, count = 0;
    double worst = 0.0;
    for (k = 0; k < 24; k++) {
      lcpg_spec sp;
      lcpg_problem g;
      diagc_lcp_options o;
      diagc_lcp_stats st;
      double *x, v;
      int rc;
      memset(&sp, 0, sizeof sp);
      sp.nc = 10, sp.nb = k % 2 ? 5 : 3, sp.mu = (k % 4 == 3) ? 100.0 : 0.3 * (k % 4);
      lcpg_make(&g, &sp, 777000 + (uint64_t)k);
      x = calloc((size_t)g.n, sizeof(double));
      diagc_lcp_options_init(&o, ws_buf, diagc_lcp_workspace_size(g.n));
      o.tol = tols[t];
      rc = diagc_lcp_solve(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
      v = ref_viol(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, 0.0);
      if ((rc == DIAGC_OK) != (v <= tols[t]) || !(v <= o.accept_tol)) bad++;
      if (rc == DIAGC_OK) solved++;
      if (v > worst) worst = v;
      count++;
      free(x);
      lcpg_free(&g);
    }
    CHECK(t == 0 ? "coupled_user_tol_loose" : "coupled_user_tol_tight",
          bad == 0 && solved >= (t == 0 ? count : count * 3 / 4),
          "%d of %d with a dishonest status or above accept_tol, %d solved to %.0e (worst %.3g)",
          bad, count, solved, tols[t], worst);
  }
}

int main(void) {
  test_small();
  test_agreement();
  test_random();
  test_user_tol();
  return failures ? 1 : 0;
}
