/* diagc/csv.h: streaming CSV output of a simulation's loggers.
 *
 * Header: "t" then, per logger, one column named after the logger if its
 * size is 1, or columns "name[0]" ... "name[n-1]".  One row per log
 * callback (one per publish instant in which a logger fired); cells of
 * loggers that did not fire are empty.  Numbers use the shortest "%.Ng"
 * (N = 1..17) that reads back to the same double; when that form is
 * exponential, a fixed-point form of a larger N that round-trips and is
 * shorter wins (so 10 prints as "10", not "1e+01").  NaN and infinities
 * print as "nan", "inf", "-inf".  Names containing a comma, quote or line
 * break are quoted as in RFC 4180.
 *
 * C99.
 */
#ifndef DIAGC_CSV_H
#define DIAGC_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "diagc/model.h"
#include "diagc/simulator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: DIAGC_CSV_E_IO, DIAGC_CSV_E_BUFFER (diagc/status.h). */

/* Longest output of diagc_format_double, plus the terminating NUL. */
#define DIAGC_DOUBLE_BUFSIZE 32

typedef struct diagc_csv_writer {
  FILE *out;
  const diagc_model *m;
  long rows;    /* data rows written */
  int error;    /* nonzero once a write failed */
} diagc_csv_writer;

void diagc_csv_writer_init(diagc_csv_writer *w, const diagc_model *m,
                           FILE *out);
/* Writes the header line.  DIAGC_OK or DIAGC_CSV_E_IO. */
int diagc_csv_write_header(diagc_csv_writer *w);
/* Writes one row (the arguments of a diagc_log_fn).  DIAGC_OK or
 * DIAGC_CSV_E_IO. */
int diagc_csv_write_row(diagc_csv_writer *w, double t,
                        const unsigned char *fired,
                        const double *const *values);
/* A diagc_log_fn; `user` is a diagc_csv_writer*.  Errors are recorded in
 * w->error. */
void diagc_csv_log_callback(void *user, double t, const unsigned char *fired,
                            const double *const *values);

/* Shortest round-trip text of v (see above) into buf (at least
 * DIAGC_DOUBLE_BUFSIZE bytes recommended).  Returns the length, or
 * DIAGC_CSV_E_BUFFER (negative) if buf is too small. */
int diagc_format_double(char *buf, size_t bufsize, double v);

/* ---- event firings (the side file of `diagc run --csv`) ----------------
 *
 * A diagc_event_fn (diagc/simulator.h) that writes the firings of the
 * events whose times only the run knows -- every trigger but periodic
 * (a periodic event fires at offset + k period) -- one line each:
 *
 *   # diagc firings t0=T0 t_end=T1     the run's span (its first line)
 *   t,event                            the header
 *   0.45152364098573034,ball.impact    a firing: the time, the event's name
 *   # omitted world.step 900000        after the rows: firings not written
 *
 * At most max_rows rows are written per event (its first max_rows
 * firings); the later ones are only counted, and
 * diagc_firings_write_omitted() writes one "# omitted NAME N" line per
 * event with N > 0 of them.  Times print as in the CSV (shortest round
 * trip).  No allocation: counts is the caller's array of m->n_events. */
typedef struct diagc_firings_writer {
  FILE *out;
  const diagc_model *m;
  long long *counts;  /* firings of each event so far (m->n_events) */
  long long max_rows; /* rows written per event at most (>= 1) */
  long long rows;     /* rows written */
  int error;          /* nonzero once a write failed */
} diagc_firings_writer;

/* Zeroes counts[0 .. m->n_events). */
void diagc_firings_writer_init(diagc_firings_writer *w, const diagc_model *m,
                               FILE *out, long long *counts,
                               long long max_rows);
/* The first two lines.  DIAGC_OK or DIAGC_CSV_E_IO. */
int diagc_firings_write_header(diagc_firings_writer *w, double t0,
                               double t_end);
/* A diagc_event_fn; `user` is a diagc_firings_writer*.  Errors are
 * recorded in w->error. */
void diagc_firings_callback(void *user, double t, int event);
/* After the run: the "# omitted" lines.  DIAGC_OK or DIAGC_CSV_E_IO. */
int diagc_firings_write_omitted(diagc_firings_writer *w);

/* Creates a simulator for m (opt may be NULL), writes the header, then
 * initializes, advances to t_end and streams one row per log instant to
 * out.  Returns DIAGC_OK on success, DIAGC_SIM_TERMINATED (positive) if a
 * handler ended the simulation early (err gets the reason), or a negative
 * DIAGC_SIM_E_* / DIAGC_CSV_E_IO code with a one-line message in err (if
 * err != NULL). */
int diagc_run_csv(const diagc_model *m, const diagc_sim_options *opt,
                  double t_end, FILE *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
