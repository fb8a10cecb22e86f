/* generator/host/main.c: bin/diagc, a LuaJIT host with an embedded TinyCC.
 *
 * Runs require("diagc.driver").main(args) with the modules of
 * ROOT/generator found first (root_searcher) and the C module `diagc_host`
 * preloaded:
 *
 *   root()                      -> ROOT (the checkout, or PREFIX/share/diagc)
 *   include_dir()               -> the runtime's headers (holds diagc/model.h)
 *   lib_dir()                   -> the runtime's library (holds libdiagc.a)
 *   tcc_compile(source[, opts]) -> handle[, warnings] | nil, errors
 *       opts.include_paths = {dir, ...}, opts.defines = {NAME = "value"|true},
 *       opts.options = "-Wall -Werror", opts.name = "chunk name"
 *   tcc_symbol(handle, name)    -> lightuserdata | nil
 *   lex_c(text)                 -> {{kind=, text=, line=, col=}, ...} | nil, "line:col: message"
 *   xml_parse(text, name)       -> {tag=, attrs=, children=, text=, line=, col=} (the root
 *       element) | nil, "name:line:col: message", line, col, message (libexpat; xml_lua.c)
 *   stat(path)                  -> {kind=, dev=, ino=} | nil, err, errno
 *   isatty(fd)                  -> boolean
 *   now()                       -> monotonic seconds (double)
 *   read_source(path, max)      -> text | nil, why   (regular files only,
 *       at most `max` bytes; never blocks on a FIFO or device)
 *   set_timeout(seconds, line)  -> arms (seconds > 0) or disarms the
 *       command's wall-clock limit: when it expires, `line` is written to
 *       stderr, the temporary files of track_temp are removed, the command
 *       of run_isolated is killed, and the process exits with status 2
 *       (enforced by a signal, so it also stops JIT-compiled Lua loops,
 *       which never call hooks; stop.c)
 *   set_stop_note(line | nil)   -> a line written to stderr when SIGINT, SIGTERM or SIGHUP ends
 *       diagc (diagc sweep --mpi: the runs a lost rank left unfinished)
 *   track_temp(path, on)        -> a temporary file being written (cli/output.lua) that the timeout
 *       or a signal removes (on) or no longer removes (off)
 *   run_isolated(argv, files)   -> status, output | nil, why: runs a command (the strict C
 *       check's compiler) in a private temporary directory holding `files`, in a process
 *       group of its own that a timeout or a signal kills (stop.c)
 *   memory_limit([bytes])       -> the Lua heap limit in bytes (sets it)
 *   memory_exceeded()           -> true once an allocation hit the limit
 *
 * The first call of tcc_symbol() disarms the timeout: from there on the
 * command runs compiled user C (diagc run), whose length is the user's.
 *
 * Code compiled by tcc_compile stays valid while its handle is reachable;
 * the handle's __gc frees it.  Undefined symbols in that code resolve
 * against this executable (linked -rdynamic with the whole runtime
 * library) and the shared libraries it loaded (libc, libm, libdl).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <libtcc.h>

#include "lex_lua.h"
#include "read_source.h"
#include "stop.h"
#include "xml_lua.h"

#define EXIT_INTERNAL 70
#define TCC_HANDLE_MT "diagc_host.tcc_state"
#define DEFAULT_TCC_LIB "/usr/lib/x86_64-linux-gnu/tcc"

static char *g_root;    /* Lua modules: g_root/generator/diagc */
static char *g_include; /* runtime headers: g_include/diagc/model.h, ... */
static char *g_lib;     /* runtime library: g_lib/libdiagc.a */

/* ------------------------------------------------------------------ */
/* Lua heap limit                                                      */

/* Every Lua allocation goes through limited_alloc(): past the limit an
 * allocation fails, which Lua reports as "not enough memory".  After the
 * first failure a reserve of MEM_RESERVE bytes is allowed, so the error
 * can still be formatted and printed. */
