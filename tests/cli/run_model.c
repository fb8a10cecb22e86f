/* Runs a generated model natively (gcc/clang/tcc builds) with the runtime's
 * simulator and prints its logs as CSV, to compare with `diagc run`.
 * Build with -DMODEL=prefix_model -include prefix.h. */
#include <stdio.h>
#include <stdlib.h>
#include "diagc/csv.h"

extern const diagc_model MODEL;

int main(int argc, char **argv)
{
  diagc_sim_options opt;
  char err[256];
  double t_end = argc > 1 ? atof(argv[1]) : 1.0;
  diagc_sim_options_init(&opt);
  if (diagc_run_csv(&MODEL, &opt, t_end, stdout, err, sizeof err) != 0) {
    fprintf(stderr, "run_model: %s\n", err);
    return 1;
  }
  return 0;
}
