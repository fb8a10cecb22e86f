-- expect: diagc: FILE:4: cache_entry 'count' has both size and type; a cache entry is either a vector (size) or a C value (type)
local Stats = leaf "Stats" {
  input_port { "u", size = 1 },
  cache_entry { "count", size = 1, type = "int", prerequisites = { "u" }, calc = [[ *count = 1; ]] },
}
return diagram "top" { system { "s", Stats }, fix_input { "s.u", value = { 1 } } }
