/* tests/fuzz/fuzz_spec.c: libFuzzer target for the spec pipeline.
 *
 * Each input is a spec file (built with -DDIAGC_FUZZ_URDF, as fuzz_urdf:
 * a URDF document, imported by a fixed spec; below).  A fresh LuaJIT state
 * (interpreter only, so
 * that instruction-count hooks fire everywhere) loads diagc's modules from
 * DIAGC_ROOT/generator, writes the input to a scratch file and runs
 *   spec.load -> check -> flatten -> tickets -> masks -> coder
 * (diagc.compile.compile) with the C lexer as `lex`; TinyCC is not used.
 *
 * Outcomes:
 *   - success, or a diagc error (errors.is) whose text is one line: fine;
 *   - any other Lua error (an internal error: bin/diagc would exit 70), a
 *     diagc error whose message spans lines or has no text, a sanitizer
 *     report, a crash: a finding (abort());
 *   - the generator running past DIAGC_FUZZ_BUDGET Lua instructions
 *     (default 2e9, about a minute with the hooks) with no spec code on the
 *     stack: a finding (a hang);
 *   - the spec's own code running past DIAGC_FUZZ_SPEC_BUDGET instructions
 *     (default 1e8: a loop in the spec), or the state running out of its
 *     DIAGC_FUZZ_MEM_MB (default 512) megabytes: not a finding; counted
 *     and printed at exit.
 * DIAGC_FUZZ_ONE_LINE=0 turns off the one-line check of diagc errors (to
 * look for other findings while a known message bug is being fixed).
 * Set DIAGC_FUZZ_VERBOSE=1 to print every input's outcome.
 *
 * fuzz_urdf writes the input as robot.urdf next to a spec that imports it
 * into a world with a ground plane: base "fixed", gradients = false; an
 * input of odd size gets base "free", a prefix, a placement and every
 * movable joint actuated (the effort exported; a robot without one is then
 * a diagc error); one whose size is a multiple of 8 also the step's Jacobians
 * (gradients on: cdiff on the imported tree).  The variant follows from the
 * input, so a reproducer reproduces.
 *
 * The host functions the pipeline calls are bin/diagc's: lex_c, xml_parse
 * (libexpat), read_source; the runtime is linked (world/step.lua asks its
 * workspace sizes through ffi.C).
 *
 * Coverage: libFuzzer sees the C code it instruments (the lexer), not the
 * Lua code of the pipeline, so a line hook counts the lines of diagc's
 * modules that run (hashed by module name and line) in libFuzzer's extra
 * counters: inputs that reach new lines of the checker, flattener, ticket
 * and mask stages or the coder are kept in the corpus.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

#include "c_lexer.h"
#include "lex_lua.h"
#include "read_source.h"
#include "xml_lua.h"

#ifndef DIAGC_ROOT
#error "build with -DDIAGC_ROOT=\"/path/to/diagc\""
#endif

static char g_dir[64];
static char g_spec[96];
static char g_urdf[96];
static double g_budget = 2e9, g_spec_limit = 1e8;
static size_t g_mem_cap = (size_t)512 << 20;
static int g_verbose, g_one_line = 1;
static unsigned long g_runs, g_ok, g_diagc_err, g_spec_budget, g_oom;

/* ---- the state's allocator, capped ------------------------------------ */

typedef struct mem {
  size_t used;
} mem;

static void *capped_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  mem *m = ud;
  size_t old = p ? osize : 0;
  void *q;
  if (nsize == 0) {
    free(p);
    m->used -= old;
    return NULL;
  }
  if (nsize > old && m->used - old + nsize > g_mem_cap) return NULL;
  q = realloc(p, nsize);
  if (q != NULL) m->used = m->used - old + nsize;
  return q;
}

/* ---- diagc_host, the part the pipeline uses (lex_c) -------------------- */

/* lex_c: generator/lexer/lex_lua.c, as in bin/diagc. */

static int l_root(lua_State *L) {
  lua_pushstring(L, DIAGC_ROOT);
  return 1;
}

static int luaopen_host(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, diagc_lex_c_lua);
  lua_setfield(L, -2, "lex_c");
  lua_pushcfunction(L, diagc_xml_parse_lua);
  lua_setfield(L, -2, "xml_parse");
  lua_pushcfunction(L, diagc_read_source_lua);
  lua_setfield(L, -2, "read_source");
  lua_pushcfunction(L, l_root);
  lua_setfield(L, -2, "root");
  return 1;
}

/* ---- the instruction budget -------------------------------------------- */

#define HOOK_EVERY 10000
static double g_count;

/* ---- Lua line coverage, as libFuzzer extra counters ---------------------- */