#define DEFAULT_MEM_LIMIT ((size_t)2048 << 20) /* 2 GiB */
#define MEM_RESERVE ((size_t)64 << 20)

typedef struct mem_state {
  lua_Alloc inner;
  void *inner_ud;
  size_t used, limit;
  int exceeded;
} mem_state;

static mem_state g_mem;

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mem_state *m = ud;
  void *p;
  if (ptr == NULL) osize = 0;
  if (nsize > osize) {
    size_t cap = m->limit + (m->exceeded ? MEM_RESERVE : 0);
    if (m->limit > 0 && (nsize - osize > cap || m->used > cap - (nsize - osize))) {
      m->exceeded = 1;
      return NULL;
    }
  }
  p = m->inner(m->inner_ud, ptr, osize, nsize);
  if (p == NULL && nsize > 0) return NULL;
  m->used = (m->used > osize ? m->used - osize : 0) + nsize;
  return p;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p == NULL) {
    fputs("diagc: out of memory\n", stderr);
    exit(EXIT_INTERNAL);
  }
  memcpy(p, s, n);
  return p;
}

/* Removes the last path component of `path` in place ("/a/b" -> "/a",
 * "/a" -> "/"). */
static void strip_component(char *path) {
  char *slash = strrchr(path, '/');
  if (slash == NULL) {
    strcpy(path, ".");
  } else if (slash == path) {
    path[1] = '\0';
  } else {
    *slash = '\0';
  }
}

static char *join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = malloc(na + nb + 2);
  if (p == NULL) {
    fputs("diagc: out of memory\n", stderr);
    exit(EXIT_INTERNAL);
  }
  memcpy(p, a, na);
  if (na > 0 && a[na - 1] == '/') na--; /* "/" + "x" -> "/x" */
  p[na] = '/';
  memcpy(p + na + 1, b, nb + 1);
  return p;
}

/* 1 if DIR/REL is a regular file. */
static int has_file(const char *dir, const char *rel) {
  struct stat st;
  char *p = join(dir, rel);
  int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
  free(p);
  return ok;
}

/* realpath(DIR/REL), or NULL. */
static char *resolve(const char *dir, const char *rel) {
  char *p = join(dir, rel), *r = realpath(p, NULL);
  free(p);
  return r;
}

/* A copy of `s` with control characters as \xNN, for one-line messages
 * (the caller exits right after: not freed). */
static char *esc(const char *s) {
  size_t n = strlen(s), i, j = 0;
  char *p = malloc(4 * n + 1);
  if (p == NULL) return (char *)s;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f) j += (size_t)sprintf(p + j, "\\x%02x", c);
    else p[j++] = (char)c;
  }
  p[j] = '\0';
  return p;
}

#define DRIVER_LUA "generator/diagc/driver.lua"
#define MODEL_H "diagc/model.h"

/* Where diagc finds its files (docs/install.md, "How diagc finds its
 * files").  ROOT holds the Lua modules (ROOT/generator/diagc/) and VERSION;
 * the runtime's headers and library sit beside it in one of two layouts:
 *   source tree  ROOT = the checkout       headers ROOT/runtime/include, library ROOT/lib
 *   installed    ROOT = PREFIX/share/diagc headers PREFIX/include,       library PREFIX/lib
 * ROOT is, in this order: $DIAGC_ROOT if set; else, from the directory BIN
 * of the executable (symlinks resolved), BIN/.. if it holds the modules
 * (source tree), else BIN/../share/diagc (installed).  Nothing found is a
 * one-line error naming the places searched, exit status 2. */
