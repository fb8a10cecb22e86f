/* generator/lexer/lex_lua.c: the C lexer as a Lua function, lex_c(text):
 * {{kind=, text=, line=, col=}, ...} | nil, "line:col: message"; a
 * directive ("pp") also has name= and args= (c_directive_split).  Shared by
 * bin/diagc (diagc_host.lex_c) and the spec fuzz target (tests/fuzz). */
#include <lauxlib.h>
#include <lua.h>

#include "c_lexer.h"
#include "lex_lua.h"

int diagc_lex_c_lua(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  c_lexer lx;
  c_token t;
  int n = 0;
  /* the lexer sees the text as a compiler does, line splices removed:
   * token texts come from that copy, lines and columns from `text` */
  char *buf = lua_newuserdata(L, len + 1);
  size_t *map = lua_newuserdata(L, (len + 1) * sizeof *map);
  c_lexer_init_spliced(&lx, text, len, buf, map);
  lua_newtable(L);
  for (;;) {
    c_tok_kind k = c_lexer_next(&lx, &t);
    if (k == C_TOK_EOF) break;
    if (k == C_TOK_ERROR) {
      lua_pushnil(L);
      lua_pushfstring(L, "%d:%d: %s", t.line, t.col, t.message);
      return 2;
    }
    lua_createtable(L, 0, 4);
    lua_pushstring(L, c_tok_kind_name(k));
    lua_setfield(L, -2, "kind");
    lua_pushlstring(L, lx.src + t.offset, t.length);
    if (k == C_TOK_PP) {
      /* the directive's name and arguments as the compiler reads them */
      size_t len, name_len, all;
      const char *pp = lua_tolstring(L, -1, &len); /* NUL-terminated */
      char *dir = lua_newuserdata(L, len + 1);
      all = c_directive_split(pp, len, dir, &name_len);
      lua_pushlstring(L, dir, name_len);
      lua_setfield(L, -4, "name");
      lua_pushlstring(L, dir + name_len, all - name_len);
      lua_setfield(L, -4, "args");
      lua_pop(L, 1);
    }
    lua_setfield(L, -2, "text");
    lua_pushinteger(L, t.line);
    lua_setfield(L, -2, "line");
    lua_pushinteger(L, t.col);
    lua_setfield(L, -2, "col");
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}
