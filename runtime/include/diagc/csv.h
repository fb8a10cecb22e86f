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