static void find_root(const char *argv0) {
  const char *env = getenv("DIAGC_ROOT");
  char *exe, *root = NULL, *inc, *up = NULL, *share = NULL;
  if (env != NULL && env[0] != '\0') {
    if (!has_file(env, DRIVER_LUA)) {
      fprintf(stderr, "diagc: DIAGC_ROOT=%s does not contain %s; unset DIAGC_ROOT, or point it at a "
              "diagc checkout or at PREFIX/share/diagc\n", esc(env), DRIVER_LUA);
      exit(2);
    }
    root = realpath(env, NULL);
  } else {
    exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL && argv0 != NULL) exe = realpath(argv0, NULL);
    if (exe == NULL) {
      fputs("diagc: cannot locate the diagc executable (/proc/self/exe is unreadable); "
            "set DIAGC_ROOT to PREFIX/share/diagc or to a diagc checkout\n", stderr);
      exit(2);
    }
    strip_component(exe); /* BIN */
    up = xstrdup(exe);
    strip_component(up); /* BIN/.. */
    share = join(up, "share/diagc");
    if (has_file(up, DRIVER_LUA)) root = realpath(up, NULL);
    else if (has_file(share, DRIVER_LUA)) root = realpath(share, NULL);
    if (root == NULL) {
      fprintf(stderr, "diagc: cannot find the Lua modules: no %s in %s or %s; "
              "reinstall with make install, or set DIAGC_ROOT to PREFIX/share/diagc or to a diagc checkout\n",
              DRIVER_LUA, esc(up), esc(share));
      exit(2);
    }
    free(exe);
  }
  if (root == NULL) {
    fprintf(stderr, "diagc: cannot resolve DIAGC_ROOT=%s: %s\n", esc(env), strerror(errno));
    exit(2);
  }
  g_root = root;
  inc = join(root, "runtime/include");
  if (has_file(inc, MODEL_H)) {
    g_include = realpath(inc, NULL);
    g_lib = join(root, "lib");
  } else {
    char *prefix = resolve(root, "../..");
    char *pinc = prefix ? join(prefix, "include") : NULL;
    if (pinc == NULL || !has_file(pinc, MODEL_H)) {
      fprintf(stderr, "diagc: cannot find the runtime headers: no %s in %s or %s; "
              "reinstall with make install\n", MODEL_H, esc(inc), pinc ? esc(pinc) : "PREFIX/include");
      exit(2);
    }
    g_include = pinc;
    g_lib = join(prefix, "lib");
    free(prefix);
  }
  free(inc);
  free(up);
  free(share);
  if (g_include == NULL) g_include = xstrdup(".");
  if (strchr(g_include, ':') != NULL) {
    /* TinyCC splits an include path at ':' (a list of folders) */
    fprintf(stderr, "diagc: the runtime headers are in %s, whose path holds ':', which the "
            "in-process compiler reads as a list separator; install or move diagc to a folder "
            "without ':'\n", esc(g_include));
    exit(2);
  }
}

/* ------------------------------------------------------------------ */
/* TinyCC                                                              */

typedef struct tcc_handle {
  TCCState *s;
  int relocated;
  char *msgs; /* every error/warning, joined with "\n" */
  size_t len, cap;
} tcc_handle;

static void tcc_on_message(void *opaque, const char *msg) {
  tcc_handle *h = opaque;
  size_t n = strlen(msg), need = h->len + n + 2;
  if (need > h->cap) {
    size_t cap = h->cap ? h->cap : 256;
    char *p;
    while (cap < need) cap *= 2;
    p = realloc(h->msgs, cap);
    if (p == NULL) return; /* drop the message rather than fail inside tcc */
    h->msgs = p;
    h->cap = cap;
  }
  if (h->len > 0) h->msgs[h->len++] = '\n';
  memcpy(h->msgs + h->len, msg, n);
  h->len += n;
  h->msgs[h->len] = '\0';
}

static void tcc_handle_free(tcc_handle *h) {
  if (h->s != NULL) tcc_delete(h->s);
  h->s = NULL;
  h->relocated = 0;
  free(h->msgs);
  h->msgs = NULL;
  h->len = h->cap = 0;
}

static int tcc_handle_gc(lua_State *L) {
  tcc_handle *h = luaL_checkudata(L, 1, TCC_HANDLE_MT);
  tcc_handle_free(h);
  return 0;
}

