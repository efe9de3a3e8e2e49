// The peers' side of bench/bench_browser.py: the models of bench/browser/models.py -- same parameters (names,
// PyTorch layouts, initial values from the same formula), same data, same optimizer, the loss read back every
// step -- in TensorFlow.js 4.22 (its WebGPU backend, and its WASM backend: SIMD, threads where the page is
// cross-origin isolated) and jax-js 0.1.25 (its WebGPU device and its WASM device, each step jit-compiled),
// plus matmul and an 8-op elementwise chain. The host passes models.spec(name) as `spec` and calls, round by
// round (interleaved with the other frameworks):
//   window.peerModel(peer, spec, {warmup}) -> {firstLoss, firstStepAtMs}: builds the model (dropping the one
//     before), runs its first step and the warm-up steps;  window.peerSteps(peer, steps) -> {msPerStep, finalLoss}
//   window.peerMatmul(peer, size, reps), window.peerChain(peer, n, reps) -> ms per repetition
const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const fill = (n, seed, scale) => Float32Array.from({ length: n }, (_, i) => scale * Math.sin(i * 0.7548776662 + seed * 1.2345));
const labels = (n, seed, classes) => Int32Array.from({ length: n }, (_, i) => (i * 7 + seed * 3) % classes);

function paramValues(spec) { // as models.param_values
  return spec.params.map(([, shape, scale], i) => {
    const n = numel(shape);
    return scale === "ones" ? new Float32Array(n).fill(1) : scale === "zeros" ? new Float32Array(n) : fill(n, i + 1, scale);
  });
}

function batchOf(spec) { // as models.batch
  const n = numel(spec.x);
  if (spec.name === "gpt") {
    const t = labels(n + 1, 0, spec.classes);
    return [t.slice(0, n), t.slice(1)];
  }
  return [fill(n, 0, 1), labels(spec.x[0], 1, spec.classes)];
}

// ms per repetition of run(n) (n repetitions, waited for once), after one warm-up repetition
async function msPerRep(run, reps) {
  await run(1);
  const t0 = performance.now();
  await run(reps);
  return (performance.now() - t0) / reps;
}

