/* bench/batch/mujoco_cartpole.c: the batch suite's peer (bench/batch/run):
 * the cartpole rollouts of batch_bench through MuJoCo's C API (Debian
 * libmujoco-dev, 2.2), one after another in a loop on one thread.
 *
 *   mujoco_cartpole MJCF RUNS STEPS REPS
 *
 * MJCF is examples/world/cartpole.lua's world written by bench/batch/run
 * (the same masses, inertias, lengths, 1 ms step, semi-implicit Euler,
 * joint damping 0 there: it is applied here, explicitly, as diagc's step
 * does).  Run i: mj_resetData, the cart at 1e-3 i and the pole at 0.3 rad
 * (batch_bench's run i), then STEPS times: the PD force of the example's
 * controller (kp 20, kd 9, target 1) and the pole's damping -0.01 v into
 * qfrc_applied, mj_step; the position is logged every 10 steps into an
 * array, as the batch logs it.  Prints
 *   mujoco RUNS best_s median_s runs_per_s checksum
 *   final RUN cart_q pole_q      (runs 0 and RUNS-1, to check the model)
 * Time is wall time (CLOCK_MONOTONIC), best and median of REPS. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  char err[1000] = "";
  mjModel *m;
  mjData *d;
  int runs, steps, reps, i, k, r, rows;
  double *times, *log, *fin, sum = 0;
  if (argc != 5) {
    fprintf(stderr, "usage: mujoco_cartpole MJCF RUNS STEPS REPS\n");
    return 2;
  }
  runs = atoi(argv[2]), steps = atoi(argv[3]), reps = atoi(argv[4]);
  if (runs < 1 || steps < 1 || reps < 1) return 2;
  m = mj_loadXML(argv[1], NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "mujoco_cartpole: %s: %s\n", argv[1], err);
    return 1;
  }
  if (m->nq != 2 || m->nv != 2) {
    fprintf(stderr, "mujoco_cartpole: %s: expected 2 dofs, got %d\n", argv[1], m->nv);
    return 1;
  }
  d = mj_makeData(m);
  rows = steps / 10 + 2;
  times = malloc(sizeof(double) * (size_t)reps);
  log = malloc(sizeof(double) * (size_t)runs * (size_t)rows * 2);
  fin = malloc(sizeof(double) * (size_t)runs * 4);
  if (!d || !times || !log || !fin) return 3;
  for (r = 0; r < reps; r++) {
    double t0 = now();
    for (i = 0; i < runs; i++) {
      double *row = log + (size_t)i * (size_t)rows * 2;
      mj_resetData(m, d);
      d->qpos[0] = 1e-3 * i;
      d->qpos[1] = 0.3;
      for (k = 0; k < steps; k++) {
        if (k % 10 == 0) row[0] = d->qpos[0], row[1] = d->qpos[1], row += 2;
        d->qfrc_applied[0] = 20.0 * (1.0 - d->qpos[0]) - 9.0 * d->qvel[0];
        d->qfrc_applied[1] = -0.01 * d->qvel[1];
        mj_step(m, d);
      }
      row[0] = d->qpos[0], row[1] = d->qpos[1];
      fin[4 * i] = d->qpos[0], fin[4 * i + 1] = d->qpos[1];
      fin[4 * i + 2] = d->qvel[0], fin[4 * i + 3] = d->qvel[1];
    }
    times[r] = now() - t0;
  }
  for (i = 0; i < 4 * runs; i++) sum += fin[i];
  qsort(times, (size_t)reps, sizeof(double), cmp);
  printf("mujoco %d %.6f %.6f %.1f %.17g\n", runs, times[0], times[reps / 2], runs / times[0], sum);
  printf("final 0 %.17g %.17g\n", fin[0], fin[1]);
  printf("final %d %.17g %.17g\n", runs - 1, fin[4 * (runs - 1)], fin[4 * (runs - 1) + 1]);
  free(times), free(log), free(fin);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