static int tcc_handle_tostring(lua_State *L) {
  tcc_handle *h = luaL_checkudata(L, 1, TCC_HANDLE_MT);
  lua_pushfstring(L, "tcc_state (%s%p)", h->s ? "" : "closed, ", (void *)h);
  return 1;
}

static const char *tcc_lib_dir(void) {
  const char *env = getenv("DIAGC_TCC_LIB");
  return (env != NULL && env[0] != '\0') ? env : DEFAULT_TCC_LIB;
}

/* tcc_set_options() calls exit(1) on an unknown option (a fatal tcc_error
 * outside of compilation).  So each distinct options string is first tried
 * in a forked child; returns 1 if it is safe, else 0 with the child's
 * messages in `err`.  Accepted strings are remembered. */
static char *g_ok_options[16];

static void tcc_on_message_fd(void *opaque, const char *msg) {
  int fd = *(int *)opaque;
  size_t n = strlen(msg), off = 0;
  while (off < n) {
    ssize_t w = write(fd, msg + off, n - off);
    if (w <= 0) return;
    off += (size_t)w;
  }
  if (write(fd, "\n", 1) < 0) return;
}

static int tcc_options_ok(const char *options, char *err, size_t errcap) {
  int fds[2], status = 0, i;
  size_t n = 0;
  ssize_t r;
  pid_t pid;
  err[0] = '\0';
  for (i = 0; i < 16 && g_ok_options[i] != NULL; i++)
    if (strcmp(g_ok_options[i], options) == 0) return 1;
  if (pipe(fds) != 0) return 1; /* cannot check: let tcc have it */
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return 1;
  }
  if (pid == 0) {
    TCCState *s;
    close(fds[0]);
    s = tcc_new();
    if (s != NULL) {
      tcc_set_error_func(s, &fds[1], tcc_on_message_fd);
      tcc_set_options(s, options);
      tcc_delete(s);
    }
    _exit(0);
  }
  close(fds[1]);
  for (;;) {
    r = read(fds[0], err + n, errcap - 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
    if (n >= errcap - 1) break;
  }
  err[n] = '\0';
  while (n > 0 && err[n - 1] == '\n') err[--n] = '\0';
  close(fds[0]);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    for (i = 0; i < 16; i++) {
      if (g_ok_options[i] == NULL) {
        g_ok_options[i] = xstrdup(options);
        break;
      }
    }
    return 1;
  }
  return 0;
}

/* Pushes nil and the collected messages (or a generic one); frees h. */
static int tcc_fail(lua_State *L, tcc_handle *h, const char *name, const char *what) {
  lua_pushnil(L);
  if (h->len > 0)
    lua_pushlstring(L, h->msgs, h->len);
  else
    lua_pushfstring(L, "%s: %s", name, what);
  tcc_handle_free(h);
  return 2;
}

/* Reads opts[field] as an optional string (nil if absent). */
static const char *opt_string(lua_State *L, int opts, const char *field) {
  const char *s = NULL;
  if (opts == 0) return NULL;
  lua_getfield(L, opts, field);
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "tcc_compile: opts.%s must be a string", field);
    s = lua_tostring(L, -1); /* kept alive by the opts table */
  }
  lua_pop(L, 1);
  return s;
}

