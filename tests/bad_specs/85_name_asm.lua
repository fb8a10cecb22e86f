-- expect: diagc: FILE:3: input_port name 'asm' is a compiler keyword or a macro of the C library, so the generated C would not mean the name; choose another name
local A = leaf "A" {
  input_port { "asm", size = 1 },
}
return diagram "top" { system { "a", A }, fix_input { "a.asm", value = { 0 } } }
