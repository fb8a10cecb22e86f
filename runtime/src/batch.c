/* batch.c: N runs of one model on a pool of threads (diagc/batch.h; POSIX
 * threads, which every sanitizer follows, and C11 atomics).
 *
 * Each thread owns a simulator; a run clones the batch's default context
 * into it (memcpy: contexts are pointer-free), forgets the integrator's
 * step-size history (the one thing diagc_sim_initialize keeps, as Drake
 * does), sets its sources and runs.  Runs are handed out one at a time
 * from an atomic counter, so a slow run does not hold up the others; what
 * a run computes depends only on its index, never on the thread.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "batch_internal.h"
#include "sim_internal.h"

static void set_err(char *err, size_t errlen, const char *fmt, const char *a,
                    long v) {
  if (err && errlen) snprintf(err, errlen, fmt, a, v);
}

int diagc_batch_width(const diagc_model *m, int n, const int *idx) {
  int i, w = 0;
  if (!m || n < 0 || (n > 0 && !idx)) return -1;
  for (i = 0; i < n; i++) {
    if (idx[i] < 0 || idx[i] >= m->n_sources || m->sources[idx[i]].size <= 0)
      return -1;
    w += m->sources[idx[i]].size;
  }
  return w;
}

int diagc_batch_log_width(const diagc_model *m) {
  int i, w = 0;
  for (i = 0; m && i < m->n_loggers; i++) w += m->loggers[i].size;
  return w;
}

/* ---- one run ------------------------------------------------------------ */

static void log_row(void *user, double t, const unsigned char *fired,
                    const double *const *values) {
  worker *w = (worker *)user;
  const diagc_batch_job *j = w->job;
  const diagc_model *m = w->b->m;
  const int lw = w->b->log_width;
  int r = w->rows++, k, e;
  size_t row;
  double *dst;
  if (r >= j->max_rows) return;
  row = (size_t)w->run * (size_t)j->max_rows + (size_t)r;
  j->t[row] = t;
  dst = j->values + row * (size_t)lw;
  for (k = 0; k < m->n_loggers; k++) {
    double *d = dst + w->b->log_off[k];
    for (e = 0; e < m->loggers[k].size; e++)
      d[e] = fired[k] ? values[k][e] : NAN;
    if (j->fired) j->fired[row * (size_t)m->n_loggers + (size_t)k] = fired[k];
  }
}

static void set_sources(const diagc_model *m, void *ctx, int n, const int *idx,
                        const double *v) {
  int i;
  for (i = 0; i < n; i++) {
    m->set_source(ctx, idx[i], v);
    v += m->sources[idx[i]].size;
  }
}

/* Runs to t. */
static int advance(worker *w, double t) {
  return diagc_sim_advance_to(w->sim, t);
}

/* The VJP of one run: the Jacobians J_k stored forward, then
 * lambda <- J_k^T lambda backward (compressed columns: state columns
 * first, then the inputs). */
static void pull_back(const diagc_model *m, const diagc_batch_job *j,
                      const double *jac, int K, int run) {
  const diagc_jac_update_desc *u = &m->jac_updates[0];
  const int nx = m->nxd, nu = u->ncol - nx;
  double lam[2][512], *l = lam[0], *next = lam[1];
  const double *ct = j->cotangent + (size_t)run * (size_t)nx;
  int k, c, p;
  for (c = 0; c < nx; c++) l[c] = ct[c];
  for (k = K - 1; k >= 0; k--) {
    const double *nz = jac + (size_t)k * (size_t)u->nnz;
    double *gu = j->grad_inputs
                     ? j->grad_inputs +
                           ((size_t)run * (size_t)j->vjp_steps + (size_t)k) *
                               (size_t)nu
                     : NULL;
    for (c = 0; c < u->ncol; c++) {
      double s = 0;
      for (p = u->colptr[c]; p < u->colptr[c + 1]; p++)
        s += nz[p] * l[u->rowind[p]];
      if (c < nx)
        next[c] = s;
      else if (gu)
        gu[c - nx] = s;
    }
    {
      double *tmp = l;
      l = next;
      next = tmp;
    }
  }
  memcpy(j->grad_state + (size_t)run * (size_t)nx, l,
         (size_t)nx * sizeof(double));
}

