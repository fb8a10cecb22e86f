/* No heap allocation inside diagc_lcp_solve, whatever path it takes
 * (coupled pivoting, active set, PGS-started re-pivot, Lemke, continuation
 * in mu, PGS).
 *
 * The allocation counter is the interposer of counting_alloc.h. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/lcp.h"
#include "lcp/gen.h"

#include "counting_alloc.h"

/* ---- the test ----------------------------------------------------------- */

static _Alignas(64) unsigned char ws[1 << 22];

static void run_counted(const char *name, int nc, int nb, double mu, int nextra, int dup,
                        int method, uint64_t seed) {
  lcpg_spec sp;
  lcpg_problem g;
  diagc_lcp_options o;
  diagc_lcp_stats st;
  double *x;
  int rc;
  long during;
  memset(&sp, 0, sizeof sp);
  sp.nc = nc, sp.nb = nb, sp.mu = mu, sp.nextra = nextra, sp.dup = dup;
  if (lcpg_make(&g, &sp, seed) != 0 || diagc_lcp_workspace_size(g.n) > sizeof ws) {
    printf("FAIL %s: set-up\n", name);
    return;
  }
  x = calloc((size_t)g.n, sizeof(double));
  diagc_lcp_options_init(&o, ws, sizeof ws);
  o.method = method;
  alloc_calls = 0;
  counting = 1;
  rc = diagc_lcp_solve(g.n, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
  counting = 0;
  during = alloc_calls;
  if (during == 0 && (rc >= 0 || rc == DIAGC_LCP_E_UNSOLVED))
    printf("ok %s (method %d)\n", name, st.method);
  else
    printf("FAIL %s: %ld allocations (rc %d, method %d)\n", name, during, rc, st.method);
  free(x);
  lcpg_free(&g);
}

int main(void) {
  resolve();
  {
    long n = counting_self_check();
    if (n == 3)
      printf("ok lcp_alloc.interposer_counts\n");
    else
      printf("FAIL lcp_alloc.interposer_counts: counted %ld\n", n);
  }
  run_counted("lcp_alloc.auto_small", 2, 1, 0.5, 0, 0, DIAGC_LCP_AUTO, 1);
  run_counted("lcp_alloc.auto_rank_deficient", 12, 2, 1.0, 3, 2, DIAGC_LCP_AUTO, 2);
  run_counted("lcp_alloc.auto_huge_mu", 10, 5, 1e6, 0, 0, DIAGC_LCP_AUTO, 3);
  run_counted("lcp_alloc.pivot", 8, 2, 0.5, 2, 0, DIAGC_LCP_PIVOT, 4);
  run_counted("lcp_alloc.pivot_cycling", 2, 1, 1e6, 0, 0, DIAGC_LCP_PIVOT, 1612);
  run_counted("lcp_alloc.pgs", 8, 2, 0.5, 2, 0, DIAGC_LCP_PGS, 5);
  run_counted("lcp_alloc.coupled", 10, 3, 100.0, 2, 1, DIAGC_LCP_COUPLED, 6);
  return 0;
}
