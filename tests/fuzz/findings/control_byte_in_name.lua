-- fuzz_spec finding: a DEL byte (0x7f) in a diagram name reached the
-- "not a valid name" message unescaped.
return diagram "tp" { }
