-- expect: diagc: FILE:3: abstract_state 'mode': unknown C type 'gear_mode'; define it in a c_preamble
local Mode = leaf "Mode" {
  abstract_state { "mode", type = "gear_mode", init = "{ 0 }" },
}
return diagram "top" { system { "m", Mode } }