#define LUA_COV_SIZE (1u << 16)
__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t g_lua_cov[LUA_COV_SIZE];

/* Hashes of chunk names, by the address of the (interned) name: valid
 * within one state, cleared for each input. */
#define SRC_CACHE 64
static struct {
  const char *ptr;
  uint32_t hash; /* 0: not counted (the spec itself) */
} g_src_cache[SRC_CACHE];

static uint32_t source_hash(const char *src) {
  size_t slot = ((uintptr_t)src >> 4) % SRC_CACHE;
  uint32_t h = 2166136261u;
  const char *p;
  if (g_src_cache[slot].ptr == src) return g_src_cache[slot].hash;
  if (src[0] == '@' && strncmp(src + 1, g_dir, strlen(g_dir)) == 0) {
    h = 0;
  } else {
    /* the module's path below generator/, so that it does not depend on
     * where the checkout is */
    p = strstr(src, "/generator/");
    for (p = p ? p : src; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    if (h == 0) h = 1;
  }
  g_src_cache[slot].ptr = src;
  g_src_cache[slot].hash = h;
  return h;
}

static void line_hook(lua_State *L, lua_Debug *ar) {
  uint32_t h;
  if (!lua_getinfo(L, "S", ar)) return;
  h = source_hash(ar->source);
  if (h != 0) {
    uint8_t *c = &g_lua_cov[(h ^ ((uint32_t)ar->currentline * 2654435761u)) % LUA_COV_SIZE];
    if (*c < 255) (*c)++;
  }
}

/* Whether a frame on the stack runs code from the scratch spec directory. */
static int spec_on_stack(lua_State *L) {
  lua_Debug ar;
  int level;
  size_t n = strlen(g_dir);
  for (level = 0; lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "S", &ar) && ar.source[0] == '@' &&
        strncmp(ar.source + 1, g_dir, n) == 0)
      return 1;
  }
  return 0;
}

static void budget_hook(lua_State *L, lua_Debug *ar) {
  if (ar->event == LUA_HOOKLINE) {
    line_hook(L, ar);
    return;
  }
  g_count += HOOK_EVERY;
  if (g_count < g_spec_limit) return;
  if (spec_on_stack(L)) {
    luaL_error(L, "diagc-fuzz: the spec's instruction budget is spent");
    return;
  }
  if (g_count < g_budget) return;
  luaL_traceback(L, L, "diagc-fuzz: the generator ran past the instruction budget", 0);
  fprintf(stderr, "%s\n", lua_tostring(L, -1));
  fprintf(stderr, "FINDING: hang in the generator (DIAGC_FUZZ_BUDGET=%g)\n", g_budget);
  abort();
}

/* ---- the pipeline ------------------------------------------------------- */

/* Returns "ok", "diagc: MSG", "budget", "oom", or "internal: MSG\nTRACE". */
static const char *driver_lua =
  "local path, one_line = ...\n"
  "local errors = require('diagc.errors')\n"
  "local host = require('diagc_host')\n"
  "local ok, e = xpcall(function()\n"
  "  require('diagc.compile').compile(path, { lex = host.lex_c })\n"
  "end, function(e)\n"
  "  if errors.is(e) then return e end\n"
  "  return { internal = true, msg = tostring(e), trace = debug.traceback('', 2) }\n"
  "end)\n"
  "if ok then return 'ok' end\n"
  "if e.internal then\n"
  "  if e.msg:find('diagc-fuzz: the spec', 1, true) then return 'budget' end\n"
  "  if e.msg:find('not enough memory', 1, true) then return 'oom' end\n"
  "  return 'internal: ' .. e.msg .. e.trace\n"
  "end\n"
  "local text = errors.format(e)\n"
  "if text:find('diagc-fuzz: the spec', 1, true) then return 'budget' end\n"
  "if text:find('not enough memory', 1, true) then return 'oom' end\n"
  "if type(text) ~= 'string' or text == '' then return 'internal: diagc error without text' end\n"
  "if one_line and text:find('[%z\\1-\\31\\127]') then\n"
  "  return 'internal: diagc error with a control character: ' .. string.format('%q', text)\n"
  "end\n"
  "return 'diagc: ' .. text\n";