static int run_one(worker *w, int i) {
  const diagc_model *m = w->b->m;
  const diagc_batch_job *j = w->job;
  diagc_sim *s = w->sim;
  void *ctx = diagc_sim_context(s);
  const int sw = diagc_batch_width(m, j->n_set, j->set);
  const int qw = diagc_batch_width(m, j->n_seq, j->seq);
  const int vjp = j->cotangent != NULL;
  const diagc_jac_update_desc *u = vjp ? &m->jac_updates[0] : NULL;
  int rc, k = 0, K = 0;

  w->run = i;
  w->rows = 0;
  memcpy(ctx, w->b->ctx0, m->context_size);
  s->ideal_next = NAN; /* as a fresh simulator */
  if (j->n_set > 0)
    set_sources(m, ctx, j->n_set, j->set,
                j->set_values + (size_t)i * (size_t)sw);
  if (j->n_seq > 0 && j->n_samples > 0)
    set_sources(m, ctx, j->n_seq, j->seq,
                j->seq_values + (size_t)i * (size_t)j->n_samples * (size_t)qw);
  rc = diagc_sim_initialize(s);

  if (vjp) {
    /* the updates at t_k = k h < t_final; after initialize and after
     * advance_to(t_k), the update due at t_k is pending: its Jacobian is
     * taken at that context (the state it reads) */
    const double h = u->period;
    while (rc == DIAGC_OK) {
      const double tk = (double)K * h;
      if (!(tk < j->t_final)) break;
      if (K > 0) {
        rc = advance(w, tk);
        if (rc != DIAGC_OK) break;
        if (j->n_seq > 0 && K < j->n_samples)
          set_sources(m, ctx, j->n_seq, j->seq,
                      j->seq_values +
                          ((size_t)i * (size_t)j->n_samples + (size_t)K) *
                              (size_t)qw);
      }
      if (K >= j->vjp_steps || (size_t)(K + 1) * (size_t)u->nnz > w->jac_cap) {
        snprintf(s->err, sizeof s->err,
                 "batch: the run has more than vjp_steps = %d updates before "
                 "t_final",
                 j->vjp_steps);
        rc = DIAGC_BATCH_E_ARG;
        break;
      }
      rc = u->jac(ctx, w->jac + (size_t)K * (size_t)u->nnz);
      if (rc != DIAGC_OK) {
        snprintf(s->err, sizeof s->err,
                 "batch: the update's Jacobian failed at t = %.17g (%s)", tk,
                 diagc_status_message(rc));
        break;
      }
      K++;
    }
  } else {
    for (k = 1; rc == DIAGC_OK && j->n_seq > 0 && k < j->n_samples; k++) {
      const double tk = (double)k * j->sample_period;
      if (!(tk < j->t_final)) break;
      rc = advance(w, tk);
      if (rc == DIAGC_OK)
        set_sources(m, ctx, j->n_seq, j->seq,
                    j->seq_values +
                        ((size_t)i * (size_t)j->n_samples + (size_t)k) *
                            (size_t)qw);
    }
  }
  if (rc == DIAGC_OK) rc = advance(w, j->t_final);
  if (rc == DIAGC_OK && vjp) pull_back(m, j, w->jac, K, i);
  /* checked at the end, so that a run's outcome does not depend on where
   * its segments end */
  if (rc == DIAGC_OK && j->max_rows > 0 && w->rows > j->max_rows)
    rc = DIAGC_BATCH_E_ROWS;

  if (j->rows) j->rows[i] = w->rows < j->max_rows ? w->rows : j->max_rows;
  if (j->status) j->status[i] = rc;
  if (j->end_time) j->end_time[i] = diagc_sim_time(s);
  if (j->final_state) {
    double *fs = j->final_state + (size_t)i * (size_t)(m->nxc + m->nxd);
    memcpy(fs, (const char *)ctx + m->xc_offset, (size_t)m->nxc * sizeof(double));
    memcpy(fs + m->nxc, (const char *)ctx + m->xd_offset,
           (size_t)m->nxd * sizeof(double));
  }
  if (j->messages) {
    char *msg = j->messages + (size_t)i * DIAGC_BATCH_MESSAGE;
    if (rc == DIAGC_BATCH_E_ROWS)
      snprintf(msg, DIAGC_BATCH_MESSAGE,
               "the run logged %d rows, more than max_rows = %d", w->rows,
               j->max_rows);
    else if (rc != DIAGC_OK)
      snprintf(msg, DIAGC_BATCH_MESSAGE, "%s",
               diagc_sim_error(s)[0] ? diagc_sim_error(s)
                                     : diagc_status_message(rc));
    else
      msg[0] = 0;
  }
  if (vjp && rc != DIAGC_OK) {
    int c;
    for (c = 0; c < m->nxd; c++)
      j->grad_state[(size_t)i * (size_t)m->nxd + (size_t)c] = NAN;
  }
  return rc;
}

