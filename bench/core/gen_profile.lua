-- bench/gen_profile.lua: sample-profile the generator with plain LuaJIT's
-- jit.p (the embedded host has no -jp).  Plain luajit has no diagc_host,
-- so the C lexer (used for calc bodies) is absent; the rest of the
-- pipeline is the same code.
--   luajit bench/gen_profile.lua ROOT MODE OUTFILE SPEC -o OUT.c --no-check
-- MODE is a jit.p mode such as "F" (functions) or "l" (lines).
local root, mode, outfile = arg[1], arg[2], arg[3]
package.path = root .. "/generator/?.lua;" .. root .. "/generator/?/init.lua;" .. package.path
local args = {}
for i = 4, #arg do args[#args + 1] = arg[i] end
local prof = require("jit.p")
prof.start(mode, outfile)
local rc = require("diagc.driver").main(args)
prof.stop()
os.exit(rc or 0)
