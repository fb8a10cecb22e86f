/* No heap allocation in diagc_collide_tangent (diagc/world.h part 1b):
 * every pair type in both orders at random poses, by the analytic and by
 * the general path.
 *
 * The allocation counter is the interposer of counting_alloc.h. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/world.h"

#include "counting_alloc.h"

#include "random_pose.h"

int main(void) {
  enum { NS = 16 };
  static double D[DIAGC_COLLIDE_MAX * 156];
  diagc_shape s[NS];
  double X[NS][12];
  diagc_contact c[DIAGC_COLLIDE_MAX];
  long during;
  int i, j, k, total = 0, bad = 0;
  resolve();
  {
    long n = counting_self_check();
    if (n == 3)
      printf("ok collide_tangent_alloc.interposer_counts\n");
    else
      printf("FAIL collide_tangent_alloc.interposer_counts: counted %ld\n", n);
  }
  for (i = 0; i < NS; i++) {
    s[i].type = 1 + i % 4;
    for (k = 0; k < 3; k++) s[i].size[k] = 0.2 + 0.3 * urand();
    random_pose(X[i], 0.5);
  }
  alloc_calls = 0;
  counting = 1;
  for (i = 0; i < NS; i++)
    for (j = 0; j < NS; j++) {
      int n = diagc_collide(&s[i], X[i], &s[j], X[j], 0.05, c, DIAGC_COLLIDE_MAX);
      total += n;
      bad += diagc_collide_tangent(&s[i], X[i], &s[j], X[j], 0.05, c, n, D) < 0;
      bad += diagc_collide_tangent_general(&s[i], X[i], &s[j], X[j], 0.05, c, n, D) < 0;
    }
  counting = 0;
  during = alloc_calls;
  if (during == 0 && total > 0 && bad == 0)
    printf("ok collide_tangent_alloc.no_allocation (%d contacts)\n", total);
  else
    printf("FAIL collide_tangent_alloc.no_allocation: %ld allocations, %d contacts, %d errors\n",
           during, total, bad);
  return 0;
}
