-- expect: diagc: FILE:3: bounce_gradient must be "approximate" (DiffDART's bounce factor on the position update, the default) or "exact" (the derivative of the discrete step), got mirror
-- A world's bounce_gradient names one of the two models of a bounce's derivative.
local W = world "arena" { bounce_gradient = "mirror",
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" }, shapes = { { "sphere", radius = 0.1 } } },
}
return diagram "top" { system { "w", W } }