// ---------------------------------------------------------------- TensorFlow.js (layers as ops, NHWC convs)
// backend "webgpu" or "wasm" (one per page: each peer has its own page)
const tfjsOn = (backend) => {
  const tfjs = {
    async init() {
      const tf = window.tf;
      await tf.setBackend(backend);
      await tf.ready();
      return tf;
    },
    linear: (tf, x, w, b) => (b ? tf.matMul(x, w, false, true).add(b) : tf.matMul(x, w, false, true)),
    layerNorm(tf, x, w, b) {
      const { mean, variance } = tf.moments(x, -1, true);
      return x.sub(mean).mul(tf.rsqrt(variance.add(1e-5))).mul(w).add(b);
    },
    gelu: (tf, x) => x.mul(0.5).mul(tf.tanh(x.add(x.pow(3).mul(0.044715)).mul(Math.sqrt(2 / Math.PI))).add(1)),
    forward(tf, spec, p, x) {
      const L = (name, h) => tfjs.linear(tf, h, p[`${name}.weight`], p[`${name}.bias`]);
      if (spec.name === "mlp") return L("2", tf.relu(L("0", x)));
      if (spec.name === "lenet") {
        const conv = (name, h) => tf.relu(tf.conv2d(h, p[`${name}.weight`], 1, "valid").add(p[`${name}.bias`]));
        let h = tf.maxPool(conv("conv1", x), 2, 2, "valid");
        h = tf.maxPool(conv("conv2", h), 2, 2, "valid");
        h = h.transpose([0, 3, 1, 2]).reshape([spec.x[0], 400]); // PyTorch's flatten order (C, H, W)
        return L("fc3", tf.relu(L("fc2", tf.relu(L("fc1", h)))));
      }
      if (spec.name === "lstm") {
        const { layers, hidden: H, seq: T, batch: B } = spec.lstm;
        let seqIn = x; // (B, T, in)
        let last;
        for (let l = 0; l < layers; l++) {
          const xp = tfjs.linear(tf, seqIn.reshape([B * T, -1]), p[`rnn.weight_ih_l${l}`],
            p[`rnn.bias_ih_l${l}`].add(p[`rnn.bias_hh_l${l}`])).reshape([B, T, 4 * H]);
          let h = tf.zeros([B, H]), c = tf.zeros([B, H]);
          const outs = [];
          for (let t = 0; t < T; t++) {
            const g = xp.slice([0, t, 0], [B, 1, 4 * H]).reshape([B, 4 * H]).add(tfjs.linear(tf, h, p[`rnn.weight_hh_l${l}`]));
            const [i, f, gg, o] = tf.split(g, 4, 1);
            c = tf.sigmoid(f).mul(c).add(tf.sigmoid(i).mul(tf.tanh(gg)));
            h = tf.sigmoid(o).mul(tf.tanh(c));
            outs.push(h);
          }
          seqIn = tf.stack(outs, 1);
          last = h;
        }
        return L("head", last);
      }
      // gpt
      const { d, heads, ctx: T, batch: B, layers } = spec.gpt, hd = d / heads;
      const mask = tf.linalg.bandPart(tf.ones([T, T]), -1, 0).sub(1).mul(1e9); // 0 on and below the diagonal
      let h = tf.gather(p["wte.weight"], x).add(p["wpe.weight"]); // (B, T, d)
      const heads4 = (z) => z.reshape([B, T, heads, hd]).transpose([0, 2, 1, 3]);
      for (let b = 0; b < layers; b++) {
        const n = (s) => `blocks.${b}.${s}`;
        const a = tfjs.layerNorm(tf, h, p[n("ln1.weight")], p[n("ln1.bias")]).reshape([B * T, d]);
        const [q, k, v] = tf.split(L(n("attn"), a), 3, 1).map(heads4);
        const att = tf.softmax(tf.matMul(q, k, false, true).mul(1 / Math.sqrt(hd)).add(mask));
        const y = tf.matMul(att, v).transpose([0, 2, 1, 3]).reshape([B * T, d]);
        h = h.add(L(n("proj"), y).reshape([B, T, d]));
        const m = tfjs.layerNorm(tf, h, p[n("ln2.weight")], p[n("ln2.bias")]).reshape([B * T, d]);
        h = h.add(L(n("fc2"), tfjs.gelu(tf, L(n("fc"), m))).reshape([B, T, d]));
      }
      const f = tfjs.layerNorm(tf, h, p["ln_f.weight"], p["ln_f.bias"]).reshape([B * T, d]);
      return tfjs.linear(tf, f, p["head.weight"]);
    },
    async model(spec) { // -> {step: async () => loss, dispose}
      const tf = await tfjs.init();
      const values = paramValues(spec);
      const p = {};
      spec.params.forEach(([name, shape], i) => {
        let t = tf.tensor(values[i], shape);
        if (spec.name === "lenet" && shape.length === 4) t = t.transpose([2, 3, 1, 0]); // OIHW -> HWIO
        p[name] = tf.variable(t);
      });
      const [xs, ys] = batchOf(spec);
      let x = spec.name === "gpt" ? tf.tensor(xs, spec.x, "int32") : tf.tensor(xs, spec.x);
      if (spec.name === "lenet") x = x.transpose([0, 2, 3, 1]); // NCHW -> NHWC
      const y = tf.oneHot(tf.tensor(ys, [ys.length], "int32"), spec.classes);
      const vars = Object.values(p);
      const opt = spec.optim === "sgd" ? tf.train.sgd(spec.lr) : tf.train.adam(spec.lr, 0.9, 0.999, 1e-8);
      const decay = spec.optim === "adamw" ? 1 - spec.lr * spec.weight_decay : 1;
      const step = async () => {
        if (decay !== 1) tf.tidy(() => vars.forEach((v) => v.assign(v.mul(decay)))); // AdamW's decoupled decay
        const loss = opt.minimize(() => tf.losses.softmaxCrossEntropy(y, tfjs.forward(tf, spec, p, x)), true, vars);
        const v = (await loss.data())[0];
        loss.dispose();
        return v;
      };
      return { step, dispose: () => { opt.dispose(); tf.dispose([...vars, x, y]); } };
    },
    async matmul(size, reps) {
      const tf = await tfjs.init();
      const a = tf.randomNormal([size, size]), b = tf.randomNormal([size, size]);
      const run = async (n) => { // every result kept until the last is read (the queue runs in order)
        const cs = Array.from({ length: n }, () => tf.matMul(a, b));
        const one = cs[n - 1].slice([0, 0], [1, 1]);
        await one.data();
        tf.dispose([...cs, one]);
      };
      const ms = await msPerRep(run, reps);
      tf.dispose([a, b]);
      return ms;
    },
    async chain(n, reps) {
      const tf = await tfjs.init();
      const x = tf.randomNormal([n]);
      const run = async (k) => {
        const ys = Array.from({ length: k }, () => tf.tidy(
          () => tf.tanh(tf.sqrt(tf.abs(tf.relu(x.mul(1.01).add(0.5)).mul(0.9).sub(0.1))))));
        const one = ys[k - 1].slice([0], [1]);
        await one.data();
        tf.dispose([...ys, one]);
      };
      const ms = await msPerRep(run, reps);
      x.dispose();
      return ms;
    },
  };
  return tfjs;
};

