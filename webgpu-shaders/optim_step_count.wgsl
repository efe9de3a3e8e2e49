// optim_step_count.wgsl -- adds 1 to the step tensors of a capturable optimizer step, NSLOT at a time.
//
// Each slot k binds the buffer of one f32 step tensor (its element at offset P[k].x); one invocation adds 1.0
// to every slot's step (no two slots of a dispatch share a buffer). Runs before the update kernel that reads
// the steps (optim_multi_tensor.wgsl with HAS_STEP), so the counting is on the device and a replay repeats it.
// Launch: workgroup_size 1; grid (1, 1, 1).
// Slots: the loader repeats the "slot bindings" and "slot body" blocks once per slot (suffix _s0 -> _sK,
// slot == 0u -> slot == Ku) and numbers the bindings in order. As shipped it is the one-slot kernel.
// Parameters P: per slot k, row k = (step offset, -, -, -).

const NSLOT: u32 = 1u;

// >>> slot bindings
@group(0) @binding(0) var<storage, read_write> step_s0: array<f32>;
// <<< slot bindings
@group(0) @binding(1) var<uniform> P: array<vec4<u32>, NSLOT>;

@compute @workgroup_size(1)
fn main() {
  for (var slot = 0u; slot < NSLOT; slot = slot + 1u) {
    let o = P[slot].x;
    // >>> slot body
    if (slot == 0u) {
      step_s0[o] = step_s0[o] + 1.0;
    }
    // <<< slot body
  }
}
