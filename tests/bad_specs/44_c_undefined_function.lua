-- expect: diagc: FILE:6: C error in a calc body: implicit declaration of function 'saturate'; declare it before use (#include its C99 header at the top of the c_preamble, or define it there)
local Sat = leaf "Sat" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" },
    calc = [[
      y[0] = saturate(u[0], -1.0, 1.0);
    ]] },
}
return diagram "top" { system { "s", Sat }, fix_input { "s.u", value = { 1 } } }
