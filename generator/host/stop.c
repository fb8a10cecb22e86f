/* generator/host/stop.c: how bin/diagc stops, leaving nothing behind.
 *
 * The command's wall-clock limit (SIGALRM), SIGINT, SIGTERM and SIGHUP all
 * end diagc the same way: every temporary file it is writing (track_temp)
 * is removed, the external command it is running (run_isolated: the strict
 * C check's compiler) is killed with its whole process group and its
 * private directory removed; then a timeout prints its line and exits with
 * status 2, a signal ends diagc with that signal.  Only diagc's own process
 * does this: a forked child (a `diagc test` test) dies the default way,
 * and its parent kills its process group.
 *
 * The handler itself only unlinks known paths, kills and writes (all
 * async-signal-safe).  While run_isolated waits for its command, the
 * handler kills the command's group and returns; run_isolated then removes
 * the directory (which the compiler may have filled with files of its own)
 * and finishes the stop. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <dirent.h>
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

#include "stop.h"

static pid_t g_main_pid;

static char g_timeout_line[1024];
static size_t g_timeout_len;

/* Temporary files the Lua side is writing (cli/output.lua).  A slot is
 * live while its first byte is set. */
#define MAX_TRACKED 64
static char g_tracked[MAX_TRACKED][PATH_MAX + 64];

/* run_isolated: set while it runs; the command's process group (0 before
 * the fork and after it was reaped); the signal that arrived meanwhile */
static volatile sig_atomic_t g_running;
static volatile sig_atomic_t g_child_group;
static volatile sig_atomic_t g_pending;

/* A line written when a signal ends diagc (set_stop_note): two buffers,
 * the one in use switched only once the other is complete, so a signal
 * never reads half a line. */
static char g_note[2][1024];
static size_t g_note_len[2];
static volatile sig_atomic_t g_note_at = -1;

static void remove_tracked(void) {
  int i;
  for (i = 0; i < MAX_TRACKED; i++)
    if (g_tracked[i][0] != '\0') unlink(g_tracked[i]);
}

/* Ends the process for `sig` (the temporary files are gone). */
static void finish_stop(int sig) {
  remove_tracked();
  if (sig == SIGALRM) {
    ssize_t w = write(2, g_timeout_line, g_timeout_len);
    (void)w;
    _exit(2);
  }
  if (g_note_at >= 0) {
    ssize_t w = write(2, g_note[g_note_at], g_note_len[g_note_at]);
    (void)w;
  }
  signal(sig, SIG_DFL);
  raise(sig); /* in the handler: delivered when it returns */
}

/* set_stop_note(line): `line` is written to stderr when SIGINT, SIGTERM or
 * SIGHUP ends diagc; set_stop_note(nil) forgets it. */
int diagc_set_stop_note_lua(lua_State *L) {
  size_t len;
  const char *line = luaL_optlstring(L, 1, NULL, &len);
  int next = g_note_at == 0 ? 1 : 0;
  if (!line) {
    g_note_at = -1;
    return 0;
  }
  if (len > sizeof g_note[0] - 2) len = sizeof g_note[0] - 2;
  memcpy(g_note[next], line, len);
  g_note[next][len] = '\n';
  g_note_len[next] = len + 1;
  g_note_at = next;
  return 0;
}

