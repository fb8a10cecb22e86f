/* generator/host/read_source.c: read_source(path, max) for Lua (bin/diagc:
 * diagc_host.read_source; the spec loader and the URDF import read files
 * with it; the fuzz targets link it too). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "read_source.h"

/* read_source(path, max): the bytes of a regular file of at most `max`
 * bytes.  Opened non-blocking (a FIFO without writer must not hang the
 * open), then checked with fstat on the open descriptor. */
int diagc_read_source_lua(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lua_Number maxn = luaL_checknumber(L, 2);
  size_t max = maxn > 0 ? (size_t)maxn : 0, n = 0;
  struct stat st;
  luaL_Buffer b;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    lua_pushnil(L);
    lua_pushstring(L, errno == ENOENT ? "no such file" : strerror(errno));
    return 2;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    lua_pushnil(L);
    lua_pushstring(L, S_ISDIR(st.st_mode) ? "it is a directory, not a file"
                                          : "it is not a regular file (a FIFO, device or socket)");
    return 2;
  }
  if ((size_t)st.st_size > max) {
    close(fd);
    lua_pushnil(L);
    lua_pushfstring(L, "it is larger than the limit of %d MiB", (int)(max >> 20));
    return 2;
  }
  luaL_buffinit(L, &b);
  for (;;) {
    char buf[8192];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      lua_pushnil(L);
      lua_pushstring(L, strerror(e));
      return 2;
    }
    if (r == 0) break;
    n += (size_t)r;
    if (n > max) { /* grew while being read */
      close(fd);
      lua_pushnil(L);
      lua_pushfstring(L, "it is larger than the limit of %d MiB", (int)(max >> 20));
      return 2;
    }
    luaL_addlstring(&b, buf, (size_t)r);
  }
  close(fd);
  luaL_pushresult(&b);
  return 1;
}
