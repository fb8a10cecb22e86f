/* lin_internal.h: what linearize.c shares with trim.c: the chosen state,
 * input and output elements of a model, its values (xcdot, x[n+1], y) at
 * a context and their Jacobian by the generated functions or central
 * differences.  Rows f = (xcdot (nc), x[n+1] of xd (nd)), then y (ny);
 * columns x = (xc (nc), xd (nd)), then u (nu). */
#ifndef DIAGC_LIN_INTERNAL_H
#define DIAGC_LIN_INTERNAL_H

#include <stddef.h>

#include "diagc/model.h"

/* The chosen blocks: ports [first, first + count) of lin_inputs /
 * lin_outputs, and where their elements start in jac_lin's columns / rows. */
typedef struct lin_sel {
  int in_first, in_count, out_first, out_count;
  int col0, row0; /* first jac_lin column / row of the chosen blocks */
  int nc, nd;     /* continuous and discrete state elements (x = xc, xd) */
  int nx, nu, ny;
  int discrete;   /* purely discrete: x = xd, f = x[n+1] (lin_time_period > 0, nxc 0) */
  int sampled;    /* xc under one periodic update: f = (xcdot, x[n+1]) */
  void *sbuf;     /* nd > 0: a state block for the update handlers */
} lin_sel;

/* input, output: a lin_inputs / lin_outputs index, DIAGC_LIN_ALL or
   DIAGC_LIN_NONE; -1 when out of range */
int diagc__lin_select(const diagc_model *m, int input, int output, lin_sel *s);
int diagc__lin_open(const diagc_model *m, lin_sel *s); /* the scratch state block */
void diagc__lin_close(lin_sel *s);
void diagc__lin_read(const diagc_model *m, const void *ctx, const lin_sel *s, double *x, double *u);
void diagc__lin_write(const diagc_model *m, void *ctx, const lin_sel *s, const double *x,
                      const double *u);
/* f (nx), y (ny) at ctx; DIAGC_LIN_E_EVAL naming what failed or the
   first non-finite value */
int diagc__lin_values(const diagc_model *m, void *ctx, const lin_sel *s, double *f, double *y,
                      char *err, size_t errlen);
/* J = d(f, y) / d(x, u), row-major (nx + ny) x (nx + nu); x0, u0 the
   point's values (for the difference steps) */
int diagc__lin_jacobian(const diagc_model *m, void *ctx, const lin_sel *s, int jacobian,
                        const double *x0, const double *u0, double *J, char *err, size_t errlen);
void diagc__lin_row_name(const diagc_model *m, const lin_sel *s, int r, char *buf, size_t n);
void diagc__lin_col_name(const diagc_model *m, const lin_sel *s, int c, char *buf, size_t n);

#endif
