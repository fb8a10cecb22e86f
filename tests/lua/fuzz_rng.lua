-- tests/lua/fuzz_rng.lua: the random numbers of the fuzz tests
-- (caching_fuzz_test.lua, jacobian_fuzz_test.lua): xorshift32, the same
-- sequence on every machine.  rng(seed)() is in [0, 1); rng(seed)(a, b) an
-- integer in [a, b].
return function(seed)
  local s = seed
  return function(a, b)
    s = bit.bxor(s, bit.lshift(s, 13)); s = bit.bxor(s, bit.rshift(s, 17)); s = bit.bxor(s, bit.lshift(s, 5))
    local u = (s % 2147483648) / 2147483648
    if a then return a + math.floor(u * (b - a + 1)) end
    return u
  end
end
