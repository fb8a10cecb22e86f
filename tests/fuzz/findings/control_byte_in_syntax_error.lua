-- fuzz_spec finding: a control byte (0x01) inside an unterminated string
-- reached the syntax error message unescaped.
local s = "a
return s
