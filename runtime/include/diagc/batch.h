/* diagc/batch.h: many runs of one model at once (issue #30, docs/sweep.md).
 *
 * A batch runs N independent simulations of one generated model: run i
 * starts from a clone (memcpy) of a default context, gets its own values
 * of some sources (initial state, parameters, fixed inputs), is fed its
 * own input sequence (zero-order hold), is simulated from t = 0 to
 * t_final with the batch's simulator options, and writes its logged
 * trajectory into caller-provided arrays.  Optionally, for a model whose
 * only state changes are one periodic discrete update (a world, a sampled
 * controller without continuous state), it also pulls a cotangent of the
 * final discrete state back through every update's generated Jacobian
 * (a vector-Jacobian product, VJP: reverse mode over the rollout).
 *
 * Runs are spread over a pool of threads (POSIX threads), each with its own
 * simulator.  A run depends only on its own inputs: its results are bit
 * for bit those of a fresh simulator running it alone, whatever the number
 * of threads and whichever thread takes it.  Failures stay in their run
 * (status and message per run) and never stop the batch.
 *
 * Memory: diagc_batch_create allocates the threads, one simulator per
 * thread and the default context; diagc_batch_run allocates only when a
 * job needs more VJP storage per thread than any earlier job.  The loop
 * over runs never allocates: all outputs go into the job's arrays.
 *
 * Every array below is row-major, run after run ("n_runs x w" means w
 * doubles for run 0, then w for run 1, ...).
 *
 * Include from C99 or later; the runtime builds it as C11.
 */
#ifndef DIAGC_BATCH_H
#define DIAGC_BATCH_H

#include <stddef.h>

#include "diagc/model.h"
#include "diagc/simulator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads a batch may use. */
#define DIAGC_BATCH_MAX_JOBS 256
/* Bytes of each run's message (diagc_batch_job.messages), NUL included. */
#define DIAGC_BATCH_MESSAGE 256

/* FFI-BEGIN (the region below is read by LuaJIT's FFI and cffi: no
 * preprocessor) */
typedef struct diagc_batch diagc_batch;

typedef struct diagc_batch_job {
  int n_runs;            /* >= 0 */
  double t_final;        /* every run: initialize at t = 0, advance to it */

  /* Per-run sources, set after the default context is cloned and before
   * the run is initialized: set[0 .. n_set) are indices into
   * model->sources of numeric sources (size > 0: a state group, q, v, z,
   * a parameter group, a fixed input, an exported input); set_values
   * holds n_runs x set_width doubles (set_width = the sum of their
   * sizes, diagc_batch_width), each run's values in the order of set. */
  int n_set;
  const int *set;
  const double *set_values;

  /* Input sequences: seq[0 .. n_seq) index numeric sources as above
   * (typically the root's exported inputs); seq_values holds
   * n_runs x n_samples x seq_width doubles.  Sample k is set at
   * t = k * sample_period (the double product; k = 0 before
   * initialization) and held until the next; samples at or after
   * t_final are not used.  n_seq = 0: no sequence. */
  int n_seq;
  const int *seq;
  int n_samples;
  double sample_period;  /* > 0 when n_seq > 0 */
  const double *seq_values;

  /* Logs out.  Row r of run i is one publish instant in which a logger
   * fired (as diagc_log_fn): t[i * max_rows + r], then log_width values
   * (diagc_batch_log_width: each logger's elements, loggers in
   * model order) at values[(i * max_rows + r) * log_width]; the values
   * of a logger that did not fire then are NaN, and fired (if not NULL,
   * n_runs x max_rows x n_loggers) says which did.  rows[i] gets the
   * number of rows the run logged (at most max_rows); a run that
   * logged more ends with DIAGC_BATCH_E_ROWS (checked when it reaches
   * t_final; the first max_rows rows are kept).  max_rows = 0: nothing
   * is logged, no limit (t, values and rows may be NULL). */
  int max_rows;
  double *t;
  double *values;
  unsigned char *fired;
  int *rows;

  /* Per run (each may be NULL): status[i] DIAGC_OK, DIAGC_SIM_TERMINATED
   * (a handler ended the run early: not a failure) or a negative status
   * (diagc/status.h: DIAGC_SIM_E_NONFINITE, DIAGC_SIM_E_STEP (the
   * max_steps budget), DIAGC_BATCH_E_ROWS, ...); messages[i *
   * DIAGC_BATCH_MESSAGE] the one-line message ("" on success);
   * end_time[i] the time the run reached; final_state n_runs x (nxc +
   * nxd): the continuous then the discrete state where it stopped. */
  int *status;
  char *messages;
  double *end_time;
  double *final_state;

  /* VJP (cotangent not NULL): the model must have nxc = 0 and exactly
   * one periodic update timing with a generated Jacobian
   * (model->jac_updates[0], offset 0, period h); the updates at t_k =
   * k * h < t_final (K of them) are differentiated.  cotangent: n_runs x
   * nxd, the cotangent of the discrete state at t_final (before an
   * update due then).  Out: grad_state (n_runs x nxd), its pull-back to
   * the state at t = 0 after initialization; grad_inputs (may be NULL;
   * n_runs x K x nu, nu = model->jac_updates[0].ncol - nxd, the elements
   * of model->lin_inputs), the pull-back to the inputs each update read.
   * With an input sequence, sample_period must then be h. */
  const double *cotangent;
  double *grad_state;
  double *grad_inputs;
  int vjp_steps;         /* K, for sizing grad_inputs: the caller sets it
                            to the most updates it has room for per run
                            (a run with more fails with DIAGC_BATCH_E_ARG) */
} diagc_batch_job;

