/* The batch's output step (diagc/batch.h, diagc_batch_output): each run's
 * CSV written by the batch's threads.
 *
 *   - The forced spring with two loggers (every step, and every 0.25 s
 *     under a name that needs quoting, with element names): each run's
 *     file is byte for byte what diagc_csv_writer writes for a fresh
 *     simulator running it alone (its first max_rows rows), with 1, 2 and
 *     4 threads; the summary cells are its end time and each column's
 *     last, smallest and largest value, from those rows; no temporary
 *     file is left.
 *   - diagc_batch_write over a plain diagc_batch_run's arrays writes the
 *     same files and cells.
 *   - A failed write is that run's failure: a run whose temporary file is
 *     /dev/full (a symbolic link put where it will be written) gets
 *     DIAGC_CSV_E_IO and "cannot write SHOWN/N.csv: No space left on
 *     device" (after a run's own failure, that failure is named too), no
 *     file is left under either name, and the other runs are written; a
 *     folder that does not exist fails every run alike.
 *   - Bad outputs are refused before anything runs. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagc/batch.h"
#include "diagc/csv.h"
#include "models/check.h"
#include "models/forced_spring.h"

enum { N = 14, ROWS = 120, LW = 4 };
#define T_FINAL 1.5

static const char *const el_names[] = {"q", "v"};
static const diagc_value_desc outputs2[] = {{"s.y", 2, el_names}};
static const diagc_logger_desc loggers2[] = {{"s.y", 0, 2, 0.0}, {"s.y, slow", 0, 2, 0.25}};
static diagc_model sp2;
static double set_vals[N * 2];
static const int SET[] = {2, 0};

/* ---- the reference: a fresh simulator per run, through the CSV writer -- */
typedef struct ref_run {
  diagc_csv_writer cw;
  int rows;
  double st[3 * LW]; /* final, min, max per column; NaN: none */
} ref_run;

static void ref_row(void *user, double t, const unsigned char *fired, const double *const *values) {
  ref_run *r = (ref_run *)user;
  int l, e;
  if (r->rows++ >= ROWS) return;
  diagc_csv_write_row(&r->cw, t, fired, values);
  for (l = 0; l < 2; l++)
    for (e = 0; e < 2; e++) {
      double *s = r->st + 3 * (2 * l + e), x;
      if (!fired[l]) continue;
      x = values[l][e];
      s[0] = x;
      if (isnan(s[1]) || x < s[1]) s[1] = x;
      if (isnan(s[2]) || x > s[2]) s[2] = x;
    }
}

static char *ref_text[N], ref_cells[N][512];
static size_t ref_len[N];
static int ref_status[N];

static void cell(char *dst, double v) {
  char num[DIAGC_DOUBLE_BUFSIZE] = "";
  if (!isnan(v)) diagc_format_double(num, sizeof num, v);
  strcat(dst, ",");
  strcat(dst, num);
}

static void reference(const diagc_sim_options *opt) {
  int i, c;
  for (i = 0; i < N; i++) {
    diagc_sim *s = diagc_sim_create(&sp2, opt);
    void *ctx = diagc_sim_context(s);
    ref_run r;
    FILE *f = open_memstream(&ref_text[i], &ref_len[i]);
    char num[DIAGC_DOUBLE_BUFSIZE];
    int rc;
    memset(&r, 0, sizeof r);
    for (c = 0; c < 3 * LW; c++) r.st[c] = NAN;
    diagc_csv_writer_init(&r.cw, &sp2, f);
    diagc_csv_write_header(&r.cw);
    diagc_sim_set_log_callback(s, ref_row, &r);
    sp2.set_source(ctx, 2, &set_vals[2 * i]);
    sp2.set_source(ctx, 0, &set_vals[2 * i + 1]);
    rc = diagc_sim_initialize(s);
    if (rc == 0) rc = diagc_sim_advance_to(s, T_FINAL);
    if (rc == 0 && r.rows > ROWS) rc = DIAGC_BATCH_E_ROWS;
    ref_status[i] = rc;
    fclose(f);
    diagc_format_double(num, sizeof num, diagc_sim_time(s));
    strcpy(ref_cells[i], num);
    /* column order: the logger's elements, loggers in order */
    for (c = 0; c < LW; c++) {
      cell(ref_cells[i], r.st[3 * c]);
      cell(ref_cells[i], r.st[3 * c + 1]);
      cell(ref_cells[i], r.st[3 * c + 2]);
    }
    diagc_sim_destroy(s);
  }
}

/* ---- the batch ------------------------------------------------------------ */
static double t_[N * ROWS], v_[N * ROWS * LW], end_[N];
static unsigned char fired_[N * ROWS * 2];
static int rows_[N], status_[N];
static char msg_[N * DIAGC_BATCH_MESSAGE], *summary_;

