// random_philox.wgsl -- counter-based random numbers (Philox4x32-10) for rand / randn / randint.
//
// Computes: OUT[e] for e < n, four values per invocation from one Philox block with key = seed and
// counter = (base + invocation, base_hi, 0, 0). KIND 0: uniform in [lo, hi); KIND 1: normal (Box-Muller)
// with mean lo and std hi; KIND 2: integers in [ilo, ilo + range) (OUT is i32, or u32 for ilo = 0 and a range
// past 2^31); KIND 3: the raw 32-bit words (OUT is u32; int64 draws combine two).
// The stream is a pure function of (seed, counter), so a generator is (seed, offset): reproducible and
// free of host state beyond two integers.
// Launch: workgroup_size 256; grid (ceil(n / 1024), 1, 1) (y > 1 when that exceeds 65535).
// Parameters P: [0] = (n, seed_lo, seed_hi, base_lo); [1] = (base_hi, lo bits, hi bits, range or 0).

const KIND: u32 = 0u;
alias OutT = f32;

@group(0) @binding(0) var<storage, read_write> OUT: array<OutT>;
@group(0) @binding(1) var<uniform> P: array<vec4<u32>, 2>;

fn mulhi(a: u32, b: u32) -> u32 {
  let a_lo = a & 0xffffu;
  let a_hi = a >> 16u;
  let b_lo = b & 0xffffu;
  let b_hi = b >> 16u;
  let lo_lo = a_lo * b_lo;
  let hi_lo = a_hi * b_lo;
  let lo_hi = a_lo * b_hi;
  let cross = (lo_lo >> 16u) + (hi_lo & 0xffffu) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 16u) + (cross >> 16u);
}

fn philox(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var c = ctr;
  var k = key;
  for (var r = 0; r < 10; r = r + 1) {
    let hi0 = mulhi(0xD2511F53u, c.x);
    let lo0 = 0xD2511F53u * c.x;
    let hi1 = mulhi(0xCD9E8D57u, c.z);
    let lo1 = 0xCD9E8D57u * c.z;
    c = vec4<u32>(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

// [0, 1) with 24 random bits
fn unit(u: u32) -> f32 {
  return f32(u >> 8u) * 5.9604644775390625e-08;
}

// x rounded to f32 before a later add: P[1].w is 0 for the float kinds, but the compiler cannot know it, so it
// cannot contract x * y + z into one fused multiply-add (NVIDIA's Vulkan driver does, H200: uniform_ then differed
// from the cpu device's a + (b - a) * u by an ulp in 1 of 4 draws)
fn rounded(x: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(x) ^ P[1].w);
}

fn value(bits: vec4<u32>, q: u32) -> OutT {
  let lo = bitcast<f32>(P[1].y);
  let hi = bitcast<f32>(P[1].z);
  if (KIND == 1u) {
    let pair = q / 2u;
    let u1 = 1.0 - unit(bits[2u * pair]);
    let u2 = unit(bits[2u * pair + 1u]);
    let rad = sqrt(-2.0 * log(u1));
    let th = 6.283185307179586 * u2;
    let z = select(rad * sin(th), rad * cos(th), q % 2u == 0u);
    return OutT(lo + rounded(hi * z));
  }
  if (KIND == 2u) {
    return OutT(bitcast<i32>(P[1].y) + bitcast<i32>(bits[q] % P[1].w));
  }
  if (KIND == 3u) {
    return OutT(bits[q]);
  }
  return OutT(lo + rounded((hi - lo) * unit(bits[q])));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let inv = gid.x + gid.y * nwg.x * 256u;
  let n = P[0].x;
  if (inv * 4u >= n) {
    return;
  }
  let base = P[0].w + inv;
  let carry = select(0u, 1u, base < inv);
  let bits = philox(vec4<u32>(base, P[1].x + carry, 0u, 0u), vec2<u32>(P[0].y, P[0].z));
  for (var q = 0u; q < 4u; q = q + 1u) {
    let e = inv * 4u + q;
    if (e < n) {
      OUT[e] = value(bits, q);
    }
  }
}