static void on_stop(int sig) {
  if (getpid() != g_main_pid) { /* a forked child: the default way */
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if (g_running) {
    g_pending = sig;
    if (g_child_group > 0) kill(-(pid_t)g_child_group, SIGKILL);
    return;
  }
  finish_stop(sig);
}

static void catch_signal(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop; /* no SA_RESTART: run_isolated's waits return */
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

void diagc_stop_init(void) {
  struct sigaction old;
  int sigs[] = {SIGINT, SIGTERM, SIGHUP}, i;
  g_main_pid = getpid();
  for (i = 0; i < 3; i++) {
    /* a signal ignored when diagc started (nohup, a background job's
     * SIGINT) stays ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    catch_signal(sigs[i]);
  }
}

static void arm_timeout(double seconds) {
  struct itimerval it;
  memset(&it, 0, sizeof it);
  if (seconds > 0) {
    catch_signal(SIGALRM);
    if (seconds > 1e8) seconds = 1e8;
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)it.it_value.tv_sec) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
  }
  setitimer(ITIMER_REAL, &it, NULL);
  if (seconds <= 0) signal(SIGALRM, SIG_DFL);
}

void diagc_stop_disarm_timeout(void) {
  if (g_timeout_len > 0) {
    arm_timeout(0);
    g_timeout_len = 0;
  }
}

int diagc_set_timeout_lua(lua_State *L) {
  lua_Number s = luaL_checknumber(L, 1);
  if (s > 0) {
    size_t len;
    const char *line = luaL_checklstring(L, 2, &len);
    if (len > sizeof g_timeout_line - 2) len = sizeof g_timeout_line - 2;
    memcpy(g_timeout_line, line, len);
    g_timeout_line[len] = '\n';
    g_timeout_len = len + 1;
    arm_timeout(s);
  } else {
    arm_timeout(0);
    g_timeout_len = 0;
  }
  return 0;
}

/* track_temp(path, on): a temporary file to remove (on = true) or no
 * longer to remove (on = false) if diagc is stopped. */
int diagc_track_temp_lua(lua_State *L) {
  size_t len;
  const char *path = luaL_checklstring(L, 1, &len);
  int on = lua_toboolean(L, 2), i, slot = -1;
  for (i = 0; i < MAX_TRACKED; i++) {
    if (g_tracked[i][0] != '\0' && strcmp(g_tracked[i], path) == 0) {
      if (!on) g_tracked[i][0] = '\0';
      lua_pushboolean(L, 1);
      return 1;
    }
    if (g_tracked[i][0] == '\0' && slot < 0) slot = i;
  }
  if (on && slot >= 0 && len < sizeof g_tracked[slot] && len > 0) {
    memcpy(g_tracked[slot] + 1, path + 1, len); /* the first byte last: */
    g_tracked[slot][0] = path[0];               /* the slot is whole when live */
  }
  lua_pushboolean(L, !on || slot >= 0);
  return 1;
}

/* ------------------------------------------------------------------ */
/* run_isolated                                                        */

/* Removes `path` and, if it is a directory, what it holds. */
static void remove_tree(const char *path, int depth) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode) && depth < 16) {
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
      char sub[PATH_MAX];
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub)
        remove_tree(sub, depth + 1);
    }
    if (d != NULL) closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) {
      if (g_pending) return -1;
      continue;
    }
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The files of the table at `idx` ({{name=, text=}, ...}) written into
 * dir; NULL or why not. */
static const char *write_files(lua_State *L, int idx, const char *dir) {
  static char why[PATH_MAX + 128];
  size_t i, n = lua_objlen(L, idx);
  for (i = 1; i <= n; i++) {
    const char *name, *text;
    size_t len;
    char path[PATH_MAX];
    int fd, bad;
    lua_rawgeti(L, idx, (int)i);
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "text");
    name = lua_tostring(L, -2);
    text = lua_tolstring(L, -1, &len);
    if (name == NULL || text == NULL || strchr(name, '/') != NULL ||
        snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
      lua_pop(L, 3);
      return "a file to write has no plain name or no text";
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    bad = fd < 0 || write_all(fd, text, len) != 0;
    if (fd >= 0 && close(fd) != 0) bad = 1;
    if (bad) {
      snprintf(why, sizeof why, "cannot write %s: %s", path, strerror(errno));
      lua_pop(L, 3);
      return why;
    }
    lua_pop(L, 3);
  }
  return NULL;
}

/* In the forked child: run argv in dir, output to fd, in a process group
 * of its own when `own_group`. */
static void exec_child(char **argv, const char *dir, int fd, int own_group) {
  int null = open("/dev/null", O_RDONLY);
  sigset_t none;
  /* exec resets the caught signals to their default action */
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (own_group) setpgid(0, 0);
  if (null >= 0) dup2(null, 0);
  dup2(fd, 1);
  dup2(fd, 2);
  if (chdir(dir) != 0 || setenv("TMPDIR", dir, 1) != 0 || setenv("LC_ALL", "C", 1) != 0) _exit(127);
  execvp(argv[0], argv);
  {
    char msg[PATH_MAX + 64];
    int n = snprintf(msg, sizeof msg, "cannot run %s: %s\n", argv[0], strerror(errno));
    if (n > 0 && write(2, msg, (size_t)n) < 0) _exit(127);
  }
  _exit(127);
}