// ---------------------------------------------------------------- jax-js (arrays are moved: .ref keeps one)
// device "webgpu" or "wasm"
const jaxjsOn = (device) => {
  const jaxjs = {
    async init() {
      const jax = await import("/jax-js/jax/dist/index.js");
      const devices = await jax.init(device);
      if (!devices.includes(device)) throw new Error(`jax-js: no ${device} device`);
      jax.defaultDevice(device);
      return jax;
    },
    forward(jax, spec, p, x) {
      const { numpy: np, nn, lax } = jax;
      const lin = (name, h) => {
        const y = np.matmul(h, p[`${name}.weight`].ref.transpose());
        return p[`${name}.bias`] ? y.add(p[`${name}.bias`].ref) : y;
      };
      const layerNorm = (h, w, b) => {
        const mean = h.ref.mean(-1, { keepdims: true });
        const c = h.sub(mean);
        const v = c.ref.mul(c.ref).mean(-1, { keepdims: true });
        return c.div(np.sqrt(v.add(1e-5))).mul(w.ref).add(b.ref);
      };
      if (spec.name === "mlp") return lin("2", nn.relu(lin("0", x)));
      if (spec.name === "lenet") {
        const B = spec.x[0];
        const conv = (name, h) => nn.relu(lax.conv(h, p[`${name}.weight`].ref, [1, 1], "VALID")
          .add(p[`${name}.bias`].ref.reshape([1, -1, 1, 1])));
        const pool = (h) => { // 2x2 max-pool as a reshape and a max
          const [b, c, hh, ww] = h.shape;
          return h.reshape([b, c, hh / 2, 2, ww / 2, 2]).max([3, 5]);
        };
        const h = pool(conv("conv2", pool(conv("conv1", x)))).reshape([B, 400]);
        return lin("fc3", nn.relu(lin("fc2", nn.relu(lin("fc1", h)))));
      }
      if (spec.name === "lstm") {
        const { layers, hidden: H, seq: T, batch: B } = spec.lstm;
        let seqIn = x;
        let last;
        for (let l = 0; l < layers; l++) {
          const xp = np.matmul(seqIn.reshape([B * T, -1]), p[`rnn.weight_ih_l${l}`].ref.transpose())
            .add(p[`rnn.bias_ih_l${l}`].ref).add(p[`rnn.bias_hh_l${l}`].ref).reshape([B, T, 4 * H]);
          let h = np.zeros([B, H]), c = np.zeros([B, H]);
          const outs = [];
          for (let t = 0; t < T; t++) {
            const g = xp.ref.slice([], t).add(np.matmul(h, p[`rnn.weight_hh_l${l}`].ref.transpose()));
            const gate = (k) => g.ref.slice([], [k * H, (k + 1) * H]);
            const [i, f, gg, o] = [0, 1, 2, 3].map(gate);
            g.dispose();
            c = nn.sigmoid(f).mul(c).add(nn.sigmoid(i).mul(np.tanh(gg)));
            h = nn.sigmoid(o).mul(np.tanh(c.ref));
            outs.push(h.ref);
          }
          xp.dispose();
          c.dispose();
          seqIn = np.stack(outs, 1);
          if (l < layers - 1) h.dispose();
          last = h;
        }
        seqIn.dispose();
        return lin("head", last);
      }
      const { d, heads, ctx: T, batch: B, layers } = spec.gpt, hd = d / heads;
      const mask = np.tril(np.ones([T, T])).sub(1).mul(1e9);
      let h = np.take(p["wte.weight"].ref, x, 0).add(p["wpe.weight"].ref);
      const heads4 = (z) => z.reshape([B, T, heads, hd]).transpose([0, 2, 1, 3]);
      for (let b = 0; b < layers; b++) {
        const n = (s) => `blocks.${b}.${s}`;
        const a = layerNorm(h.ref, p[n("ln1.weight")], p[n("ln1.bias")]).reshape([B * T, d]);
        const qkv = lin(n("attn"), a);
        const [q, k, v] = [0, 1, 2].map((j) => heads4(qkv.ref.slice([], [j * d, (j + 1) * d])));
        qkv.dispose();
        const att = nn.softmax(np.matmul(q, k.transpose([0, 1, 3, 2])).mul(1 / Math.sqrt(hd)).add(mask.ref), -1);
        const y = np.matmul(att, v).transpose([0, 2, 1, 3]).reshape([B * T, d]);
        h = h.add(lin(n("proj"), y).reshape([B, T, d]));
        const m = layerNorm(h.ref, p[n("ln2.weight")], p[n("ln2.bias")]).reshape([B * T, d]);
        h = h.add(lin(n("fc2"), nn.gelu(lin(n("fc"), m), { approximate: true })).reshape([B, T, d]));
      }
      mask.dispose();
      const f = layerNorm(h, p["ln_f.weight"], p["ln_f.bias"]).reshape([B * T, d]);
      return np.matmul(f, p["head.weight"].ref.transpose());
    },
    async model(spec) {
      const jax = await jaxjs.init();
      const { numpy: np, nn, jit, valueAndGrad, tree } = jax;
      const values = paramValues(spec);
      let p = {};
      spec.params.forEach(([name, shape], i) => { p[name] = np.array(values[i], { shape }); });
      const [xs, ys] = batchOf(spec);
      const x = spec.name === "gpt" ? np.array(xs, { shape: spec.x, dtype: np.int32 }) : np.array(xs, { shape: spec.x });
      const y = nn.oneHot(np.array(ys, { shape: [ys.length], dtype: np.int32 }), spec.classes);
      const rows = ys.length;
      const lossFn = (params, xb, yb) => {
        const logp = nn.logSoftmax(jaxjs.forward(jax, spec, params, xb));
        tree.dispose(params);
        return logp.mul(yb).sum().mul(-1 / rows);
      };
      const { lr } = spec, b1 = 0.9, b2 = 0.999, eps = 1e-8;
      const decay = spec.optim === "adamw" ? 1 - lr * spec.weight_decay : 1;
      // one jitted step: loss, gradients and the update (Adam's bias corrections passed in as scalars)
      const update = jit((params, m, v, xb, yb, c1, c2) => {
        const [loss, g] = valueAndGrad(lossFn)(tree.ref(params), xb, yb);
        const np_ = {}, nm = {}, nv = {};
        for (const k of Object.keys(params)) {
          if (spec.optim === "sgd") {
            np_[k] = params[k].sub(g[k].mul(lr));
            nm[k] = m[k];
            nv[k] = v[k];
            continue;
          }
          nm[k] = m[k].mul(b1).add(g[k].ref.mul(1 - b1));
          nv[k] = v[k].mul(b2).add(g[k].ref.mul(g[k]).mul(1 - b2));
          const mhat = nm[k].ref.mul(c1.ref), vhat = nv[k].ref.mul(c2.ref);
          np_[k] = params[k].mul(decay).sub(mhat.mul(lr).div(np.sqrt(vhat).add(eps)));
        }
        c1.dispose();
        c2.dispose();
        return [loss, np_, nm, nv];
      });
      let m = tree.map((a) => np.zerosLike(a.ref), p);
      let v = tree.map((a) => np.zerosLike(a.ref), p);
      let t = 0;
      const step = async () => {
        t += 1;
        const c1 = np.array(1 / (1 - b1 ** t)), c2 = np.array(1 / (1 - b2 ** t));
        const [loss, np_, nm, nv] = update(p, m, v, x.ref, y.ref, c1, c2);
        p = np_; m = nm; v = nv;
        return (await loss.data())[0];
      };
      return { step, dispose: () => tree.dispose([p, m, v, x, y]) };
    },
    async matmul(size, reps) {
      const jax = await jaxjs.init();
      const { numpy: np, random } = jax;
      const [ka, kb] = [1, 2].map((i) => random.key(i));
      const a = random.normal(ka, [size, size]), b = random.normal(kb, [size, size]);
      const run = async (n) => { // every result kept until all are ready (a lazy array nobody holds may never run)
        const cs = Array.from({ length: n }, () => np.matmul(a.ref, b.ref));
        await jax.blockUntilReady(cs);
        cs.forEach((c) => c.dispose());
      };
      const ms = await msPerRep(run, reps);
      a.dispose(); b.dispose();
      return ms;
    },
    async chain(n, reps) {
      const jax = await jaxjs.init();
      const { numpy: np, nn, random, jit } = jax;
      const x = random.normal(random.key(0), [n]);
      const f = jit((z) => np.tanh(np.sqrt(np.abs(nn.relu(z.mul(1.01).add(0.5)).mul(0.9).sub(0.1)))));
      const run = async (k) => {
        const ys = Array.from({ length: k }, () => f(x.ref));
        await jax.blockUntilReady(ys);
        ys.forEach((y) => y.dispose());
      };
      const ms = await msPerRep(run, reps);
      x.dispose();
      return ms;
    },
  };
  return jaxjs;
};

const PEERS = { tfjs: tfjsOn("webgpu"), "tfjs-wasm": tfjsOn("wasm"), "jax-js": jaxjsOn("webgpu"),
  "jax-js-wasm": jaxjsOn("wasm") };
const live = {}; // peer -> the model being timed: {step, dispose}
window.peerModel = async (peer, spec, { warmup }) => {
  live[peer]?.dispose();
  live[peer] = await PEERS[peer].model(spec);
  const firstLoss = await live[peer].step();
  const firstStepAtMs = performance.now(); // on the page's clock: a fresh page's cold start
  for (let i = 0; i < warmup; i++) await live[peer].step();
  return { firstLoss, firstStepAtMs };
};
window.peerSteps = async (peer, steps) => {
  let finalLoss = NaN;
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) finalLoss = await live[peer].step();
  return { msPerStep: (performance.now() - t0) / steps, finalLoss };
};
window.peerMatmul = (peer, size, reps) => PEERS[peer].matmul(size, reps);
window.peerChain = (peer, n, reps) => PEERS[peer].chain(n, reps);
window.peersReady = true;
