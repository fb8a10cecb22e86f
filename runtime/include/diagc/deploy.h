/* diagc/deploy.h: runs generated models on the executor (diagc/executor.h).
 *
 * Each model gets its own simulator (diagc/simulator.h) and context, and
 * becomes one mutually exclusive callback group:
 *  - its periodic events become timers (one per distinct period/offset);
 *    at a timer's time t = offset + k*period the model's simulator is
 *    advanced to t, the updates due at t are applied, and
 *  - its mapped output ports are evaluated and published on their topics
 *    (a message: stamp, sequence number, model time, the values);
 *  - its mapped exported input ports are subscriptions on topics: a message
 *    sets the input (held until the next message).
 * Topics connect the models of one process (diagc_bus).  Model time 0 is
 * the executor's epoch, so model time follows the wall clock.
 *
 * `diagc deploy SPEC.lua -o app.c` writes the tables below and a main()
 * that calls diagc_deploy_main().  Memory is allocated by create (the
 * simulators, the executor and its queues); running allocates nothing.
 *
 * C11 + POSIX threads. */
#ifndef DIAGC_DEPLOY_H
#define DIAGC_DEPLOY_H

#include <stdint.h>
#include <stdio.h>

#include "diagc/executor.h"
#include "diagc/model.h"
#include "diagc/simulator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A port of a model and the topic it is bound to. */
typedef struct diagc_deploy_port {
  const char *port;   /* exported input (a DIAGC_SRC_INPUT source) or
                         output port name of the model */
  const char *topic;
} diagc_deploy_port;

typedef struct diagc_deploy_model {
  const char *name;
  const diagc_model *model;
  int n_inputs;
  const diagc_deploy_port *inputs;
  int n_outputs;
  const diagc_deploy_port *outputs;
} diagc_deploy_model;

typedef struct diagc_deploy diagc_deploy;

/* Builds the simulators, the executor (threads as in diagc_exec_config)
 * and the topics.  Returns NULL with a one-line message in err on error. */
diagc_deploy *diagc_deploy_create(const diagc_deploy_model *models, int n, int threads,
                                  char *err, size_t errlen);
/* Spins for duration_s seconds of wall clock, then stops the timers and
 * drains the queues.  Returns DIAGC_OK; DIAGC_DEPLOY_E_MODEL if a model
 * failed; or the executor's code (e.g. DIAGC_EXEC_E_SCHED) if it could not
 * start (diagc/status.h; message in diagc_deploy_error). */
int diagc_deploy_run(diagc_deploy *d, double duration_s);
const char *diagc_deploy_error(const diagc_deploy *d);
/* Per model: steps, timer start lateness; per topic binding: received,
 * latency (receive time - publish stamp), dropped; final outputs. */
void diagc_deploy_report(diagc_deploy *d, FILE *f);
diagc_exec *diagc_deploy_executor(diagc_deploy *d);
void diagc_deploy_destroy(diagc_deploy *d);

/* main() of a generated app: [--duration S] [--threads N] [--help].
 * Bad arguments: one line on stderr, exit status 2. */
int diagc_deploy_main(const diagc_deploy_model *models, int n, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
