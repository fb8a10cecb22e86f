/* batch_out.c: the batch's per-run output step (diagc/batch.h,
 * diagc_batch_output): a finished run's summary cells and its CSV file,
 * formatted and written by the thread that holds the run.
 *
 * The CSV is the bytes diagc_csv_writer (csv.c) writes for the same rows:
 * the header is made by it once per batch, and each row follows its rule
 * (t, then per logger ',' and the number if it fired; numbers by
 * diagc_format_double).  A file goes through a buffer per thread with
 * write(2) (no stdio: fopen allocates), to a temporary name renamed into
 * place; any failed call is the run's failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_internal.h"
#include "diagc/csv.h"

/* a number and its comma */
#define CELL DIAGC_DOUBLE_BUFSIZE

int diagc_batch_summary_bytes(const diagc_model *m) {
  return (1 + 3 * diagc_batch_log_width(m)) * CELL + 1;
}

/* The header, through diagc_csv_writer itself (once per batch). */
static int make_header(diagc_batch *b) {
  char *text = NULL;
  size_t len = 0;
  diagc_csv_writer cw;
  FILE *f;
  if (b->header) return 0;
  f = open_memstream(&text, &len);
  if (!f) return -1;
  diagc_csv_writer_init(&cw, b->m, f);
  diagc_csv_write_header(&cw);
  if (fclose(f) != 0 || cw.error || !text) {
    free(text);
    return -1;
  }
  b->header = text;
  b->header_len = len;
  return 0;
}

static void set_err(char *err, size_t errlen, const char *what) {
  if (err && errlen) snprintf(err, errlen, "batch: output: %s", what);
}

int diagc_batch_out_prepare(diagc_batch *b, const diagc_batch_job *j,
                            const diagc_batch_output *o, char *err,
                            size_t errlen) {
  const size_t row = (size_t)(1 + b->log_width) * CELL + 1;
  size_t cap = 1 << 16, path;
  int i;
  if (!o->dir || !o->dir[0]) {
    set_err(err, errlen, "no folder (dir)");
    return DIAGC_BATCH_E_ARG;
  }
  if (o->first < 0 || o->digits < 1 || o->digits > 19) {
    set_err(err, errlen, "first must be >= 0 and digits 1 to 19");
    return DIAGC_BATCH_E_ARG;
  }
  if (!j->status || !j->messages) {
    set_err(err, errlen, "the job needs status and messages");
    return DIAGC_BATCH_E_ARG;
  }
  if (j->max_rows > 0 && !j->fired) {
    set_err(err, errlen, "the job needs fired (which loggers fired)");
    return DIAGC_BATCH_E_ARG;
  }
  if (o->summary && (!j->end_time || o->summary_bytes < diagc_batch_summary_bytes(b->m))) {
    set_err(err, errlen, "summary needs end_time and summary_bytes >= "
                         "diagc_batch_summary_bytes");
    return DIAGC_BATCH_E_ARG;
  }
  if (make_header(b) != 0) {
    set_err(err, errlen, "out of memory for the CSV header");
    return DIAGC_BATCH_E_NOMEM;
  }
  while (cap < 4 * row) cap *= 2;
  /* "/." + a number of at most 19 digits + ".csv.tmp" + NUL */
  path = strlen(o->dir) + 32;
  if (cap < b->out_cap) cap = b->out_cap;
  if (path < b->path_cap) path = b->path_cap;
  for (i = 0; i < b->jobs; i++) {
    worker *w = &b->w[i];
    char *p;
    if (cap > b->out_cap) {
      if (!(p = (char *)realloc(w->buf, cap))) goto oom;
      w->buf = p;
    }
    if (path > b->path_cap) {
      if (!(p = (char *)realloc(w->path, path))) goto oom;
      w->path = p;
      if (!(p = (char *)realloc(w->tmp, path))) goto oom;
      w->tmp = p;
    }
    if (!w->stats &&
        !(w->stats = (double *)malloc((size_t)(3 * b->log_width + 1) * sizeof(double))))
      goto oom;
  }
  b->out_cap = cap;
  b->path_cap = path;
  return DIAGC_OK;
oom:
  set_err(err, errlen, "out of memory for the threads' file buffers");
  return DIAGC_BATCH_E_NOMEM;
}

void diagc_batch_out_free(diagc_batch *b) {
  int i;
  for (i = 0; i < b->jobs; i++) {
    free(b->w[i].buf);
    free(b->w[i].path);
    free(b->w[i].tmp);
    free(b->w[i].stats);
  }
  free(b->header);
}

/* ---- one run's file ------------------------------------------------------ */

/* Writes n bytes to the file, all of them (a short write goes on); the
 * first failure's errno is kept and later writes are skipped. */
static void put(worker *w, const char *p, size_t n) {
  while (n > 0 && !w->io_errno) {
    ssize_t k = write(w->fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      w->io_errno = errno;
    } else if (k == 0) {
      w->io_errno = EIO;
    } else {
      p += k;
      n -= (size_t)k;
    }
  }
}

static void flush(worker *w) {
  put(w, w->buf, w->used);
  w->used = 0;
}

/* Appends bytes through the buffer (a header longer than it goes out
 * directly). */
