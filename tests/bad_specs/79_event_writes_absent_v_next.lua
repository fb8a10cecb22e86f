-- expect: diagc: FILE:6:11: event 'kick' of leaf "P" uses 'v_next', but the leaf has no continuous state v; declare v in its continuous_state or remove the use
local P = leaf "P" {
  continuous_state { q = 1 },
  derivatives { calc = [[ qdot[0] = 1.0; ]] },
  periodic_unrestricted_update { "kick", period = 1, calc = [[ q_next[0] = 0.0;
          v_next[0] = 1.0; ]] },
}
return diagram "top" { system { "p", P } }