/* The runs this thread takes: each is run (unless write_only), then
 * given its output step (out != NULL). */
static void work(worker *w, const diagc_batch_job *j,
                 const diagc_batch_output *out, int write_only) {
  int i;
  w->job = j;
  diagc_sim_set_log_callback(w->sim, log_row, w);
  while ((i = atomic_fetch_add(&w->b->next, 1)) < j->n_runs) {
    if (!write_only) run_one(w, i);
    if (out) diagc_batch_out_run(w, j, out, i);
  }
}

static void *thread_main(void *arg) {
  worker *w = (worker *)arg;
  diagc_batch *b = w->b;
  int seen = 0;
  for (;;) {
    const diagc_batch_job *j;
    const diagc_batch_output *out;
    int write_only;
    pthread_mutex_lock(&b->mu);
    while (!b->stopping && b->generation == seen) pthread_cond_wait(&b->go, &b->mu);
    if (b->stopping) {
      pthread_mutex_unlock(&b->mu);
      return NULL;
    }
    seen = b->generation;
    j = b->job;
    out = b->out;
    write_only = b->write_only;
    pthread_mutex_unlock(&b->mu);
    work(w, j, out, write_only);
    pthread_mutex_lock(&b->mu);
    if (--b->busy == 0) pthread_cond_signal(&b->done);
    pthread_mutex_unlock(&b->mu);
  }
}

/* ---- the batch ---------------------------------------------------------- */

static int online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > DIAGC_BATCH_MAX_JOBS) n = DIAGC_BATCH_MAX_JOBS;
  return (int)n;
}

void diagc_batch_destroy(diagc_batch *b) {
  int i;
  if (!b) return;
  if (b->w) {
    pthread_mutex_lock(&b->mu);
    b->stopping = 1;
    pthread_cond_broadcast(&b->go);
    pthread_mutex_unlock(&b->mu);
    for (i = 1; i < b->jobs; i++)
      if (b->w[i].started) pthread_join(b->w[i].thread, NULL);
    diagc_batch_out_free(b);
    for (i = 0; i < b->jobs; i++) {
      diagc_sim_destroy(b->w[i].sim);
      free(b->w[i].jac);
    }
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->go);
    pthread_cond_destroy(&b->done);
  }
  free(b->w);
  free(b->log_off);
  free(b->ctx0);
  free(b);
}

