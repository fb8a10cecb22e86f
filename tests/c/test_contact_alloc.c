/* No heap allocation inside diagc_contact_solve (islands, LCP assembly,
 * the solves, the check, a budget-limited step).
 *
 * The allocation counter is the interposer of counting_alloc.h. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/world.h"
#include "lcp/gen.h"

#include "counting_alloc.h"

static _Alignas(64) unsigned char ws[1 << 23];

/* A contact step of a generated scene (contacts of nc, mu, on nb bodies)
 * with the given step budget (0: default), counted. */
static void run_counted(const char *name, int nc, int nb, double mu, double budget, uint64_t seed) {
  lcpg_spec sp;
  lcpg_problem g;
  lcpg_scene sc;
  diagc_contact_problem p;
  diagc_contact_options o;
  diagc_contact_stats st;
  double *MinvJT, *x, *vn, *dep, *mus;
  int *tree, i, c, rc, n;
  long during;
  memset(&sp, 0, sizeof sp);
  sp.nc = nc, sp.nb = nb, sp.mu = mu, sp.scene = &sc;
  if (lcpg_make(&g, &sp, seed) != 0 || diagc_contact_workspace_size(sc.ndof, nc) > sizeof ws) {
    printf("FAIL %s: set-up\n", name);
    return;
  }
  n = g.n;
  MinvJT = malloc(sizeof(double) * (size_t)sc.ndof * n);
  x = calloc((size_t)n, sizeof(double));
  vn = malloc(sizeof(double) * (size_t)sc.ndof);
  dep = calloc((size_t)nc, sizeof(double));
  mus = malloc(sizeof(double) * (size_t)nc);
  tree = malloc(sizeof(int) * 2 * (size_t)nc);
  for (i = 0; i < sc.ndof; i++)
    for (c = 0; c < n; c++) MinvJT[(size_t)i * n + c] = sc.minv[i] * sc.J[(size_t)c * sc.ndof + i];
  for (c = 0; c < nc; c++) { /* tags: the first body whose block of the normal row is nonzero */
    int b, d;
    mus[c] = mu, tree[2 * c] = tree[2 * c + 1] = -1;
    for (b = 0; b < nb; b++)
      for (d = 0; d < 6; d++)
        if (sc.J[(size_t)(3 * c) * sc.ndof + 6 * b + d] != 0.0) {
          if (tree[2 * c] < 0) tree[2 * c] = b;
          else if (tree[2 * c] != b) tree[2 * c + 1] = b;
          break;
        }
  }
  memset(&p, 0, sizeof p);
  p.nv = sc.ndof, p.nc = nc, p.J = sc.J, p.MinvJT = MinvJT, p.v = sc.vstar, p.vstar = sc.vstar;
  p.depth = dep, p.mu = mus, p.tree = tree, p.dt = 1e-3;
  diagc_contact_options_init(&o);
  o.check = 1;
  o.lcp.work_budget = budget;
  alloc_calls = 0;
  counting = 1;
  rc = diagc_contact_solve(&p, &o, x, vn, ws, sizeof ws, &st);
  counting = 0;
  during = alloc_calls;
  if (during == 0 && rc >= 0)
    printf("ok %s (rc %d, %d islands)\n", name, rc, st.islands);
  else
    printf("FAIL %s: %ld allocations (rc %d)\n", name, during, rc);
  free(MinvJT), free(x), free(vn), free(dep), free(mus), free(tree);
  lcpg_free(&g);
  lcpg_scene_free(&sc);
}

int main(void) {
  resolve();
  {
    long k = counting_self_check();
    if (k == 3)
      printf("ok contact_alloc.interposer_counts\n");
    else
      printf("FAIL contact_alloc.interposer_counts: counted %ld\n", k);
  }
  run_counted("contact_alloc.islands", 12, 6, 0.5, 0.0, 1);
  run_counted("contact_alloc.rank_deficient", 12, 1, 1.0, 0.0, 2);
  run_counted("contact_alloc.budget", 50, 13, 100.0, 50.0, 1000003ull * 150 + 5);
  return 0;
}