static void job(diagc_batch_job *j) {
  memset(j, 0, sizeof *j);
  j->n_runs = N;
  j->t_final = T_FINAL;
  j->n_set = 2; j->set = SET; j->set_values = set_vals;
  j->max_rows = ROWS; j->t = t_; j->values = v_; j->fired = fired_; j->rows = rows_;
  j->status = status_; j->messages = msg_; j->end_time = end_;
}

static void output(diagc_batch_output *o, const char *dir) {
  memset(o, 0, sizeof *o);
  o->dir = dir;
  o->shown = "SHOWN";
  o->first = 1;
  o->digits = 2;
  o->summary = summary_;
  o->summary_bytes = diagc_batch_summary_bytes(&sp2);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *p;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  p = (char *)malloc((size_t)n + 1);
  *len = fread(p, 1, (size_t)n, f);
  fclose(f);
  return p;
}

static void path_of(char *buf, size_t cap, const char *dir, int run, int tmp) {
  snprintf(buf, cap, tmp ? "%s/.%02d.csv.tmp" : "%s/%02d.csv", dir, run + 1);
}

/* The files and cells of every run i with skip[i] == 0 are the
 * reference's; no temporary file is left.  Returns the first bad run or
 * -1. */
static int compare(const char *dir, const int *skip, char *why, size_t cap) {
  int i;
  for (i = 0; i < N; i++) {
    char path[512];
    size_t len = 0;
    char *got;
    path_of(path, sizeof path, dir, i, 1);
    if (access(path, F_OK) == 0) {
      snprintf(why, cap, "run %d: %s is left", i, path);
      return i;
    }
    if (skip && skip[i]) continue;
    path_of(path, sizeof path, dir, i, 0);
    got = read_file(path, &len);
    if (!got || len != ref_len[i] || memcmp(got, ref_text[i], len) != 0) {
      snprintf(why, cap, "run %d: %s has %zu bytes, the CSV writer %zu", i, path, got ? len : 0,
               ref_len[i]);
      free(got);
      return i;
    }
    free(got);
    if (strcmp(summary_ + (size_t)i * diagc_batch_summary_bytes(&sp2), ref_cells[i]) != 0 ||
        status_[i] != ref_status[i]) {
      snprintf(why, cap, "run %d: status %d/%d, cells '%s', expected '%s'", i, status_[i],
               ref_status[i], summary_ + (size_t)i * diagc_batch_summary_bytes(&sp2), ref_cells[i]);
      return i;
    }
  }
  return -1;
}

static void remove_runs(const char *dir) {
  int i;
  for (i = 0; i < N; i++) {
    char path[512];
    path_of(path, sizeof path, dir, i, 0);
    unlink(path);
    path_of(path, sizeof path, dir, i, 1);
    unlink(path);
  }
}

static void test_identical(const diagc_sim_options *opt, const char *dir) {
  int jobs[] = {1, 2, 4}, n;
  char name[64], why[256] = "", err[256] = "";
  for (n = 0; n < 3; n++) {
    diagc_batch *b = diagc_batch_create(&sp2, opt, jobs[n], err, sizeof err);
    diagc_batch_job j;
    diagc_batch_output o;
    int rc, bad;
    job(&j);
    output(&o, dir);
    rc = diagc_batch_run_output(b, &j, &o, err, sizeof err);
    bad = rc == 0 ? compare(dir, NULL, why, sizeof why) : 0;
    snprintf(name, sizeof name, "batch_out.identical.jobs%d", jobs[n]);
    check(rc == 0 && bad < 0, name, "rc %d (%s) %s", rc, err, why);
    remove_runs(dir);
    /* the same arrays again, written alone */
    if (n == 2) {
      memset(summary_, 0, (size_t)N * (size_t)o.summary_bytes);
      rc = diagc_batch_run(b, &j, err, sizeof err);
      if (rc == 0) rc = diagc_batch_write(b, &j, &o, err, sizeof err);
      bad = rc == 0 ? compare(dir, NULL, why, sizeof why) : 0;
      check(rc == 0 && bad < 0, "batch_out.write_alone", "rc %d (%s) %s", rc, err, why);
      remove_runs(dir);
    }
    diagc_batch_destroy(b);
  }
}

