/* generator/host/read_source.h: read_source for Lua (read_source.c). */
#ifndef DIAGC_READ_SOURCE_H
#define DIAGC_READ_SOURCE_H

#include <lua.h>

/* read_source(path, max) -> text | nil, why
 * The bytes of a regular file of at most `max` bytes.  Opened non-blocking
 * (a FIFO without writer must not hang the open), then checked with fstat
 * on the open descriptor: a directory, FIFO, device or socket, or a file
 * larger than `max`, gives nil and why. */
int diagc_read_source_lua(lua_State *L);

#endif
