/* bench/scale/scale_bench.c: µs per 1 ms step of a generated world (the
 * runtime simulator, the step update and its event bookkeeping), and µs
 * per evaluation of the step's Jacobians (the grad entry) at the end.
 * Built by bench/scale/run with -DPFX=d -DHEADER="...".  Prints
 * "step_us<TAB>grad_us". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include HEADER
#include "diagc/simulator.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MODEL CAT(PFX, _model)
#define CTX CAT(PFX, _context)
#define GRAD CAT(PFX, _eval_world__grad)
#define INVALIDATE CAT(PFX, _invalidate_all)

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 1000, reps = argc > 2 ? atoi(argv[2]) : 3, r, k;
  double best = 1e300, gbest = 1e300;
  for (r = 0; r < reps; ++r) {
    diagc_sim *s = diagc_sim_create(&MODEL, NULL);
    double t0, t1;
    if (!s || diagc_sim_initialize(s) != 0) { fprintf(stderr, "scale_bench: cannot start\n"); return 1; }
    t0 = now();
    if (diagc_sim_advance_to(s, (steps - 0.5) * 1e-3) != 0) { fprintf(stderr, "scale_bench: step failed\n"); return 1; }
    t1 = now();
    if ((t1 - t0) / steps < best) best = (t1 - t0) / steps;
    for (k = 0; k < 3; ++k) {
      CTX *c = (CTX *)diagc_sim_context(s);
      const void *g;
      double a, b;
      INVALIDATE(c);
      a = now();
      if (GRAD(c, (void *)&g) != 0) { fprintf(stderr, "scale_bench: grad failed\n"); return 1; }
      b = now();
      if (b - a < gbest) gbest = b - a;
    }
    diagc_sim_destroy(s);
  }
  printf("%.2f\t%.2f\n", best * 1e6, gbest * 1e6);
  return 0;
}
