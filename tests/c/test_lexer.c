/* tests/c/test_lexer.c: the re2c C tokenizer behind diagc_host.lex_c.
 * Prints "ok <name>" or "FAIL <name>: <detail>" per check (see tests/run). */
#include <stdio.h>
#include <string.h>

#include "../../generator/lexer/c_lexer.c"

static int failures;

/* Renders every token as "kind[text]@line:col", space separated; an error
 * renders as "error(message)@line:col" and ends the list (the message cut
 * at its first ':' or '(' to keep the expectations short).  Lexes as
 * diagc_host.lex_c does (c_lexer_init_spliced). */
static void render(const char *src, size_t len, char *out, size_t cap) {
  c_lexer lx;
  c_token t;
  size_t n = 0;
  static char buf[4096];
  static size_t map[4096];
  out[0] = '\0';
  if (len >= sizeof buf) return;
  c_lexer_init_spliced(&lx, src, len, buf, map);
  for (;;) {
    c_tok_kind k = c_lexer_next(&lx, &t);
    int w;
    if (k == C_TOK_EOF) break;
    if (k == C_TOK_ERROR)
      w = snprintf(out + n, cap - n, "%serror(%.*s)@%d:%d", n ? " " : "",
                   (int)strcspn(t.message, ":("), t.message, t.line, t.col);
    else
      w = snprintf(out + n, cap - n, "%s%s[%.*s]@%d:%d", n ? " " : "", c_tok_kind_name(k),
                   (int)t.length, lx.src + t.offset, t.line, t.col);
    if (w < 0 || (size_t)w >= cap - n) break;
    n += (size_t)w;
    if (k == C_TOK_ERROR) break;
  }
}

static void check(const char *name, const char *src, const char *expected) {
  char got[4096];
  render(src, strlen(src), got, sizeof got);
  if (strcmp(got, expected) == 0) {
    printf("ok lexer.%s\n", name);
  } else {
    printf("FAIL lexer.%s: expected <%s> got <%s>\n", name, expected, got);
    failures++;
  }
}

/* c_directive_split on the directive that `src` lexes to: "name|args". */
static void check_directive(const char *name, const char *src, const char *expected) {
  char spliced[1024], text[1024], out[1024], got[1100];
  size_t map[1024], nl, all;
  c_lexer lx;
  c_token t;
  c_lexer_init_spliced(&lx, src, strlen(src), spliced, map);
  if (c_lexer_next(&lx, &t) != C_TOK_PP) {
    printf("FAIL lexer.directive_%s: not a directive\n", name);
    failures++;
    return;
  }
  memcpy(text, lx.src + t.offset, t.length);
  text[t.length] = '\0';
  all = c_directive_split(text, t.length, out, &nl);
  snprintf(got, sizeof got, "%.*s|%.*s", (int)nl, out, (int)(all - nl), out + nl);
  if (strcmp(got, expected) == 0 && out[all] == '\0') {
    printf("ok lexer.directive_%s\n", name);
  } else {
    printf("FAIL lexer.directive_%s: expected <%s> got <%s>\n", name, expected, got);
    failures++;
  }
}