static int l_tcc_compile(lua_State *L) {
  size_t srclen;
  const char *src = luaL_checklstring(L, 1, &srclen);
  int opts = 0;
  const char *name, *options, *lib = tcc_lib_dir();
  tcc_handle *h;

  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    opts = 2;
  }
  name = opt_string(L, opts, "name");
  if (name == NULL) name = "<string>";
  options = opt_string(L, opts, "options");
  if (memchr(src, '\0', srclen) != NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: source contains a NUL byte", name);
    return 2;
  }
  if (options != NULL) {
    char err[1024];
    if (!tcc_options_ok(options, err, sizeof err)) {
      lua_pushnil(L);
      if (err[0] != '\0')
        lua_pushstring(L, err);
      else
        lua_pushfstring(L, "%s: invalid tcc options \"%s\"", name, options);
      return 2;
    }
  }

  h = lua_newuserdata(L, sizeof *h);
  memset(h, 0, sizeof *h);
  luaL_getmetatable(L, TCC_HANDLE_MT);
  lua_setmetatable(L, -2);
  /* From here on a Lua error leaves h to the garbage collector. */

  h->s = tcc_new();
  if (h->s == NULL) return tcc_fail(L, h, name, "tcc_new failed");
  tcc_set_error_func(h->s, h, tcc_on_message);
  tcc_set_lib_path(h->s, lib);
  if (options != NULL) tcc_set_options(h->s, options);
  if (tcc_set_output_type(h->s, TCC_OUTPUT_MEMORY) < 0)
    return tcc_fail(L, h, name, "tcc_set_output_type failed");

  lua_pushfstring(L, "%s/include", lib);
  tcc_add_sysinclude_path(h->s, lua_tostring(L, -1));
  lua_pop(L, 1);
  tcc_add_include_path(h->s, g_include);

  if (opts != 0) {
    lua_getfield(L, opts, "include_paths");
    if (!lua_isnil(L, -1)) {
      int i, n;
      luaL_checktype(L, -1, LUA_TTABLE);
      n = (int)lua_objlen(L, -1);
      for (i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING)
          return luaL_error(L, "tcc_compile: opts.include_paths[%d] must be a string", i);
        tcc_add_include_path(h->s, lua_tostring(L, -1));
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);

    lua_getfield(L, opts, "defines");
    if (!lua_isnil(L, -1)) {
      int t = lua_gettop(L);
      luaL_checktype(L, t, LUA_TTABLE);
      lua_pushnil(L);
      while (lua_next(L, t) != 0) {
        const char *value = NULL;
        if (lua_type(L, -2) != LUA_TSTRING)
          return luaL_error(L, "tcc_compile: opts.defines keys must be strings");
        if (lua_type(L, -1) == LUA_TBOOLEAN) {
          if (!lua_toboolean(L, -1)) { /* false: not defined */
            lua_pop(L, 1);
            continue;
          }
        } else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
          lua_pushvalue(L, -1); /* convert a copy, not the value lua_next sees */
          value = lua_tostring(L, -1);
          lua_replace(L, -2);
        } else {
          return luaL_error(L, "tcc_compile: opts.defines.%s must be a string, number or boolean",
                            lua_tostring(L, -2));
        }
        tcc_define_symbol(h->s, lua_tostring(L, -2), value);
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }

  if (tcc_compile_string(h->s, src) < 0) return tcc_fail(L, h, name, "compilation failed");
#ifdef TCC_RELOCATE_AUTO
  if (tcc_relocate(h->s, TCC_RELOCATE_AUTO) < 0) return tcc_fail(L, h, name, "relocation failed");
#else
  if (tcc_relocate(h->s) < 0) return tcc_fail(L, h, name, "relocation failed");
#endif
  h->relocated = 1;
  if (h->len > 0) { /* warnings */
    lua_pushlstring(L, h->msgs, h->len);
    free(h->msgs);
    h->msgs = NULL;
    h->len = h->cap = 0;
    return 2;
  }
  return 1;
}

