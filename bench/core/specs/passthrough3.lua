-- PassThrough3: Drake's caching benchmark pattern.  Three cascaded 7-wide
-- pass-through leaves; the first one's input is the diagram input "u".
local PassThrough = leaf "PassThrough7" {
  input_port { "u", size = 7 },
  output_port { "y", size = 7, prerequisites = { "u" },
    calc = [[ for (int i = 0; i < 7; i++) y[i] = u[i]; ]] },
}

return diagram "pt3" {
  system { "s1", PassThrough },
  system { "s2", PassThrough },
  system { "s3", PassThrough },
  connect { "s1.y", "s2.u" },
  connect { "s2.y", "s3.u" },
  export_input { "s1.u", as = "u" },
  export_output { "s3.y", as = "y" },
}