diagc_batch *diagc_batch_create(const diagc_model *m,
                                const diagc_sim_options *opt, int jobs,
                                char *err, size_t errlen) {
  diagc_batch *b;
  int i, off = 0;
  if (err && errlen) err[0] = 0;
  if (!m) {
    set_err(err, errlen, "batch: %s", "no model", 0);
    return NULL;
  }
  if (jobs < 0 || jobs > DIAGC_BATCH_MAX_JOBS) {
    set_err(err, errlen, "batch: %s %ld; give 0 (the number of processors) to 256",
            "jobs is", jobs);
    return NULL;
  }
  if (jobs == 0) jobs = online_cpus();
  b = (diagc_batch *)calloc(1, sizeof *b);
  if (!b) goto oom;
  b->m = m;
  b->jobs = jobs;
  b->log_width = diagc_batch_log_width(m);
  b->ctx0 = malloc(m->context_size ? m->context_size : 1);
  b->log_off = (int *)calloc((size_t)(m->n_loggers > 0 ? m->n_loggers : 1), sizeof(int));
  if (!b->ctx0 || !b->log_off) goto oom;
  for (i = 0; i < m->n_loggers; i++) {
    b->log_off[i] = off;
    off += m->loggers[i].size;
  }
  b->w = (worker *)calloc((size_t)jobs, sizeof(worker));
  if (!b->w) goto oom;
  if (pthread_mutex_init(&b->mu, NULL) != 0 || pthread_cond_init(&b->go, NULL) != 0 ||
      pthread_cond_init(&b->done, NULL) != 0) {
    free(b->w);
    b->w = NULL;
    set_err(err, errlen, "batch: %s", "cannot create the pool's lock", 0);
    diagc_batch_destroy(b);
    return NULL;
  }
  for (i = 0; i < jobs; i++) {
    b->w[i].b = b;
    b->w[i].sim = diagc_sim_create_ex(m, opt, err, errlen);
    if (!b->w[i].sim) {
      diagc_batch_destroy(b);
      return NULL;
    }
    if (b->w[i].sim->integ == DIAGC_INT_EXTERNAL) {
      set_err(err, errlen, "batch: %s", "the built-in integrators only", 0);
      diagc_batch_destroy(b);
      return NULL;
    }
  }
  m->init(b->ctx0);
  for (i = 1; i < jobs; i++) {
    if (pthread_create(&b->w[i].thread, NULL, thread_main, &b->w[i]) != 0) {
      set_err(err, errlen, "batch: %s (thread %ld)", "a thread could not be started", i);
      diagc_batch_destroy(b);
      return NULL;
    }
    b->w[i].started = 1;
  }
  return b;
oom:
  set_err(err, errlen, "batch: %s", "out of memory", 0);
  diagc_batch_destroy(b);
  return NULL;
}

int diagc_batch_jobs(const diagc_batch *b) { return b ? b->jobs : 0; }

void *diagc_batch_context(diagc_batch *b) { return b ? b->ctx0 : NULL; }

/* The job's checks; DIAGC_OK or DIAGC_BATCH_E_ARG with err. */
static int check_job(const diagc_batch *b, const diagc_batch_job *j,
                     char *err, size_t errlen) {
  const diagc_model *m = b->m;
#define BAD(what)                                                              \
  do {                                                                         \
    set_err(err, errlen, "batch: %s", what, 0);                                \
    return DIAGC_BATCH_E_ARG;                                                  \
  } while (0)
  if (!j) BAD("no job");
  if (j->n_runs < 0) BAD("n_runs < 0");
  if (!(j->t_final >= 0) || isinf(j->t_final)) BAD("t_final must be finite and >= 0");
  if (j->n_set < 0 || diagc_batch_width(m, j->n_set, j->set) < 0)
    BAD("set: an index out of range or of a source that is not numeric");
  if (j->n_set > 0 && !j->set_values) BAD("set_values is NULL");
  if (j->n_seq < 0 || diagc_batch_width(m, j->n_seq, j->seq) < 0)
    BAD("seq: an index out of range or of a source that is not numeric");
  if (j->n_seq > 0) {
    if (j->n_samples < 1) BAD("n_samples < 1 with a sequence");
    if (!j->seq_values) BAD("seq_values is NULL");
    if (!(j->sample_period > 0) || isinf(j->sample_period))
      BAD("sample_period must be positive and finite");
  }
  if (j->max_rows < 0) BAD("max_rows < 0");
  if (j->max_rows > 0 && (!j->t || !j->values || !j->rows))
    BAD("t, values or rows is NULL with max_rows > 0");
  if (j->cotangent) {
    const diagc_jac_update_desc *u;
    if (m->nxc != 0 || m->n_jac_updates != 1 || !m->jac_updates[0].jac)
      BAD("VJP: the model needs nxc = 0 and one periodic update timing with "
          "a generated Jacobian (jac_updates)");
    u = &m->jac_updates[0];
    if (u->offset != 0 || u->nrow != m->nxd || u->ncol < m->nxd)
      BAD("VJP: the update's timing must have offset 0");
    if (m->nxd > 512) BAD("VJP: more than 512 discrete state elements");
    if (!j->grad_state) BAD("VJP: grad_state is NULL");
    if (j->vjp_steps < 0) BAD("VJP: vjp_steps < 0");
    if (j->n_seq > 0 && j->sample_period != u->period)
      BAD("VJP: sample_period must be the update's period");
  }
#undef BAD
  return DIAGC_OK;
}

