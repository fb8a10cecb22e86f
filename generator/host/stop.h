/* generator/host/stop.h: how bin/diagc stops (stop.c): the wall-clock
 * limit, SIGINT/SIGTERM/SIGHUP, temporary files, the external command. */
#ifndef DIAGC_HOST_STOP_H
#define DIAGC_HOST_STOP_H

#include <lua.h>

/* Records diagc's own process and catches SIGINT, SIGTERM and SIGHUP
 * (unless ignored at start); call first in main. */
void diagc_stop_init(void);

/* Disarms the wall-clock limit if armed (user C is about to run). */
void diagc_stop_disarm_timeout(void);

/* diagc_host.set_timeout(seconds, line), track_temp(path, on),
 * run_isolated(argv, files): see stop.c and main.c's list. */
int diagc_set_timeout_lua(lua_State *L);
int diagc_track_temp_lua(lua_State *L);
/* diagc_host.set_stop_note(line | nil): a line for stderr when a signal
 * ends diagc (diagc sweep --mpi names its unfinished runs) */
int diagc_set_stop_note_lua(lua_State *L);
int diagc_run_isolated_lua(lua_State *L);

#endif
