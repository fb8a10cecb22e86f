/* No heap allocation in the collision functions of diagc/world.h: every
 * pair type of diagc_collide (random poses, touching and apart), the
 * contact frame, the bounding boxes and the broad phase.
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
  enum { NS = 20, NP = NS * (NS - 1) / 2 };
  static double aabb[6 * NS];
  static int pairs[2 * NP], out[NP], ws[DIAGC_BROADPHASE_WS(NS)];
  diagc_shape s[NS];
  double X[NS][12], t1[3], t2[3];
  diagc_contact c[DIAGC_COLLIDE_MAX];
  long during;
  int i, j, k, np = 0, total = 0;
  resolve();
  {
    long n = counting_self_check();
    if (n == 3)
      printf("ok collide_alloc.interposer_counts\n");
    else
      printf("FAIL collide_alloc.interposer_counts: counted %ld\n", n);
  }
  for (i = 0; i < NS; i++) {
    s[i].type = 1 + i % 4;
    for (k = 0; k < 3; k++) s[i].size[k] = 0.2 + 0.3 * urand();
    random_pose(X[i], 0.6);
  }
  for (i = 0; i < NS; i++)
    for (j = i + 1; j < NS; j++) {
      pairs[2 * np] = i;
      pairs[2 * np + 1] = j;
      np++;
    }
  memset(ws, 0, sizeof ws);
  alloc_calls = 0;
  counting = 1;
  for (i = 0; i < NS; i++)
    for (j = 0; j < NS; j++) total += diagc_collide(&s[i], X[i], &s[j], X[j], 0.05, c, DIAGC_COLLIDE_MAX);
  for (i = 0; i < NS; i++) {
    diagc_contact_frame(X[i], t1, t2);
    diagc_shape_aabb(&s[i], X[i], 0.01, aabb + 6 * i);
  }
  total += diagc_broadphase(NS, aabb, np, pairs, ws, out);
  counting = 0;
  during = alloc_calls;
  if (during == 0 && total > 0)
    printf("ok collide_alloc.no_allocation (%d contacts and pairs)\n", total);
  else
    printf("FAIL collide_alloc.no_allocation: %ld allocations, %d contacts\n", during, total);
  return 0;
}
