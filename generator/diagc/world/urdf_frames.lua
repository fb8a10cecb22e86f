-- world/urdf_frames.lua: the rotations the URDF import needs: URDF rpy
-- (R = Rz(yaw) Ry(pitch) Rx(roll), fixed axes x then y then z) to a 3x3
-- matrix and back, frames composed, and an inertia tensor re-expressed in
-- another frame (I' = R I R^T).  Matrices are row-major {{..}, {..}, {..}}.
local fold = require("diagc.world.fold")

local M = {}

-- fold.rpy's matrix, as rows
function M.rpy_matrix(rpy)
  local f = fold.rpy(rpy)
  return { { f[1], f[2], f[3] }, { f[4], f[5], f[6] }, { f[7], f[8], f[9] } }
end

-- The rpy of a rotation matrix (pitch in [-pi/2, pi/2]; at gimbal lock,
-- roll = 0).
function M.matrix_rpy(R)
  local s = math.max(-1, math.min(1, -R[3][1]))
  local p = math.asin(s)
  if math.abs(s) > 1 - 1e-12 then
    return { 0, p, math.atan2(-R[1][2], R[2][2]) }
  end
  return { math.atan2(R[3][2], R[3][3]), p, math.atan2(R[2][1], R[1][1]) }
end

function M.mul(A, B)
  local C = {}
  for i = 1, 3 do
    C[i] = {}
    for j = 1, 3 do C[i][j] = A[i][1] * B[1][j] + A[i][2] * B[2][j] + A[i][3] * B[3][j] end
  end
  return C
end

function M.apply(R, v)
  return { R[1][1] * v[1] + R[1][2] * v[2] + R[1][3] * v[3],
    R[2][1] * v[1] + R[2][2] * v[2] + R[2][3] * v[3],
    R[3][1] * v[1] + R[3][2] * v[2] + R[3][3] * v[3] }
end

-- Frame b given in frame a (xyz, rpy), a given in frame o: b in o.
-- (b exactly, copied, when a is the identity)
function M.compose(a_xyz, a_rpy, b_xyz, b_rpy)
  if a_xyz[1] == 0 and a_xyz[2] == 0 and a_xyz[3] == 0 and a_rpy[1] == 0 and a_rpy[2] == 0 and a_rpy[3] == 0 then
    return { b_xyz[1], b_xyz[2], b_xyz[3] }, { b_rpy[1], b_rpy[2], b_rpy[3] }
  end
  local Ra = M.rpy_matrix(a_rpy)
  local p = M.apply(Ra, b_xyz)
  return { a_xyz[1] + p[1], a_xyz[2] + p[2], a_xyz[3] + p[3] },
    M.matrix_rpy(M.mul(Ra, M.rpy_matrix(b_rpy)))
end

-- The inverse of frame (xyz, rpy): where the parent sits in it.
function M.invert(xyz, rpy)
  local R = M.rpy_matrix(rpy)
  local Rt = { { R[1][1], R[2][1], R[3][1] }, { R[1][2], R[2][2], R[3][2] }, { R[1][3], R[2][3], R[3][3] } }
  local p = M.apply(Rt, xyz)
  return { -p[1], -p[2], -p[3] }, M.matrix_rpy(Rt)
end

-- {ixx, iyy, izz, ixy, ixz, iyz} in frame f -> the same tensor in the frame
-- where f has rotation R: R I R^T.
function M.rotate_inertia(R, I)
  local T = { { I[1], I[4], I[5] }, { I[4], I[2], I[6] }, { I[5], I[6], I[3] } }
  local Rt = { { R[1][1], R[2][1], R[3][1] }, { R[1][2], R[2][2], R[3][2] }, { R[1][3], R[2][3], R[3][3] } }
  local J = M.mul(M.mul(R, T), Rt)
  return { J[1][1], J[2][2], J[3][3], (J[1][2] + J[2][1]) / 2, (J[1][3] + J[3][1]) / 2,
    (J[2][3] + J[3][2]) / 2 }
end

return M