/* A job on the pool: its runs (unless write_only) and their output step
 * (out != NULL). */
static int pool_run(diagc_batch *b, const diagc_batch_job *j,
                    const diagc_batch_output *out, int write_only, char *err,
                    size_t errlen) {
  int i, rc;
  if (err && errlen) err[0] = 0;
  if (!b) {
    set_err(err, errlen, "batch: %s", "no batch", 0);
    return DIAGC_BATCH_E_ARG;
  }
  if ((rc = check_job(b, j, err, errlen)) != DIAGC_OK) return rc;
  if (out && (rc = diagc_batch_out_prepare(b, j, out, err, errlen)) != DIAGC_OK)
    return rc;
  if (j->cotangent && !write_only) {
    const size_t need =
        (size_t)(j->vjp_steps > 0 ? j->vjp_steps : 1) *
        (size_t)(b->m->jac_updates[0].nnz > 0 ? b->m->jac_updates[0].nnz : 1);
    for (i = 0; i < b->jobs; i++) {
      if (b->w[i].jac_cap < need) {
        double *p = (double *)realloc(b->w[i].jac, need * sizeof(double));
        if (!p) {
          set_err(err, errlen, "batch: %s (%ld doubles per thread)",
                  "out of memory for the VJP's Jacobians", (long)need);
          return DIAGC_BATCH_E_NOMEM;
        }
        b->w[i].jac = p;
        b->w[i].jac_cap = need;
      }
    }
  }
  atomic_store(&b->next, 0);
  pthread_mutex_lock(&b->mu);
  b->job = j;
  b->out = out;
  b->write_only = write_only;
  b->busy = b->jobs - 1;
  b->generation++;
  pthread_cond_broadcast(&b->go);
  pthread_mutex_unlock(&b->mu);
  work(&b->w[0], j, out, write_only); /* the calling thread is worker 0 */
  pthread_mutex_lock(&b->mu);
  while (b->busy > 0) pthread_cond_wait(&b->done, &b->mu);
  b->job = NULL;
  b->out = NULL;
  pthread_mutex_unlock(&b->mu);
  return DIAGC_OK;
}

int diagc_batch_run(diagc_batch *b, const diagc_batch_job *j, char *err,
                    size_t errlen) {
  return pool_run(b, j, NULL, 0, err, errlen);
}

int diagc_batch_run_output(diagc_batch *b, const diagc_batch_job *j,
                           const diagc_batch_output *out, char *err,
                           size_t errlen) {
  if (!out) {
    if (err && errlen) snprintf(err, errlen, "batch: output: no output (out is NULL)");
    return DIAGC_BATCH_E_ARG;
  }
  return pool_run(b, j, out, 0, err, errlen);
}

int diagc_batch_write(diagc_batch *b, const diagc_batch_job *j,
                      const diagc_batch_output *out, char *err, size_t errlen) {
  if (!out) {
    if (err && errlen) snprintf(err, errlen, "batch: output: no output (out is NULL)");
    return DIAGC_BATCH_E_ARG;
  }
  return pool_run(b, j, out, 1, err, errlen);
}