/* Creates a batch for model m with simulator options opt (NULL:
 * defaults; the built-in integrators only) on `jobs` threads (0: the
 * number of online processors, at most DIAGC_BATCH_MAX_JOBS; the calling
 * thread is one of them).  NULL on failure, with a one-line reason in err
 * (if err != NULL and errlen > 0). */
diagc_batch *diagc_batch_create(const diagc_model *m,
                                const diagc_sim_options *opt, int jobs,
                                char *err, size_t errlen);
void diagc_batch_destroy(diagc_batch *b);

/* The threads in use (>= 1). */
int diagc_batch_jobs(const diagc_batch *b);

/* The default context every run starts from (model->context_size bytes,
 * model->init applied): a caller may set sources on it once, for all
 * runs, before diagc_batch_run. */
void *diagc_batch_context(diagc_batch *b);

/* The number of doubles of n sources idx[0 .. n) (the sum of their
 * sizes), or -1 when one is out of range or not numeric. */
int diagc_batch_width(const diagc_model *m, int n, const int *idx);
/* The doubles of one log row: the sum of the loggers' sizes. */
int diagc_batch_log_width(const diagc_model *m);

/* Runs the job's runs (blocking; one job at a time per batch).  Returns
 * DIAGC_OK when every run was attempted (each run's outcome is in
 * status), or before running anything DIAGC_BATCH_E_ARG (a bad job: err
 * says which field) or DIAGC_BATCH_E_NOMEM. */
int diagc_batch_run(diagc_batch *b, const diagc_batch_job *job, char *err,
                    size_t errlen);

/* ---- the per-run output step (diagc sweep) ----
 *
 * With an output step, the thread that ran run i (or, for
 * diagc_batch_write, whichever thread takes it) then writes the run's
 * log as a CSV file, byte for byte what diagc_csv_writer (diagc/csv.h)
 * writes for it: the header, then one row per logged row (the values of
 * a logger that did not fire are empty cells; the job needs `fired`).
 * The file is dir/N.csv, N = first + i zero-padded to `digits` digits;
 * it is written to dir/.N.csv.tmp and renamed into place, so N.csv is
 * either whole or absent.  Every call is checked: a failed open, write,
 * close or rename removes the temporary file and becomes the run's
 * failure, status[i] = DIAGC_CSV_E_IO with the message "cannot write
 * SHOWN/N.csv: REASON" (SHOWN: `shown`, or dir), followed by the run's
 * own failure if it had one.  The job needs status and messages.
 *
 * summary (may be NULL; needs end_time): run i's summary cells at
 * summary + i * summary_bytes, NUL-terminated: its end time, then for
 * each log column (in log order) its last, smallest and largest value
 * other than NaN over the run's rows (an empty cell when every value was
 * NaN), all comma-separated, each number as diagc_format_double writes
 * it.
 *
 * The output step allocates its buffers before the runs start (a file
 * buffer, paths and the column statistics per thread); the loop over
 * runs never allocates. */
typedef struct diagc_batch_output {
  const char *dir;       /* an existing folder */
  const char *shown;     /* the folder as messages name it (NULL: dir) */
  long first;            /* the number of run 0's file (>= 0) */
  int digits;            /* zero-padded to 1 .. 19 digits */
  char *summary;         /* NULL, or n_runs x summary_bytes */
  int summary_bytes;     /* >= diagc_batch_summary_bytes(m) */
} diagc_batch_output;

/* The bytes of one run's summary cells, NUL included. */
int diagc_batch_summary_bytes(const diagc_model *m);

/* diagc_batch_run, then each run's output step (out != NULL). */
int diagc_batch_run_output(diagc_batch *b, const diagc_batch_job *job,
                           const diagc_batch_output *out, char *err,
                           size_t errlen);

/* The output step alone, on the batch's threads, for results already in
 * the job's arrays (rows, t, values, fired, status, messages, end_time;
 * MPI's rank 0 writes the chunks the other ranks ran): the same files
 * and summary cells as diagc_batch_run_output. */
int diagc_batch_write(diagc_batch *b, const diagc_batch_job *job,
                      const diagc_batch_output *out, char *err,
                      size_t errlen);

/* FFI-END */

#ifdef __cplusplus
}
#endif
#endif
