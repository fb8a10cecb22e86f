/* tests/fuzz/fuzz_lexer.c: libFuzzer target for the C lexer
 * (generator/lexer/c_lexer.c, what bin/diagc's lex_c runs on calc bodies)
 * through c_lexer_init_spliced.  Built and run by
 * `make fuzz` (tests/fuzz/run).
 *
 * Besides the sanitizers (no read outside the input, no UB), it checks the
 * lexer's contract from c_lexer.h on every input:
 *   - the text scanned is the input without its line splices (computed
 *     here independently), unless the lexer reports an error at once;
 *   - it terminates: at most one token per byte, then EOF or ERROR;
 *   - tokens lie inside the input, in order, without overlap, and are not
 *     empty;
 *   - line and column of every token (and of EOF and ERROR) are those of
 *     its first byte, counted independently here;
 *   - an ERROR has a message; calls after EOF/ERROR repeat it;
 *   - a PP token starts with '#' or "%:", an IDENT with an identifier
 *     byte, and no token but PP/STRING/CHAR/ERROR contains a newline
 *     (PP lines, strings and character constants may contain splices).
 * A broken invariant aborts, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_lexer.h"

#define REQUIRE(cond, what)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_lexer: %s (token %zu, kind %s, offset %zu, "       \
              "length %zu, line %d, col %d)\n", (what), ntok,                   \
              c_tok_kind_name(t.kind), t.offset, t.length, t.line, t.col);      \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* 1-based line and byte column of raw offset `off`, counted independently
 * of the lexer, incrementally from the previous call's (offsets only grow). */
typedef struct pos_state {
  size_t at, line_start;
  int line;
} pos_state;

static void position(pos_state *ps, const char *s, size_t off, int *line, int *col) {
  for (; ps->at < off; ps->at++) {
    if (s[ps->at] == '\n') {
      ps->line++;
      ps->line_start = ps->at + 1;
    }
  }
  *line = ps->line;
  *col = (int)(off - ps->line_start) + 1;
}

static int is_id_byte(unsigned char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* The input without "\\\n" and "\\\r\n"; returns its length. */
static size_t unsplice(const char *s, size_t n, char *out) {
  size_t i = 0, k = 0;
  while (i < n) {
    if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
      i += 2;
    } else if (s[i] == '\\' && i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') {
      i += 3;
    } else {
      out[k++] = s[i++];
    }
  }
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *src = malloc(size + 1), *buf = malloc(size + 1), *want = malloc(size + 1);
  size_t *map = malloc((size + 1) * sizeof *map), nwant, lsize;
  c_lexer lx;
  c_token t, again;
  size_t ntok = 0, prev_end = 0;
  int line, col;
  c_tok_kind k;
  pos_state ps = {0, 0, 1};

  if (src == NULL || buf == NULL || want == NULL || map == NULL) abort();
  if (size) memcpy(src, data, size); /* (memcpy from NULL is UB, even for 0) */
  src[size] = '\0';
  memset(&t, 0, sizeof t);
  c_lexer_init_spliced(&lx, src, size, buf, map);
  lsize = (size_t)(lx.lim - lx.src);
  nwant = unsplice(src, size, want);
  if (!lx.failed) {
    size_t i;
    REQUIRE(lx.src == buf && lsize == nwant && memcmp(buf, want, nwant) == 0 && buf[lsize] == '\0',
            "the scanned text is not the input without its splices");
    for (i = 0; i < lsize; i++)
      REQUIRE(src[map[i]] == buf[i] && (i == 0 || map[i] > map[i - 1]), "bad offset map");
    REQUIRE(map[lsize] == size, "bad offset map at the end");
  }
  for (;;) {
    k = c_lexer_next(&lx, &t);
    ntok++;
    REQUIRE(k == t.kind, "returned kind differs from tok->kind");
    REQUIRE(ntok <= size + 1, "more tokens than bytes: no progress");
    if (k == C_TOK_ERROR) {
      /* (an error found before lexing has no offset in the scanned text) */
      REQUIRE(t.message != NULL && t.message[0] != '\0', "error without a message");
      REQUIRE(t.line >= 1 && t.col >= 1, "error without a position");
      break;
    }
    REQUIRE(t.offset >= prev_end, "token starts before the end of the previous one");
    REQUIRE(t.offset <= lsize && t.length <= lsize - t.offset, "token outside the input");
    position(&ps, src, map[t.offset], &line, &col);
    REQUIRE(t.line == line && t.col == col, "wrong line or column");
    if (k == C_TOK_EOF) {
      REQUIRE(t.length == 0 && t.offset == lsize, "EOF before the end of the input");
      break;
    }
    REQUIRE(t.length > 0, "empty token");
    REQUIRE(k >= C_TOK_IDENT && k <= C_TOK_PP, "unknown kind");
    if (k == C_TOK_PP)
      REQUIRE(buf[t.offset] == '#' || (buf[t.offset] == '%' && t.length >= 2 &&
                                       buf[t.offset + 1] == ':'),
              "preprocessor token without '#'");
    if (k == C_TOK_IDENT)
      REQUIRE(is_id_byte((unsigned char)buf[t.offset]), "identifier starts with a non-identifier byte");
    if (k == C_TOK_IDENT || k == C_TOK_NUMBER || k == C_TOK_PUNCT)
      REQUIRE(memchr(buf + t.offset, '\n', t.length) == NULL, "newline inside a token");
    prev_end = t.offset + t.length;
  }
  /* After EOF or ERROR the lexer repeats itself. */
  memset(&again, 0, sizeof again);
  REQUIRE(c_lexer_next(&lx, &again) == k && again.kind == k && again.offset == t.offset &&
          again.line == t.line && again.col == t.col,
          "a call after EOF/ERROR does not repeat it");
  free(src);
  free(buf);
  free(want);
  free(map);
  return 0;
}
