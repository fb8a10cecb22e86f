/* No heap allocation in the batch's loop over runs with its output step
 * (diagc_batch_run_output, diagc_batch_write: formatting and writing each
 * run's CSV and summary cells on 2 threads), once the first job has sized
 * the threads' buffers; and the first job does allocate them (the counter
 * sees the runtime's allocations).
 *
 * Allocations are counted by the interposer of counting_alloc.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagc/batch.h"
#include "models/check.h"
#include "models/forced_spring.h"

#include "counting_alloc.h"

enum { N = 16, ROWS = 200 };

static double set_vals[N * 2], t_[N * ROWS], v_[N * ROWS * 2], end_[N];
static unsigned char fired_[N * ROWS];
static int rows_[N], status_[N];
static char msg_[N * DIAGC_BATCH_MESSAGE], summary_[N * 512];
static const int SET[] = {2, 0};

int main(void) {
  char dir[] = "/tmp/diagc-batch-alloc.XXXXXX", err[256] = "", path[512];
  diagc_batch *b;
  diagc_batch_job j;
  diagc_batch_output o;
  long first, later;
  int i, rc1, rc2, rc3, ok = 1;
  resolve();
  {
    long n = counting_self_check();
    check(n == 3, "batch_alloc.interposer_counts", "counted %ld", n);
  }
  for (i = 0; i < N; i++) {
    set_vals[2 * i] = 1 + 0.5 * i;
    set_vals[2 * i + 1] = 1;
  }
  if (!mkdtemp(dir)) {
    printf("FAIL batch_alloc: cannot create %s\n", dir);
    return 1;
  }
  b = diagc_batch_create(&sp_model, NULL, 2, err, sizeof err);
  memset(&j, 0, sizeof j);
  j.n_runs = N;
  j.t_final = 1;
  j.n_set = 2; j.set = SET; j.set_values = set_vals;
  j.max_rows = ROWS; j.t = t_; j.values = v_; j.fired = fired_; j.rows = rows_;
  j.status = status_; j.messages = msg_; j.end_time = end_;
  memset(&o, 0, sizeof o);
  o.dir = dir;
  o.first = 1;
  o.digits = 2;
  o.summary = summary_;
  o.summary_bytes = 512;
  alloc_calls = 0;
  counting = 1;
  rc1 = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  counting = 0;
  first = alloc_calls;
  alloc_calls = 0;
  counting = 1;
  rc2 = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  o.first = 101;
  o.digits = 3;
  rc3 = diagc_batch_write(b, &j, &o, err, sizeof err);
  counting = 0;
  later = alloc_calls;
  for (i = 0; i < N; i++) {
    ok &= status_[i] == 0;
    snprintf(path, sizeof path, "%s/%02d.csv", dir, i + 1);
    ok &= unlink(path) == 0;
    snprintf(path, sizeof path, "%s/%03d.csv", dir, i + 101);
    ok &= unlink(path) == 0;
  }
  check(rc1 == 0 && rc2 == 0 && rc3 == 0 && ok && first > 0 && later == 0, "batch_alloc.output_loop",
        "allocations: %ld in the first job, %ld in the next two (rc %d %d %d: %s; files %d)", first,
        later, rc1, rc2, rc3, err, ok);
  diagc_batch_destroy(b);
  rmdir(dir);
  return check_exit();
}