static void test_write_fails(const diagc_sim_options *opt, const char *dir) {
  char err[256] = "", why[256] = "", path[512], expect[1024];
  diagc_batch *b = diagc_batch_create(&sp2, opt, 2, err, sizeof err);
  diagc_batch_job j;
  diagc_batch_output o;
  int skip[N] = {0}, rc, bad, gone = 1, i, all = 1;
  const char *m3 = msg_ + 3 * DIAGC_BATCH_MESSAGE, *m11 = msg_ + 11 * DIAGC_BATCH_MESSAGE;
  /* run 3 (ok) and run 11 (its own failure) write into /dev/full */
  skip[3] = skip[11] = 1;
  path_of(path, sizeof path, dir, 3, 1);
  rc = symlink("/dev/full", path);
  path_of(path, sizeof path, dir, 11, 1);
  rc |= symlink("/dev/full", path);
  job(&j);
  output(&o, dir);
  if (rc == 0) rc = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  bad = rc == 0 ? compare(dir, skip, why, sizeof why) : 0;
  for (i = 3; i <= 11; i += 8) {
    path_of(path, sizeof path, dir, i, 0);
    if (access(path, F_OK) == 0) gone = 0;
    path_of(path, sizeof path, dir, i, 1);
    if (access(path, F_OK) == 0) gone = 0;
  }
  snprintf(expect, sizeof expect, "cannot write SHOWN/04.csv: %s", strerror(ENOSPC));
  check(rc == 0 && bad < 0 && gone && status_[3] == DIAGC_CSV_E_IO && strcmp(m3, expect) == 0,
        "batch_out.write_failed", "rc %d (%s) %s; gone %d; run 3: %d '%s'", rc, err, why, gone,
        status_[3], m3);
  snprintf(expect, sizeof expect, "cannot write SHOWN/12.csv: %s (the run had ended with %s: ",
           strerror(ENOSPC), diagc_status_name(ref_status[11]));
  check(ref_status[11] < 0 && status_[11] == DIAGC_CSV_E_IO &&
            strncmp(m11, expect, strlen(expect)) == 0,
        "batch_out.write_failed.after_failure", "reference %d; run 11: %d '%s'", ref_status[11],
        status_[11], m11);
  remove_runs(dir);
  /* a folder that does not exist: every run, alike */
  snprintf(path, sizeof path, "%s/none", dir);
  o.dir = path;
  o.shown = NULL;
  rc = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  for (i = 0; i < N; i++) {
    snprintf(expect, sizeof expect, "cannot write %s/%02d.csv: %s", path, i + 1, strerror(ENOENT));
    if (status_[i] != DIAGC_CSV_E_IO || strncmp(msg_ + i * DIAGC_BATCH_MESSAGE, expect, strlen(expect)))
      all = 0;
  }
  check(rc == 0 && all, "batch_out.no_folder", "rc %d; run 0: %d '%s'", rc, status_[0], msg_);
  diagc_batch_destroy(b);
}

static void test_bad_outputs(const char *dir) {
  char err[256] = "";
  diagc_batch *b = diagc_batch_create(&sp2, NULL, 2, err, sizeof err);
  diagc_batch_job j;
  diagc_batch_output o;
  int rc[5], ok;
  job(&j);
  j.n_runs = 1;
  rc[0] = diagc_batch_run_output(b, &j, NULL, err, sizeof err);
  output(&o, NULL);
  rc[1] = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  output(&o, dir);
  o.digits = 0;
  rc[2] = diagc_batch_write(b, &j, &o, err, sizeof err);
  output(&o, dir);
  o.summary_bytes = 10;
  rc[3] = diagc_batch_write(b, &j, &o, err, sizeof err);
  output(&o, dir);
  j.fired = NULL;
  rc[4] = diagc_batch_run_output(b, &j, &o, err, sizeof err);
  ok = rc[0] == DIAGC_BATCH_E_ARG && rc[1] == DIAGC_BATCH_E_ARG && rc[2] == DIAGC_BATCH_E_ARG &&
       rc[3] == DIAGC_BATCH_E_ARG && rc[4] == DIAGC_BATCH_E_ARG && strstr(err, "fired");
  check(ok, "batch_out.bad_outputs", "%d %d %d %d %d: %s", rc[0],
        rc[1], rc[2], rc[3], rc[4], err);
  diagc_batch_destroy(b);
}

int main(void) {
  char dir[] = "/tmp/diagc-batch-out.XXXXXX";
  diagc_sim_options opt;
  int i;
  sp2 = sp_model;
  sp2.outputs = outputs2;
  sp2.n_loggers = 2;
  sp2.loggers = loggers2;
  for (i = 0; i < N; i++) {
    set_vals[2 * i] = 0.5 + 0.37 * i; /* k */
    set_vals[2 * i + 1] = 1 - 0.1 * i; /* q0 */
  }
  set_vals[2 * 11] = 1e6; /* a step budget it cannot meet */
  set_vals[2 * 7] = 400;   /* more rows than ROWS */
  diagc_sim_options_init(&opt);
  opt.integrator = "runge_kutta3";
  opt.max_steps = 3000;
  summary_ = (char *)calloc(N, (size_t)diagc_batch_summary_bytes(&sp2));
  if (!mkdtemp(dir)) {
    printf("FAIL batch_out: cannot create %s\n", dir);
    return 1;
  }
  reference(&opt);
  check(ref_status[11] == DIAGC_SIM_E_STEP && ref_status[7] == DIAGC_BATCH_E_ROWS && ref_status[0] == 0,
        "batch_out.reference", "%d %d %d", ref_status[11], ref_status[7], ref_status[0]);
  test_identical(&opt, dir);
  test_write_fails(&opt, dir);
  test_bad_outputs(dir);
  rmdir(dir);
  for (i = 0; i < N; i++) free(ref_text[i]);
  free(summary_);
  return check_exit();
}
