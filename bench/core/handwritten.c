/* bench/handwritten.c: what a careful programmer would write by hand for the
 * two benchmark diagrams: the copies/adds, plus the minimum bookkeeping
 * needed to skip work when nothing changed. */
#include "handwritten.h"

#include <string.h>

void hand_pt3_init(hand_pt3 *c)
{
  memset(c, 0, sizeof *c);
  c->stale = 1;
}

void hand_pt3_set_input(hand_pt3 *c, const double *v)
{
  memcpy(c->u, v, sizeof c->u);
  c->stale = 1;
}

const double *hand_pt3_eval(hand_pt3 *c)
{
  if (c->stale) {
    int i;
    for (i = 0; i < 7; ++i) c->y1[i] = c->u[i];
    for (i = 0; i < 7; ++i) c->y2[i] = c->y1[i];
    for (i = 0; i < 7; ++i) c->y3[i] = c->y2[i];
    c->stale = 0;
  }
  return c->y3;
}

void hand_chain_init(hand_chain *c)
{
  int i;
  memset(c, 0, sizeof *c);
  for (i = 0; i < CHAIN_N; ++i) c->b[i] = 0.001;
  c->first_stale = 0;
}

void hand_chain_set_input(hand_chain *c, const double *v)
{
  c->u = v[0];
  c->first_stale = 0;
}

void hand_chain_set_b(hand_chain *c, int i, const double *v)
{
  c->b[i] = v[0];
  if (i < c->first_stale) c->first_stale = i;
}

const double *hand_chain_eval(hand_chain *c)
{
  int i = c->first_stale;
  if (i < CHAIN_N) {
    double y = i == 0 ? c->u : c->y[i - 1];
    for (; i < CHAIN_N; ++i) {
      y = y + c->b[i];
      c->y[i] = y;
    }
    c->first_stale = CHAIN_N;
  }
  return &c->y[CHAIN_N - 1];
}

void hand_wide_init(hand_wide *c)
{
  int i;
  memset(c, 0, sizeof *c);
  for (i = 0; i < WIDE_N; ++i) {
    if ((i + 1) % 10 == 0) {
      c->k[i][0] = 1.0, c->k[i][1] = 2.0;
      c->tau[i][0] = 0.5, c->tau[i][1] = 0.25;
    } else {
      c->k[i][0] = 1.0, c->k[i][1] = 0.5;
      c->b[i][0] = 0.001, c->b[i][1] = 0.002;
    }
  }
  /* the first leaves (up to the first lag) read the input only: computed
   * once here; everything from the first lag on depends on z */
  for (i = 0; i < 9 && i < WIDE_N; ++i) {
    const double *u = i == 0 ? c->u : c->y[i - 1];
    c->y[i][0] = c->k[i][0] * u[0] + c->b[i][0];
    c->y[i][1] = c->k[i][1] * u[1] + c->b[i][1];
  }
  c->stale = 1;
}

void hand_wide_set_xc(hand_wide *c, const double *v)
{
  memcpy(c->z, v, sizeof c->z);
  c->stale = 1;
}

const double *hand_wide_derivatives(hand_wide *c)
{
  int i, lag = 0;
  double u0, u1;
  if (!c->stale) return &c->zdot[0][0];
  u0 = c->y[8][0], u1 = c->y[8][1]; /* the previous leaf's output, in registers */
  for (i = 9; i < WIDE_N; ++i) {
    if ((i + 1) % 10 == 0) {
      c->zdot[lag][0] = (c->k[i][0] * u0 - c->z[lag][0]) / c->tau[i][0];
      c->zdot[lag][1] = (c->k[i][1] * u1 - c->z[lag][1]) / c->tau[i][1];
      u0 = c->z[lag][0], u1 = c->z[lag][1];
      ++lag;
    } else {
      u0 = c->k[i][0] * u0 + c->b[i][0];
      u1 = c->k[i][1] * u1 + c->b[i][1];
    }
    c->y[i][0] = u0, c->y[i][1] = u1;
  }
  c->stale = 0;
  return &c->zdot[0][0];
}
