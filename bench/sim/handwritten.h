/* Hand-written models and loops for bench/sim (see handwritten.c). */
#ifndef BENCH_SIM_HANDWRITTEN_H
#define BENCH_SIM_HANDWRITTEN_H
#include "diagc/model.h"
#define HW_CHAIN_N 100
extern const diagc_model hw_pendulum_model, hw_chain_model;
void hw_rk4_pendulum(double *x, double h, long steps);
void hw_rk4_chain(double *x, double h, long steps);
void hw_pendulum_f(const double *x, double *d);
void hw_chain_f(const double *x, double *d);
#endif