static int l_tcc_symbol(lua_State *L) {
  tcc_handle *h = luaL_checkudata(L, 1, TCC_HANDLE_MT);
  const char *name = luaL_checkstring(L, 2);
  void *p;
  if (h->s == NULL || !h->relocated) return luaL_error(L, "tcc_symbol: handle is not usable");
  diagc_stop_disarm_timeout(); /* user C is about to run: its time is the user's */
  p = tcc_get_symbol(h->s, name);
  if (p == NULL)
    lua_pushnil(L);
  else
    lua_pushlightuserdata(L, p);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Lexer, files, misc                                                  */

static int push_errno(lua_State *L, const char *path, int err) {
  lua_pushnil(L);
  lua_pushfstring(L, "%s: %s", path, strerror(err));
  return 2;
}

/* stat(path) -> {kind = "file"|"directory"|"other", dev =, ino =} | nil, err, errno
 * (follows symlinks): lets the CLI replace regular files atomically, write
 * devices and FIFOs in place, and refuse to overwrite its input. */
static int l_stat(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  struct stat st;
  if (stat(path, &st) != 0) {
    int err = errno;
    push_errno(L, path, err);
    lua_pushinteger(L, err);
    return 3;
  }
  lua_createtable(L, 0, 3);
  lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" : "other");
  lua_setfield(L, -2, "kind");
  lua_pushnumber(L, (lua_Number)st.st_dev);
  lua_setfield(L, -2, "dev");
  lua_pushnumber(L, (lua_Number)st.st_ino);
  lua_setfield(L, -2, "ino");
  return 1;
}


static int l_memory_limit(lua_State *L) {
  if (!lua_isnoneornil(L, 1)) {
    lua_Number n = luaL_checknumber(L, 1);
    g_mem.limit = n > 0 ? (size_t)n : 0;
  }
  lua_pushnumber(L, (lua_Number)g_mem.limit);
  return 1;
}

static int l_memory_exceeded(lua_State *L) {
  lua_pushboolean(L, g_mem.exceeded);
  return 1;
}

static int l_isatty(lua_State *L) {
  int fd = (int)luaL_checkinteger(L, 1);
  lua_pushboolean(L, isatty(fd));
  return 1;
}

static int l_now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
  return 1;
}

static int l_root(lua_State *L) {
  lua_pushstring(L, g_root);
  return 1;
}

static int l_include_dir(lua_State *L) {
  lua_pushstring(L, g_include);
  return 1;
}

static int l_lib_dir(lua_State *L) {
  lua_pushstring(L, g_lib);
  return 1;
}

static const luaL_Reg host_funcs[] = {
  {"root", l_root},
  {"include_dir", l_include_dir},
  {"lib_dir", l_lib_dir},
  {"tcc_compile", l_tcc_compile},
  {"tcc_symbol", l_tcc_symbol},
  {"lex_c", diagc_lex_c_lua},
  {"xml_parse", diagc_xml_parse_lua},
  {"stat", l_stat},
  {"isatty", l_isatty},
  {"now", l_now},
  {"read_source", diagc_read_source_lua},
  {"set_timeout", diagc_set_timeout_lua},
  {"memory_limit", l_memory_limit},
  {"track_temp", diagc_track_temp_lua},
  {"set_stop_note", diagc_set_stop_note_lua},
  {"run_isolated", diagc_run_isolated_lua},
  {"memory_exceeded", l_memory_exceeded},
  {NULL, NULL}
};

static int luaopen_diagc_host(lua_State *L) {
  if (luaL_newmetatable(L, TCC_HANDLE_MT)) {
    lua_pushcfunction(L, tcc_handle_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, tcc_handle_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
  }
  lua_pop(L, 1);
  lua_newtable(L);
  luaL_register(L, NULL, host_funcs);
  return 1;
}

/* ------------------------------------------------------------------ */
/* main                                                                */

/* Message handler: turns any error value into "msg\nstack traceback:...". */
static int on_error(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

typedef struct pmain_args {
  int argc;
  char **argv;
} pmain_args;

/* A package.loaders entry: require("a.b") loads ROOT/generator/a/b.lua or
 * ROOT/generator/a/b/init.lua.  ROOT is used as a plain path, never put into
 * package.path, where ';' and '?' would mean something else (a checkout or
 * an install may live in any folder). */
static int root_searcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *forms[] = {"%s/generator/%s.lua", "%s/generator/%s/init.lua"};
  luaL_Buffer tried;
  char *rel = xstrdup(name), *c;
  int k;
  for (c = rel; *c != '\0'; c++)
    if (*c == '.') *c = '/';
  luaL_buffinit(L, &tried);
  for (k = 0; k < 2; k++) {
    size_t n = strlen(g_root) + strlen(rel) + 32;
    char *path = malloc(n);
    struct stat st;
    if (path == NULL) break;
    snprintf(path, n, forms[k], g_root, rel);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      free(rel);
      luaL_pushresult(&tried);
      lua_pop(L, 1);
      if (luaL_loadfile(L, path) != 0) {
        free(path);
        return luaL_error(L, "error loading module '%s':\n\t%s", name, lua_tostring(L, -1));
      }
      free(path);
      return 1;
    }
    lua_pushfstring(L, "\n\tno file '%s'", path);
    luaL_addvalue(&tried);
    free(path);
  }
  free(rel);
  luaL_pushresult(&tried);
  return 1;
}

