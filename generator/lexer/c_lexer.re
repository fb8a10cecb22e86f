/* generator/lexer/c_lexer.re: C99 tokenizer for diagc (see c_lexer.h).
 *
 * Regenerate with (the Makefile does this when re2c is installed):
 *   re2c -W -Werror --no-generation-date --no-version \
 *        -o generator/lexer/c_lexer.c generator/lexer/c_lexer.re
 * and commit the result; `make lexer-check` verifies that it is current.
 *
 * End of input: re2c's EOF rule with a NUL sentinel at src[len]; NUL bytes
 * inside the text are ordinary bytes.
 */
#include "c_lexer.h"

#include <string.h>

typedef const unsigned char *cursor_t;

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  nl       = "\r"? "\n";
  splice   = "\\" nl;
  blank    = [ \t\v\f\r];
  anychar  = [^];

  comment_body = ([^*] | "*"+ [^*/])*;
  comment      = "/*" comment_body "*"+ "/";
  comment_open = "/*" comment_body "*"*;

  id_start = [a-zA-Z_\x80-\xff];
  id_char  = [a-zA-Z_0-9\x80-\xff];
  ident    = id_start id_char*;

  digits   = [0-9]+;
  hexdig   = [0-9a-fA-F];
  int_sfx  = [uU] ("l" | "L" | "ll" | "LL")? | ("l" | "L" | "ll" | "LL") [uU]?;
  int_lit  = ([1-9] [0-9]* | "0" [0-7]* | "0" [xX] hexdig+) int_sfx?;
  dec_frac = [0-9]* "." digits | digits ".";
  dec_exp  = [eE] [+-]? digits;
  hex_frac = hexdig* "." hexdig+ | hexdig+ ".";
  bin_exp  = [pP] [+-]? digits;
  flt_sfx  = [fFlL];
  flt_lit  = (dec_frac dec_exp? | digits dec_exp) flt_sfx?
           | "0" [xX] (hex_frac | hexdig+) bin_exp flt_sfx?;

  enc_pfx  = "L" | "u" | "U" | "u8";
  escape   = "\\" anychar | "\\" "\r\n";
  str_body = ([^"\\\n] | escape)*;
  chr_body = ([^'\\\n] | escape);
  string   = enc_pfx? ["] str_body ["];
  string_open = enc_pfx? ["] str_body;
  charlit  = ("L" | "u" | "U")? ['] chr_body+ ['];
  char_open  = ("L" | "u" | "U")? ['] chr_body*;
  char_empty = ("L" | "u" | "U")? "''";

  punct = "[" | "]" | "(" | ")" | "{" | "}" | "." | "->"
        | "++" | "--" | "&" | "*" | "+" | "-" | "~" | "!"
        | "/" | "%" | "<<" | ">>" | "<" | ">" | "<=" | ">=" | "==" | "!="
        | "^" | "|" | "&&" | "||"
        | "?" | ":" | ";" | "..."
        | "=" | "*=" | "/=" | "%=" | "+=" | "-=" | "<<=" | ">>="
        | "&=" | "^=" | "|=" | ","
        | "<:" | ":>" | "<%" | "%>";
  hash  = "#" | "##" | "%:" | "%:%:";
*/

void c_lexer_init(c_lexer *lx, const char *src, size_t len) {
  lx->src = src;
  lx->cur = src;
  lx->lim = src + len;
  lx->raw = src;
  lx->map = NULL;
  lx->mark = src;
  lx->line_start = src;
  lx->line = 1;
  lx->bol = 1;
  lx->failed = 0;
}

static int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Length of the newline at p ("\n" or "\r\n"), 0 if none. */
static size_t newline_at(const char *p, const char *end) {
  if (p < end && *p == '\n') return 1;
  if (p + 1 < end && p[0] == '\r' && p[1] == '\n') return 2;
  return 0;
}

static const char *const MSG_BLANK_SPLICE =
  "backslash followed by blanks at the end of a line: gcc and clang join the lines, "
  "other compilers do not; remove the blanks (or the backslash)";
static const char *const MSG_TRIGRAPH =
  "trigraph ('?\?' and one of =/'()!<>-): C99 compilers replace it, TinyCC does not; "
  "write the character it stands for, or '?\\?' in a string";

static void set_error(c_lexer *lx, size_t raw_off, const char *msg);

void c_lexer_init_spliced(c_lexer *lx, const char *src, size_t len, char *buf, size_t *map) {
  const char *end = src + len;
  size_t i = 0, n = 0, bad = (size_t)-1, k;
  const char *why = NULL;
  while (i < len) {
    if (src[i] == '\\') {
      if ((k = newline_at(src + i + 1, end)) > 0) {
        i += 1 + k; /* a line splice */
        continue;
      }
      for (k = i + 1; k < len && is_blank(src[k]); k++) {}
      if (k > i + 1 && newline_at(src + k, end) && bad == (size_t)-1) {
        bad = i;
        why = MSG_BLANK_SPLICE;
      }
    } else if (src[i] == '?' && i + 2 < len && src[i + 1] == '?' && src[i + 2] == '/' &&
               newline_at(src + i + 3, end) && bad == (size_t)-1) {
      bad = i; /* a splice for C99 compilers, even inside a comment */
      why = MSG_TRIGRAPH;
    }
    buf[n] = src[i];
    map[n] = i;
    n++;
    i++;
  }
  buf[n] = '\0';
  map[n] = len;
  c_lexer_init(lx, buf, n);
  lx->raw = src;
  lx->map = map;
  lx->mark = src;
  lx->line_start = src;
  if (bad != (size_t)-1) set_error(lx, bad, why);
}

const char *c_tok_kind_name(c_tok_kind kind) {
  switch (kind) {
  case C_TOK_IDENT: return "ident";
  case C_TOK_NUMBER: return "number";
  case C_TOK_STRING: return "string";
  case C_TOK_CHAR: return "char";
  case C_TOK_PUNCT: return "punct";
  case C_TOK_PP: return "pp";
  case C_TOK_EOF: return "eof";
  case C_TOK_ERROR: return "error";
  }
  return "?";
}

/* The position in the original text of position p of the scanned text. */
static const char *raw_pos(const c_lexer *lx, const char *p) {
  return lx->map ? lx->raw + lx->map[p - lx->src] : p;
}

/* Brings lx->line/line_start up to date for position `p` of the scanned
 * text (monotonic). */
static void count_lines(c_lexer *lx, const char *p) {
  const char *q;
  p = raw_pos(lx, p);
  for (q = lx->mark; q < p; q++) {
    if (*q == '\n') {
      lx->line++;
      lx->line_start = q + 1;
    }
  }
  lx->mark = p;
}

static c_tok_kind emit(c_lexer *lx, c_token *tok, c_tok_kind kind,
                       const char *start, const char *end, const char *msg) {
  count_lines(lx, start);
  tok->kind = kind;
  tok->offset = (size_t)(start - lx->src);
  tok->length = (size_t)(end - start);
  tok->line = lx->line;
  tok->col = (int)(raw_pos(lx, start) - lx->line_start) + 1;
  tok->message = msg;
  lx->cur = end;
  lx->bol = 0;
  if (kind == C_TOK_ERROR) {
    lx->failed = 1;
    lx->error = *tok;
  }
  return kind;
}

/* Makes every call return an error at raw offset raw_off (found before
 * lexing: the lexer stops there at once; an error ends the lexing). */
static void set_error(c_lexer *lx, size_t raw_off, const char *msg) {
  const char *p, *q = lx->raw + raw_off, *line_start = lx->raw;
  c_token *e = &lx->error;
  e->kind = C_TOK_ERROR;
  e->offset = 0;
  e->length = 0;
  e->line = 1;
  for (p = lx->raw; p < q; p++) {
    if (*p == '\n') {
      e->line++;
      line_start = p + 1;
    }
  }
  e->col = (int)(q - line_start) + 1;
  e->message = msg;
  lx->failed = 1;
}

/* The first trigraph in [p, end), or NULL. */
static const char *find_trigraph(const char *p, const char *end) {
  for (; p + 2 < end; p++) {
    if (p[0] == '?' && p[1] == '?' && p[2] != '\0' && strchr("=/'()!<>-", p[2]) != NULL)
      return p;
  }
  return NULL;
}

/* Returns a token of `kind` for [start, end), or an error at the first
 * trigraph inside it. */
static c_tok_kind emit_checked(c_lexer *lx, c_token *tok, c_tok_kind kind,
                               const char *start, const char *end) {
  const char *tg = find_trigraph(start, end);
  if (tg != NULL) return emit(lx, tok, C_TOK_ERROR, tg, tg + 3, MSG_TRIGRAPH);
  return emit(lx, tok, kind, start, end, NULL);
}

/* Scans the rest of a preprocessor line; `p` is just after the '#'.
 * Returns the end of the directive (before the newline, a trailing //
 * comment or EOF), or NULL with *err_at and *err set on an unterminated
 * comment. */
static const char *scan_pp_line(const char *p, const char *lim,
                                const char **err_at, const char **err) {
  cursor_t YYCURSOR = (cursor_t)p, YYMARKER, YYLIMIT = (cursor_t)lim, start;
  for (;;) {
    start = YYCURSOR;
    /*!re2c
      $                      { return (const char *)start; }
      nl | "//"              { return (const char *)start; }
      splice | comment       { continue; }
      string | charlit       { continue; }
      comment_open           { *err_at = (const char *)start;
                               *err = "unterminated comment"; return NULL; }
      anychar                { continue; }
    */
  }
}

/* Copies [p, lim) to out with every comment replaced by one space,
 * string and character literals copied as they are (translation phase 3);
 * *lim must be '\0'.  Returns the end of what was written. */
static char *pp_decomment(const char *p, const char *lim, char *out) {
  cursor_t YYCURSOR = (cursor_t)p, YYMARKER, YYLIMIT = (cursor_t)lim, start;
  for (;;) {
    start = YYCURSOR;
    /*!re2c
      $                     { return out; }
      comment | "//" [^\n]* { *out++ = ' '; continue; }
      string | charlit      { memcpy(out, start, (size_t)(YYCURSOR - start));
                              out += YYCURSOR - start; continue; }
      anychar               { *out++ = (char)*start; continue; }
    */
  }
}

/* The first byte at or after p that is neither white space nor inside a
 * comment (phase 3 makes them one space). */
static const char *pp_skip_space(const char *p, const char *end) {
  for (;;) {
    while (p < end && (is_blank(*p) || *p == '\n')) p++;
    if (p + 1 < end && p[0] == '/' && p[1] == '*') {
      for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/'); p++) {}
      p = p + 1 < end ? p + 2 : end;
    } else {
      return p;
    }
  }
}

static int is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || (unsigned char)c >= 0x80;
}

size_t c_directive_split(const char *text, size_t len, char *buf, size_t *name_len) {
  const char *end = text + len, *p, *q;
  char *w, *args;
  size_t n = 0;
  p = text + ((len >= 2 && text[0] == '%') ? 2 : (len >= 1 ? 1 : 0)); /* '#' or '%:' */
  p = pp_skip_space(p, end);
  if (p < end && !(*p >= '0' && *p <= '9'))
    while (p + n < end && is_ident_char(p[n])) n++;
  memcpy(buf, p, n);
  *name_len = n;
  args = w = buf + n;
  p += n;
  q = pp_skip_space(p, end);
  if (n == 7 && memcmp(buf, "include", 7) == 0 && q < end && *q == '<') {
    /* a header name is one token up to the next '>'; comment marks inside
     * it belong to the name (C99 6.4.7) */
    const char *gt = memchr(q, '>', (size_t)(end - q));
    p = gt ? gt + 1 : end;
    memcpy(w, q, (size_t)(p - q));
    w += p - q;
  }
  w = pp_decomment(p, end, w);
  while (w > args && (is_blank(w[-1]) || w[-1] == '\n')) w--;
  for (q = args; q < w && (is_blank(*q) || *q == '\n'); q++) {}
  memmove(args, q, (size_t)(w - q));
  w -= q - args;
  *w = '\0';
  return (size_t)(w - buf);
}

c_tok_kind c_lexer_next(c_lexer *lx, c_token *tok) {
  cursor_t YYCURSOR, YYMARKER, YYLIMIT = (cursor_t)lx->lim, start;
  if (lx->failed) {
    *tok = lx->error;
    return C_TOK_ERROR;
  }
  YYCURSOR = (cursor_t)lx->cur;
  for (;;) {
    start = YYCURSOR;
#define TOKEN(kind) emit(lx, tok, (kind), (const char *)start, (const char *)YYCURSOR, NULL)
#define ERROR(msg) emit(lx, tok, C_TOK_ERROR, (const char *)start, (const char *)YYCURSOR, (msg))
    /*!re2c
      $ {
        lx->cur = (const char *)start;
        count_lines(lx, (const char *)start);
        tok->kind = C_TOK_EOF;
        tok->offset = (size_t)((const char *)start - lx->src);
        tok->length = 0;
        tok->line = lx->line;
        tok->col = (int)(raw_pos(lx, (const char *)start) - lx->line_start) + 1;
        tok->message = NULL;
        return C_TOK_EOF;
      }

      "\n"              { lx->bol = 1; continue; }
      blank+ | splice   { continue; }
      "//" [^\n]*       { continue; }
      comment           { continue; }
      comment_open      { return ERROR("unterminated comment"); }

      ident             { return TOKEN(C_TOK_IDENT); }
      int_lit | flt_lit { return TOKEN(C_TOK_NUMBER); }
      string            { return emit_checked(lx, tok, C_TOK_STRING, (const char *)start, (const char *)YYCURSOR); }
      string_open       { return ERROR("unterminated string literal"); }
      charlit           { return emit_checked(lx, tok, C_TOK_CHAR, (const char *)start, (const char *)YYCURSOR); }
      char_open         { return ERROR("unterminated character constant"); }
      char_empty        { return ERROR("empty character constant"); }

      hash {
        if (lx->bol) {
          const char *err_at = NULL, *err = NULL;
          const char *end = scan_pp_line((const char *)start + 1, lx->lim, &err_at, &err);
          if (end == NULL) {
            emit(lx, tok, C_TOK_ERROR, err_at, err_at + 2, err);
            return C_TOK_ERROR;
          }
          while (end > (const char *)start + 1 &&
                 (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' ||
                  end[-1] == '\v' || end[-1] == '\f'))
            end--;
          return emit_checked(lx, tok, C_TOK_PP, (const char *)start, end);
        }
        return TOKEN(C_TOK_PUNCT);
      }
      "??" [=/'()!<>-]  { return ERROR(MSG_TRIGRAPH); }
      punct             { return TOKEN(C_TOK_PUNCT); }
      anychar           { return TOKEN(C_TOK_PUNCT); }
    */
#undef TOKEN
#undef ERROR
  }
}
