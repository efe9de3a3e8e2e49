// The kernel starts before the rest of the app: index.html loads this module ahead of app.js, so the kernel's
// worker (and Pyodide's boot in it) begins while the page's own code, the editor and the notebook still load.
// app.js takes the started kernel from `started` (a module runs once: its import finds this same instance).
import { Kernel } from "./kernel.js";

export const ALIAS_KEY = "webtorch-notebook-torch-alias", CUDA_KEY = "webtorch-notebook-cuda";
export const CUDA_CHOICES = ["auto", "webgpu", "none"];  // the device panel's "cuda" names ... options
export const configURL = new URL("../../notebook-config.json", import.meta.url).href;

async function start() {
  const r = await fetch(configURL);
  if (!r.ok) throw new Error(`could not load the app's configuration ${configURL}: HTTP ${r.status}`);
  const config = await r.json();
  const url = (u) => new URL(u, configURL).href;
  const cuda = localStorage.getItem(CUDA_KEY);
  const kernel = new Kernel({ indexURL: url(config.indexURL), wheelURL: url(config.wheelURL),
    wheelURLs: (config.wheelURLs || []).map(url), packagesURL: config.packagesURL ? url(config.packagesURL) : null },
  { torchAlias: localStorage.getItem(ALIAS_KEY) !== "off", cuda: CUDA_CHOICES.includes(cuda) ? cuda : "auto" });
  const ready = kernel.start();
  ready.catch(() => {});  // app.js shows a failed start in its banner
  return { config, kernel, ready };
}

/** Resolves to {config: notebook-config.json, kernel: the started Kernel, ready: its start promise}. */
export const started = start();