static int pmain(lua_State *L) {
  pmain_args *a = lua_touserdata(L, 1);
  int i;

  luaL_openlibs(L);

  lua_getglobal(L, "package");
  /* the root's modules are found by root_searcher, right after the
   * preloaded ones (package.loaders[2]) */
  lua_getfield(L, -1, "loaders");
  for (i = (int)lua_objlen(L, -1); i >= 2; i--) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushcfunction(L, root_searcher);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 1);
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_diagc_host);
  lua_setfield(L, -2, "diagc_host");
  lua_pop(L, 2);

  lua_getglobal(L, "require");
  lua_pushliteral(L, "diagc.driver");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "main");
  if (!lua_isfunction(L, -1)) return luaL_error(L, "diagc.driver.main is not a function");
  lua_createtable(L, a->argc > 1 ? a->argc - 1 : 0, 0);
  for (i = 1; i < a->argc; i++) {
    lua_pushstring(L, a->argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_call(L, 1, 1);
  return 1;
}

int main(int argc, char **argv) {
  lua_State *L;
  pmain_args a;
  int status, code = 0;

  diagc_stop_init();
  find_root(argc > 0 ? argv[0] : NULL);
  L = luaL_newstate();
  if (L == NULL) {
    fputs("diagc: internal error: cannot create a Lua state\n", stderr);
    return EXIT_INTERNAL;
  }
  g_mem.inner = lua_getallocf(L, &g_mem.inner_ud);
  g_mem.limit = DEFAULT_MEM_LIMIT;
  {
    /* DIAGC_LUA_MEMORY_MB: another Lua heap limit in MiB (0: none) */
    const char *env = getenv("DIAGC_LUA_MEMORY_MB");
    if (env != NULL && env[0] != '\0') g_mem.limit = (size_t)strtoull(env, NULL, 10) << 20;
  }
  g_mem.used = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
  lua_setallocf(L, limited_alloc, &g_mem);
  a.argc = argc;
  a.argv = argv;
  lua_pushcfunction(L, on_error);
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, &a);
  status = lua_pcall(L, 1, 1, 1);
  if (status != 0 && (status == LUA_ERRMEM || g_mem.exceeded)) {
    fprintf(stderr, "diagc: the Lua heap reached its limit of %lu MiB (a spec too large, or "
            "building huge strings or tables); make the spec smaller\n", (unsigned long)(g_mem.limit >> 20));
    code = 2;
  } else if (status != 0) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "diagc: internal error: %s\n", msg ? msg : "(no message)");
    code = EXIT_INTERNAL;
  } else if (lua_type(L, -1) == LUA_TNUMBER) {
    code = (int)lua_tonumber(L, -1);
  } else if (lua_type(L, -1) == LUA_TBOOLEAN) {
    code = lua_toboolean(L, -1) ? 0 : 1;
  }
  fflush(stdout);
  lua_close(L);
  free(g_root);
  free(g_include);
  free(g_lib);
  return code;
}
