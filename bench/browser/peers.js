// The peers' side of bench/bench_browser.py: the same training step as bench/browser/webtorch_steps.py --
// MLP 784-256-10, batch 128, softmax cross-entropy, Adam(lr 1e-3), reading the loss back every step -- in
// TensorFlow.js 4.22 (WebGPU backend) and jax-js 0.1.25 (WebGPU device, the step jit-compiled).
// window.benchTfjs(cfg) / window.benchJax(cfg) resolve to {stepsPerS, msPerStep, firstLoss, finalLoss, ...}.
const BATCH = 128, IN = 784, HIDDEN = 256, OUT = 10;

async function timeSteps(step, { warmup = 2, steps = 20 }) {
  const firstLoss = await step();
  for (let i = 0; i < warmup; i++) await step();
  let finalLoss = NaN;
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) finalLoss = await step();
  const ms = performance.now() - t0;
  return { steps, stepsPerS: (steps * 1000) / ms, msPerStep: ms / steps, firstLoss, finalLoss };
}

window.benchTfjs = async (cfg) => {
  const tf = window.tf;
  await tf.setBackend("webgpu");
  await tf.ready();
  const scale1 = 1 / Math.sqrt(IN), scale2 = 1 / Math.sqrt(HIDDEN); // nn.Linear's default init bounds
  const w1 = tf.variable(tf.randomUniform([IN, HIDDEN], -scale1, scale1));
  const b1 = tf.variable(tf.randomUniform([HIDDEN], -scale1, scale1));
  const w2 = tf.variable(tf.randomUniform([HIDDEN, OUT], -scale2, scale2));
  const b2 = tf.variable(tf.randomUniform([OUT], -scale2, scale2));
  const x = tf.randomNormal([BATCH, IN]);
  const y = tf.oneHot(tf.randomUniform([BATCH], 0, OUT, "int32"), OUT);
  const opt = tf.train.adam(1e-3);
  const step = async () => {
    const loss = opt.minimize(() => tf.losses.softmaxCrossEntropy(
      y, tf.matMul(tf.relu(tf.matMul(x, w1).add(b1)), w2).add(b2)), true);
    const v = (await loss.data())[0];
    loss.dispose();
    return v;
  };
  const r = await timeSteps(step, cfg);
  return { ...r, backend: tf.getBackend(), version: tf.version.tfjs, tensors: tf.memory().numTensors };
};

window.benchJax = async (cfg) => {
  const jax = await import("/jax-js/jax/dist/index.js");
  const { numpy: np, nn, random, jit, valueAndGrad, tree } = jax;
  const devices = await jax.init("webgpu");
  if (!devices.includes("webgpu")) throw new Error("jax-js: no webgpu device");
  jax.defaultDevice("webgpu");
  const keys = random.split(random.key(0), 6);
  const [k1, k2, k3, k4, k5, k6] = [0, 1, 2, 3, 4, 5].map((i) => keys.ref.slice(i));
  keys.dispose();
  const s1 = 1 / Math.sqrt(IN), s2 = 1 / Math.sqrt(HIDDEN);
  const params = {
    w1: random.uniform(k1, [IN, HIDDEN], { minval: -s1, maxval: s1 }),
    b1: random.uniform(k2, [HIDDEN], { minval: -s1, maxval: s1 }),
    w2: random.uniform(k3, [HIDDEN, OUT], { minval: -s2, maxval: s2 }),
    b2: random.uniform(k4, [OUT], { minval: -s2, maxval: s2 }),
  };
  const x = random.normal(k5, [BATCH, IN]);
  const y = nn.oneHot(random.randint(k6, { minval: 0, maxval: OUT, shape: [BATCH] }), OUT);
  const lossFn = (p, xb, yb) => {
    const h = nn.relu(np.matmul(xb, p.w1).add(p.b1));
    const logp = nn.logSoftmax(np.matmul(h, p.w2).add(p.b2));
    return logp.mul(yb).sum().mul(-1 / BATCH);
  };
  const b1 = 0.9, b2 = 0.999, lr = 1e-3, eps = 1e-8;
  // one jitted step: loss, gradients and the Adam update (bias corrections passed in as scalars)
  const update = jit((p, m, v, xb, yb, c1, c2) => {
    const [loss, g] = valueAndGrad(lossFn)(tree.ref(p), xb, yb);
    const names = Object.keys(p);
    const np_ = {}, nm = {}, nv = {};
    for (const k of names) {
      nm[k] = m[k].mul(b1).add(g[k].ref.mul(1 - b1));
      nv[k] = v[k].mul(b2).add(g[k].ref.mul(g[k]).mul(1 - b2));
      const mhat = nm[k].ref.mul(c1.ref), vhat = nv[k].ref.mul(c2.ref);
      np_[k] = p[k].sub(mhat.mul(lr).div(np.sqrt(vhat).add(eps)));
    }
    c1.dispose();
    c2.dispose();
    return [loss, np_, nm, nv];
  });
  let p = params;
  let m = tree.map((a) => np.zerosLike(a.ref), p);
  let v = tree.map((a) => np.zerosLike(a.ref), p);
  let t = 0;
  const step = async () => {
    t += 1;
    const c1 = np.array(1 / (1 - b1 ** t)), c2 = np.array(1 / (1 - b2 ** t));
    const [loss, np_, nm, nv] = update(p, m, v, x.ref, y.ref, c1, c2);
    p = np_; m = nm; v = nv;
    const value = (await loss.data())[0];
    return value;
  };
  const r = await timeSteps(step, cfg);
  return { ...r, backend: "webgpu", version: "0.1.25" };
};

window.peersReady = true;