/* Reads fd to its end (or until diagc is stopped) into b, keeping at most
 * `cap` bytes. */
static void read_output(int fd, luaL_Buffer *b, size_t cap) {
  char buf[8192];
  size_t kept = 0;
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) {
      if (g_pending) return; /* the group is killed: do not wait for a straggler */
      continue;
    }
    if (r <= 0) return;
    if (kept < cap) {
      size_t k = (size_t)r < cap - kept ? (size_t)r : cap - kept;
      luaL_addlstring(b, buf, k);
      kept += k;
    }
  }
}

/* Waits for pid to end; its status (exit code, or 128 + signal). */
static int wait_child(pid_t pid) {
  siginfo_t info;
  int status = 0;
  memset(&info, 0, sizeof info);
  /* first without reaping it: while the pid is not reaped, no other
   * process can get it, so killing its group stays safe */
  while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {}
  g_child_group = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

/* run_isolated(argv, files) -> status, output | nil, why
 * Runs argv (argv[1] found on PATH) in a fresh private directory
 * ($TMPDIR/diagc-run.XXXXXX) holding `files` ({{name=, text=}, ...}),
 * with TMPDIR pointing there and LC_ALL=C, stdin /dev/null, stdout and
 * stderr captured together (the first MiB kept).  From diagc's own
 * process the command leads a process group of its own, which a timeout
 * or a signal kills whole.  The directory is removed before it returns. */
int diagc_run_isolated_lua(lua_State *L) {
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX], **argv;
  const char *why = NULL;
  size_t argc, i;
  int fds[2] = {-1, -1}, status = -1, own_group = getpid() == g_main_pid;
  pid_t pid = -1;
  luaL_Buffer b;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  argc = lua_objlen(L, 1);
  if (argc == 0) return luaL_error(L, "run_isolated: empty argv");
  argv = lua_newuserdata(L, (argc + 1) * sizeof *argv);
  for (i = 0; i < argc; i++) {
    lua_rawgeti(L, 1, (int)i + 1);
    argv[i] = (char *)luaL_checkstring(L, -1);
    lua_pop(L, 1); /* the string stays alive in the argv table */
  }
  argv[argc] = NULL;
  if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
  if (snprintf(dir, sizeof dir, "%s/diagc-run.XXXXXX", tmp) >= (int)sizeof dir) {
    lua_pushnil(L);
    lua_pushstring(L, "TMPDIR is too long");
    return 2;
  }
  g_pending = 0;
  g_running = 1;
  if (mkdtemp(dir) == NULL) {
    g_running = 0;
    lua_pushnil(L);
    lua_pushfstring(L, "cannot create a directory in %s: %s", tmp, strerror(errno));
    return 2;
  }
  why = write_files(L, 2, dir);
  if (why == NULL && !g_pending) {
    if (pipe(fds) != 0) {
      why = strerror(errno);
    } else {
      fflush(NULL);
      pid = fork();
      if (pid == 0) exec_child(argv, dir, fds[1], own_group);
      if (pid < 0) why = strerror(errno);
      close(fds[1]);
      if (pid > 0) {
        luaL_buffinit(L, &b);
        if (own_group) {
          setpgid(pid, pid); /* also here: whichever runs first */
          g_child_group = pid;
          if (g_pending) kill(-pid, SIGKILL); /* stopped before the group was known */
        }
        read_output(fds[0], &b, (size_t)1 << 20);
        status = wait_child(pid);
        luaL_pushresult(&b);
      }
      close(fds[0]);
    }
  }
  remove_tree(dir, 0);
  g_running = 0;
  if (g_pending) finish_stop(g_pending);
  if (why != NULL) {
    lua_pushnil(L);
    lua_pushstring(L, why);
    return 2;
  }
  lua_pushinteger(L, status);
  lua_insert(L, -2);
  return 2;
}