int main(void) {
  check("empty", "", "");
  check("blank", " \t\n\r\n  ", "");
  check("identifiers", "foo _bar x1 __y2_",
        "ident[foo]@1:1 ident[_bar]@1:5 ident[x1]@1:10 ident[__y2_]@1:13");
  check("keywords_are_idents", "return double",
        "ident[return]@1:1 ident[double]@1:8");
  check("integers", "0 42 0x1F 0777 10u 10UL 7ll 0xffULL",
        "number[0]@1:1 number[42]@1:3 number[0x1F]@1:6 number[0777]@1:11 "
        "number[10u]@1:16 number[10UL]@1:20 number[7ll]@1:25 number[0xffULL]@1:29");
  check("floats", "1.0 .5 3. 1e10 2.5e-3f 1E+2L 0x1p-3 0x1.8P4f 09.5",
        "number[1.0]@1:1 number[.5]@1:5 number[3.]@1:8 number[1e10]@1:11 "
        "number[2.5e-3f]@1:16 number[1E+2L]@1:24 number[0x1p-3]@1:30 "
        "number[0x1.8P4f]@1:37 number[09.5]@1:46");
  check("number_then_member", "a.b 1.f",
        "ident[a]@1:1 punct[.]@1:2 ident[b]@1:3 number[1.f]@1:5");
  check("strings", "\"abc\" \"a\\\"b\\\\\" L\"w\" u8\"x\" \"\"",
        "string[\"abc\"]@1:1 string[\"a\\\"b\\\\\"]@1:7 string[L\"w\"]@1:16 "
        "string[u8\"x\"]@1:21 string[\"\"]@1:27");
  check("string_with_comment_chars", "\"/* not */ // no\" x",
        "string[\"/* not */ // no\"]@1:1 ident[x]@1:19");
  check("chars", "'a' '\\n' '\\'' L'x' '\\x41'",
        "char['a']@1:1 char['\\n']@1:5 char['\\'']@1:10 char[L'x']@1:15 "
        "char['\\x41']@1:20");
  check("comments", "a /* b\n c */ d // e /* f\ng",
        "ident[a]@1:1 ident[d]@2:7 ident[g]@3:1");
  check("comment_stars", "/***/x/* ** */y/*/ */z",
        "ident[x]@1:6 ident[y]@1:15 ident[z]@1:22");
  check("punctuators", "a->b++ <<= ... >>= && || != == ## %: <: :> +=",
        "ident[a]@1:1 punct[->]@1:2 ident[b]@1:4 punct[++]@1:5 punct[<<=]@1:8 "
        "punct[...]@1:12 punct[>>=]@1:16 punct[&&]@1:20 punct[||]@1:23 "
        "punct[!=]@1:26 punct[==]@1:29 punct[##]@1:32 punct[%:]@1:35 "
        "punct[<:]@1:38 punct[:>]@1:41 punct[+=]@1:44");
  check("greedy", "x---y a..b",
        "ident[x]@1:1 punct[--]@1:2 punct[-]@1:4 ident[y]@1:5 "
        "ident[a]@1:7 punct[.]@1:8 punct[.]@1:9 ident[b]@1:10");
  check("pp_lines", "#include <math.h>\n  # define X(a) \\\n   (a+1)  \nint y;",
        "pp[#include <math.h>]@1:1 pp[# define X(a)    (a+1)]@2:3 "
        "ident[int]@4:1 ident[y]@4:5 punct[;]@4:6");
  check("pp_trailing_comment", "#line 12 \"spec.lua\" // where\nx",
        "pp[#line 12 \"spec.lua\"]@1:1 ident[x]@2:1");
  check("pp_block_comment", "#if 1 /* a\n b */ + 1\nz",
        "pp[#if 1 /* a\n b */ + 1]@1:1 ident[z]@3:1");
  check("pp_apostrophe", "#error don't\nq", "pp[#error don't]@1:1 ident[q]@2:1");
  check("hash_not_at_bol", "a # b", "ident[a]@1:1 punct[#]@1:3 ident[b]@1:5");
  check("pp_after_comment", "/* c */ #if X\n", "pp[#if X]@1:9");
  check("line_col", "a\n  bb\n\n\tccc", "ident[a]@1:1 ident[bb]@2:3 ident[ccc]@4:2");
  check("crlf", "a\r\nb", "ident[a]@1:1 ident[b]@2:1");
  check("splice", "a \\\n b", "ident[a]@1:1 ident[b]@2:2");
  check("stray", "@ $", "punct[@]@1:1 punct[$]@1:3");
  check("utf8_ident", "caf\xc3\xa9 x", "ident[caf\xc3\xa9]@1:1 ident[x]@1:7");
  check("unterminated_comment", "x\n  /* never closed\n", "ident[x]@1:1 error(unterminated comment)@2:3");
  check("unterminated_pp_comment", "#if 1 /* x", "error(unterminated comment)@1:7");
  check("unterminated_string", "s = \"abc\nd\"", "ident[s]@1:1 punct[=]@1:3 error(unterminated string literal)@1:5");
  check("unterminated_string_eof", "\"abc\\", "error(unterminated string literal)@1:1");
  check("unterminated_char", "c = 'a", "ident[c]@1:1 punct[=]@1:3 error(unterminated character constant)@1:5");
  check("empty_char", "''", "error(empty character constant)@1:1");

  /* Line splices go before tokens (translation phase 2): what the lexer
   * sees is what the compiler sees. */
  check("splice_in_identifier", "stiff\\\nness x", "ident[stiffness]@1:1 ident[x]@2:6");
  check("splice_crlf_in_number", "1\\\r\n5 y", "number[15]@1:1 ident[y]@2:3");
  check("splice_closes_comment", "/* a *\\\n/ x /* b */", "ident[x]@2:3");
  check("splice_opens_comment", "/\\\n* c */ y", "ident[y]@2:8");
  check("splice_continues_line_comment", "// c \\\n hidden\nz", "ident[z]@3:1");
  check("splice_in_directive", "#\\\ndefine X 1\nq", "pp[#define X 1]@1:1 ident[q]@3:1");
  check("splice_not_a_new_line", "a \\\n# b", "ident[a]@1:1 punct[#]@2:1 ident[b]@2:3");
  check("splice_in_operator", "a -\\\n> b", "ident[a]@1:1 punct[->]@1:3 ident[b]@2:3");
  check("backslash_blank_newline", "// c \\ \nx", "error(backslash followed by blanks at the end of a line)@1:6");
  check("backslash_blank_in_code", "a \\\t\r\nb", "error(backslash followed by blanks at the end of a line)@1:3");
  check("backslash_stray", "a \\ b", "ident[a]@1:1 punct[\\]@1:3 ident[b]@1:5");
  /* Trigraphs: C99 compilers replace them, TinyCC does not. */
  check("trigraph_punct", "x ?\?= y", "ident[x]@1:1 error(trigraph )@1:3");
  check("trigraph_in_string", "s = \"a?\?/\"", "ident[s]@1:1 punct[=]@1:3 error(trigraph )@1:7");
  check("trigraph_in_char", "'?\?-'", "error(trigraph )@1:2");
  check("trigraph_in_directive", "#define Q \"?\?!\"", "error(trigraph )@1:12");
  check("trigraph_splice_in_comment", "/* *?\?/\n/ hidden(); /* */", "error(trigraph )@1:5");
  check("trigraph_in_comment_ok", "/* what?\?! */ z", "ident[z]@1:15");
  check("question_marks", "a ? b : c ?\? d ?\?", "ident[a]@1:1 punct[?]@1:3 ident[b]@1:5 punct[:]@1:7 ident[c]@1:9 punct[?]@1:11 punct[?]@1:12 ident[d]@1:14 punct[?]@1:16 punct[?]@1:17");

  /* A directive's name and arguments as translation phase 3 leaves them:
   * comments are one space, splices are gone, a header name is one token. */
  check_directive("plain", "#include <math.h>", "include|<math.h>");
  check_directive("no_space", "#include<math.h>", "include|<math.h>");
  check_directive("spaces_tabs", "  #  \tinclude\t<math.h>  \t", "include|<math.h>");
  check_directive("comment_before_name", "#/**/include <math.h>", "include|<math.h>");
  check_directive("comment_lines_before_name", "# /* a\n b */ define X 1", "define|X 1");
  check_directive("splice_before_name", "#\\\ninclude <math.h>", "include|<math.h>");
  check_directive("splice_in_name", "#inc\\\nlude <math.h>", "include|<math.h>");
  check_directive("trailing_comments", "#include <math.h> /* a */ /* b */", "include|<math.h>");
  check_directive("trailing_line_comment", "#include <math.h> // x\n", "include|<math.h>");
  check_directive("comment_before_header", "#include /* a */ <math.h>", "include|<math.h>");
  check_directive("comment_marks_in_header", "#include </*x*/m.h>", "include|</*x*/m.h>");
  check_directive("header_cut_by_comment", "#include <m.h/*>*/>", "include|<m.h/*>*/>");
  check_directive("comment_is_one_space", "#define F/**/(x) x", "define|F (x) x");
  check_directive("comment_after_name", "#define/**/X 1", "define|X 1");
  check_directive("comment_in_string", "#define S \"/* s */\" /* c */", "define|S \"/* s */\"");
  check_directive("comment_in_char", "#if '/' /* c */", "if|'/'");
  check_directive("null", "#", "|");
  check_directive("null_comment", "# /* c */", "|");
  check_directive("line_marker", "# 1 \"x.c\"", "|1 \"x.c\"");
  check_directive("digraph", "%:  define X", "define|X");
  check_directive("quoted", "#include \"a/*b\" /* c */", "include|\"a/*b\"");

  /* A NUL inside the text is an ordinary (stray) byte; the end is `len`. */
  {
    static const char src[] = "a\0b";
    c_lexer lx;
    c_token t1, t2, t3, t4;
    c_lexer_init(&lx, src, 3);
    c_lexer_next(&lx, &t1);
    c_lexer_next(&lx, &t2);
    c_lexer_next(&lx, &t3);
    c_lexer_next(&lx, &t4);
    if (t1.kind == C_TOK_IDENT && t2.kind == C_TOK_PUNCT && t2.offset == 1 && t2.length == 1 &&
        t3.kind == C_TOK_IDENT && t3.offset == 2 && t3.col == 3 && t4.kind == C_TOK_EOF) {
      printf("ok lexer.embedded_nul\n");
    } else {
      printf("FAIL lexer.embedded_nul: kinds %d %d %d %d\n", (int)t1.kind, (int)t2.kind,
             (int)t3.kind, (int)t4.kind);
      failures++;
    }
  }

  /* Errors and EOF are sticky. */
  {
    c_lexer lx;
    c_token t;
    c_lexer_init(&lx, "/*", 2);
    if (c_lexer_next(&lx, &t) == C_TOK_ERROR && c_lexer_next(&lx, &t) == C_TOK_ERROR &&
        t.line == 1 && t.col == 1) {
      printf("ok lexer.sticky_error\n");
    } else {
      printf("FAIL lexer.sticky_error: kind %d\n", (int)t.kind);
      failures++;
    }
    c_lexer_init(&lx, "x", 1);
    c_lexer_next(&lx, &t);
    if (c_lexer_next(&lx, &t) == C_TOK_EOF && c_lexer_next(&lx, &t) == C_TOK_EOF) {
      printf("ok lexer.sticky_eof\n");
    } else {
      printf("FAIL lexer.sticky_eof\n");
      failures++;
    }
  }
  return failures ? 1 : 0;
}