static void append(worker *w, const char *p, size_t n) {
  const size_t cap = w->b->out_cap;
  if (w->used + n > cap) flush(w);
  if (n > cap) {
    put(w, p, n);
    return;
  }
  memcpy(w->buf + w->used, p, n);
  w->used += n;
}

/* One log row as diagc_csv_write_row writes it, into dst (room for
 * (1 + log_width) cells and the newline); returns its length. */
static size_t format_row(const diagc_batch *b, char *dst, double t,
                         const unsigned char *fired, const double *v) {
  const diagc_model *m = b->m;
  char *p = dst;
  int l, e;
  p += diagc_format_double(p, CELL, t);
  for (l = 0; l < m->n_loggers; l++) {
    const double *x = v + b->log_off[l];
    const int size = m->loggers[l].size;
    for (e = 0; e < size; e++) {
      *p++ = ',';
      if (fired[l]) p += diagc_format_double(p, CELL, x[e]);
    }
  }
  *p++ = '\n';
  return (size_t)(p - dst);
}

/* Writes run i's CSV to w->tmp; 0, or the errno of the first failure
 * (the temporary file removed). */
static int write_csv(worker *w, const diagc_batch_job *j, int i) {
  const diagc_batch *b = w->b;
  const size_t row_max = (size_t)(1 + b->log_width) * CELL + 1;
  const int nl = b->m->n_loggers, lw = b->log_width;
  const int rows = j->max_rows > 0 && j->rows ? j->rows[i] : 0;
  int r;
  w->io_errno = 0;
  w->used = 0;
  do {
    w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  } while (w->fd < 0 && errno == EINTR);
  if (w->fd < 0) return errno ? errno : EIO;
  append(w, b->header, b->header_len);
  for (r = 0; r < rows && !w->io_errno; r++) {
    const size_t at = (size_t)i * (size_t)j->max_rows + (size_t)r;
    if (w->used + row_max > b->out_cap) flush(w);
    w->used += format_row(b, w->buf + w->used, j->t[at],
                          j->fired + at * (size_t)nl,
                          j->values + at * (size_t)lw);
  }
  flush(w);
  if (close(w->fd) != 0 && !w->io_errno) w->io_errno = errno ? errno : EIO;
  w->fd = -1;
  if (!w->io_errno && rename(w->tmp, w->path) != 0) w->io_errno = errno ? errno : EIO;
  if (w->io_errno) unlink(w->tmp);
  return w->io_errno;
}

/* Run i's summary cells: end time, then final, min, max per column. */
static void summary(worker *w, const diagc_batch_job *j,
                    const diagc_batch_output *o, int i) {
  const diagc_batch *b = w->b;
  const int lw = b->log_width;
  const int rows = j->max_rows > 0 && j->rows ? j->rows[i] : 0;
  double *st = w->stats;
  char *p = o->summary + (size_t)i * (size_t)o->summary_bytes;
  int r, c;
  for (c = 0; c < 3 * lw; c++) st[c] = NAN;
  for (r = 0; r < rows; r++) {
    const double *v = j->values + ((size_t)i * (size_t)j->max_rows + (size_t)r) * (size_t)lw;
    for (c = 0; c < lw; c++) {
      const double x = v[c];
      double *s = st + 3 * c;
      if (x != x) continue;
      s[0] = x;
      if (s[1] != s[1] || x < s[1]) s[1] = x;
      if (s[2] != s[2] || x > s[2]) s[2] = x;
    }
  }
  p += diagc_format_double(p, CELL, j->end_time[i]);
  for (c = 0; c < 3 * lw; c++) {
    *p++ = ',';
    if (st[c] == st[c]) p += diagc_format_double(p, CELL, st[c]);
  }
  *p = 0;
}

/* Appends s to a run's message, as much as fits. */
static void cat(char *msg, const char *s) {
  size_t n = strlen(msg);
  while (*s && n + 1 < DIAGC_BATCH_MESSAGE) msg[n++] = *s++;
  msg[n] = 0;
}

void diagc_batch_out_run(worker *w, const diagc_batch_job *j,
                         const diagc_batch_output *o, int i) {
  const char *shown = o->shown ? o->shown : o->dir;
  const long n = o->first + (long)i;
  char why[128], old[DIAGC_BATCH_MESSAGE];
  char *msg = j->messages + (size_t)i * DIAGC_BATCH_MESSAGE;
  const char *name;
  int e, rc;
  if (o->summary) summary(w, j, o, i);
  snprintf(w->path, w->b->path_cap, "%s/%0*ld.csv", o->dir, o->digits, n);
  snprintf(w->tmp, w->b->path_cap, "%s/.%0*ld.csv.tmp", o->dir, o->digits, n);
  if ((e = write_csv(w, j, i)) == 0) return;
  if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", e);
  rc = j->status[i];
  name = diagc_status_name(rc);
  memcpy(old, msg, sizeof old);
  old[sizeof old - 1] = 0;
  snprintf(msg, DIAGC_BATCH_MESSAGE, "cannot write %s/%0*ld.csv: %s", shown,
           o->digits, n, why);
  if (rc != DIAGC_OK) {
    cat(msg, " (the run had ended with ");
    cat(msg, name ? name : "an unknown status");
    cat(msg, ": ");
    cat(msg, old);
    cat(msg, ")");
  }
  j->status[i] = DIAGC_CSV_E_IO;
}
