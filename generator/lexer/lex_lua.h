/* generator/lexer/lex_lua.h: lex_c for Lua (lex_lua.c). */
#ifndef DIAGC_LEX_LUA_H
#define DIAGC_LEX_LUA_H

#include <lua.h>

/* lex_c(text) -> {{kind=, text=, line=, col=}, ...} | nil, "line:col: message"
 * Tokens as a C compiler sees them (line splices removed first); lines and
 * columns are those of `text`. */
int diagc_lex_c_lua(lua_State *L);

#endif
