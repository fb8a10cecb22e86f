/* bench/world/world_bench.c: one generated world scene (compiled with
 * -DPFX=<prefix> -DHEADER="<prefix>.h"), stepped by the runtime's
 * simulator: ns per step (best of REPS runs of STEPS steps) and the scene's
 * physical check, printed as one RESULT line like dart_scenes.cpp's.
 *   world_bench SCENE STEPS REPS
 * SCENE: box_on_plane / stack_N (largest drift of a cube's centre),
 * ball_bounce (second apex / first), incline_stick (drift along the
 * slope), incline_slide (relative error of the mean acceleration). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include HEADER
#include "diagc/simulator.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CTX CAT(PFX, _context)
#define MODEL CAT(PFX, _model)

static const double DT = 1e-3;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static diagc_sim *start(void) {
  diagc_sim *s = diagc_sim_create(&MODEL, NULL);
  if (!s || diagc_sim_initialize(s) != 0) { fprintf(stderr, "world_bench: cannot start\n"); exit(1); }
  return s;
}

static const double *pos(diagc_sim *s) { return ((const CTX *)diagc_sim_context(s))->x.xd; }

/* advance to the state after `steps` steps (the update at t = k dt is the
 * (k+1)-th step) */
static void run(diagc_sim *s, int steps) {
  if (diagc_sim_advance_to(s, (steps - 0.5) * DT) != 0) { fprintf(stderr, "world_bench: step failed\n"); exit(1); }
}

static double check(const char *scene, int steps) {
  diagc_sim *s = start();
  double q0[8 * 64];
  int nq = (int)(sizeof q0 / sizeof q0[0]);
  double out = NAN;
  memcpy(q0, pos(s), (size_t)nq * sizeof(double));
  if (!strncmp(scene, "stack", 5) || !strcmp(scene, "box_on_plane")) {
    int n = !strcmp(scene, "box_on_plane") ? 1 : atoi(scene + 6);
    run(s, steps);
    out = 0;
    for (int i = 0; i < n; i++) {
      double d2 = 0;
      for (int k = 0; k < 3; k++) d2 += pow(pos(s)[7 * i + k] - q0[7 * i + k], 2);
      out = fmax(out, sqrt(d2));
    }
  } else if (!strcmp(scene, "ball_bounce")) {
    double z1 = q0[2], z2 = q0[2], apex[2];
    int found = 0;
    for (int k = 1; k <= steps && found < 2; k++) {
      run(s, k);
      double z = pos(s)[2];
      if (k > 2 && z2 > z1 && z2 >= z && z2 - 0.1 > 1e-3 && z2 < q0[2] - 1e-3) apex[found++] = z2 - 0.1;
      z1 = z2, z2 = z;
    }
    out = found == 2 ? apex[1] / apex[0] : NAN;
  } else if (!strncmp(scene, "incline", 7)) {
    double th = 20.0 * 3.14159265358979323846 / 180.0, d[3] = {cos(th), 0, -sin(th)}, sl = 0;
    run(s, steps);
    for (int k = 0; k < 3; k++) sl += (pos(s)[k] - q0[k]) * d[k];
    if (!strcmp(scene, "incline_stick")) out = fabs(sl);
    else {
      double T = steps * DT, a = 2 * sl / (T * T), e = 9.81 * (sin(th) - 0.2 * cos(th));
      out = fabs(a - e) / e;
    }
  }
  diagc_sim_destroy(s);
  return out;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: world_bench SCENE STEPS REPS\n"); return 2; }
  const char *scene = argv[1];
  int steps = atoi(argv[2]), reps = atoi(argv[3]);
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    diagc_sim *s = start();
    double t0 = now();
    run(s, steps);
    best = fmin(best, (now() - t0) / steps * 1e9);
    diagc_sim_destroy(s);
  }
  const char *what = !strcmp(scene, "ball_bounce") ? "apex_ratio_vs_0.64"
    : !strcmp(scene, "incline_slide") ? "accel_rel_err" : !strcmp(scene, "incline_stick") ? "drift_m" : "max_drift_m";
  printf("RESULT\t%s\t%d\t%.1f\t%s\t%.3e\n", scene, steps, best, what,
         check(scene, !strcmp(scene, "ball_bounce") ? 2500 : steps));
  return 0;
}