static void setup_paths(lua_State *L) {
  lua_getglobal(L, "package");
  lua_pushstring(L, DIAGC_ROOT "/generator/?.lua;" DIAGC_ROOT "/generator/?/init.lua");
  lua_setfield(L, -2, "path");
  lua_pushliteral(L, "");
  lua_setfield(L, -2, "cpath");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_host);
  lua_setfield(L, -2, "diagc_host");
  lua_pop(L, 2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *s;
  (void)argc;
  (void)argv;
  snprintf(g_dir, sizeof g_dir, "/tmp/diagc-fuzz-%ld", (long)getpid());
  snprintf(g_spec, sizeof g_spec, "%s/spec.lua", g_dir);
  snprintf(g_urdf, sizeof g_urdf, "%s/robot.urdf", g_dir);
  if ((s = getenv("DIAGC_FUZZ_BUDGET")) != NULL) g_budget = atof(s);
  if ((s = getenv("DIAGC_FUZZ_SPEC_BUDGET")) != NULL) g_spec_limit = atof(s);
  if ((s = getenv("DIAGC_FUZZ_MEM_MB")) != NULL) g_mem_cap = (size_t)atol(s) << 20;
  if ((s = getenv("DIAGC_FUZZ_ONE_LINE")) != NULL) g_one_line = s[0] != '0';
  g_verbose = (s = getenv("DIAGC_FUZZ_VERBOSE")) != NULL && s[0] == '1';
  return 0;
}

static void cleanup(void) {
  fprintf(stderr, "fuzz_spec: %lu runs: %lu generated, %lu diagc errors, "
          "%lu spec budget spent, %lu out of memory\n",
          g_runs, g_ok, g_diagc_err, g_spec_budget, g_oom);
  unlink(g_spec);
  unlink(g_urdf);
  rmdir(g_dir);
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror(path);
    abort();
  }
}

#ifdef DIAGC_FUZZ_URDF
/* fuzz_urdf's spec for an input of `size` bytes (above) */
static const char *urdf_spec(size_t size) {
  static char text[768];
  snprintf(text, sizeof text,
           "local W = world \"w\" {\n"
           "  gradients = %s,\n"
           "  body { \"ground\", joint = { \"fixed\" }, shapes = { { \"plane\" } } },\n"
           "  urdf { \"robot.urdf\"%s },\n"
           "}\n"
           "return diagram \"d\" { system { \"w\", W }%s }\n",
           size % 8 == 0 ? "true" : "false",
           size % 2 ? ", base = \"free\", prefix = \"r_\", xyz = { 0, 0, 1 }, rpy = { 0.1, 0, 0 }, friction = 0.8, "
                      "actuated = \"all\""
                    : "",
           size % 2 ? ", export_input { \"w.effort\", as = \"effort\" }" : "");
  return text;
}
#endif

static void write_input(const uint8_t *data, size_t size) {
  static int made;
  if (!made) {
    if (mkdir(g_dir, 0700) != 0) {
      perror(g_dir);
      abort();
    }
    atexit(cleanup);
    made = 1;
  }
#ifdef DIAGC_FUZZ_URDF
  {
    const char *spec = urdf_spec(size);
    write_file(g_urdf, data, size);
    write_file(g_spec, (const uint8_t *)spec, strlen(spec));
  }
#else
  write_file(g_spec, data, size);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m = {0};
  lua_State *L;
  const char *res;

  write_input(data, size);
  g_runs++;
  L = lua_newstate(capped_alloc, &m);
  if (L == NULL) abort();
  luaL_openlibs(L);
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
  setup_paths(L);
  g_count = 0;
  memset(g_src_cache, 0, sizeof g_src_cache);
  lua_sethook(L, budget_hook, LUA_MASKCOUNT | LUA_MASKLINE, HOOK_EVERY);
  if (luaL_loadbuffer(L, driver_lua, strlen(driver_lua), "=fuzz_driver") != 0) {
    fprintf(stderr, "fuzz_spec: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_pushstring(L, g_spec);
  lua_pushboolean(L, g_one_line);
  if (lua_pcall(L, 2, 1, 0) != 0) {
    /* only the driver itself can get here (out of memory in it, say) */
    res = lua_tostring(L, -1);
    if (res != NULL && strstr(res, "not enough memory") != NULL) {
      g_oom++;
      lua_close(L);
      return 0;
    }
    fprintf(stderr, "FINDING: error outside the pipeline: %s\n", res ? res : "?");
    abort();
  }
  res = lua_tostring(L, -1);
  if (res == NULL) abort();
  if (g_verbose) fprintf(stderr, "fuzz_spec: %s\n", res);
  if (strcmp(res, "ok") == 0) {
    g_ok++;
  } else if (strncmp(res, "diagc: ", 7) == 0) {
    g_diagc_err++;
  } else if (strcmp(res, "budget") == 0) {
    g_spec_budget++;
  } else if (strcmp(res, "oom") == 0) {
    g_oom++;
  } else {
    fprintf(stderr, "FINDING: %s\n", res);
    abort();
  }
  lua_close(L);
  return 0;
}
