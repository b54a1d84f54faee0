// Runs the shared scenario suite (Protocol/scenarios/flows.json; format in its
// README) with this client against a real flowhost binary.
// Usage: node test/scenarios.mjs FLOWHOST FOLDER [SCENARIOS]
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { FlowHostClient, RPCError } from "../index.js";

const [binary, folder, path = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "scenarios", "flows.json")] = process.argv.slice(2);
const suite = JSON.parse(readFileSync(path, "utf8"));
// FLOWHOST_SCENARIO_STORE: another store (a postgresql:// URL) instead of the folder's SQLite file.
const store = process.env.FLOWHOST_SCENARIO_STORE || join(folder, "store.sqlite"), config = join(folder, "config.json");
writeFileSync(config, JSON.stringify(suite.config));

const lookup = (value, path) => path.split(".").reduce((at, part) => (at !== null && typeof at === "object" && part in at ? at[part] : undefined), value);
const substitute = (value, saved) => {
  if (typeof value === "string") {
    const whole = /^\{\{([^}]+)\}\}$/.exec(value);
    if (!whole) return value;
    const [name, ...rest] = whole[1].split(".");
    if (!(name in saved)) throw new Error(`nothing saved as ${name}`);
    return rest.length ? lookup(saved[name], rest.join(".")) : saved[name];
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, saved));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, saved)]));
  return value;
};
const check = (where, value, match = {}, saved) => {
  for (const [path, wanted] of Object.entries(match)) {
    const expected = substitute(wanted, saved), actual = lookup(value, path);
    if (!isDeepStrictEqual(actual, expected)) throw new Error(`${where}: ${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
};
const camel = (name) => name.split(/[./]/).map((part, i) => (i ? part[0].toUpperCase() + part.slice(1) : part)).join("");

const saved = {}, hosts = {};
async function step(s, where) {
  if (s.admin) {
    const out = execFileSync(binary, ["admin", ...s.admin, "--store", store, "--config", config, "--json"], { encoding: "utf8" });
    if (s.save) saved[s.save] = JSON.parse(out);
  } else if (s.start) {
    const host = new FlowHostClient([binary, "--store", store, "--config", config]);
    hosts[s.start] = host;
    for (const [method, result] of Object.entries(s.handle ?? {})) host.onRequest(method, async () => result);
    await host.initialize({ device: s.device });
  } else if (s.stop) {
    const status = await hosts[s.stop].close();
    delete hosts[s.stop];
    if (status !== 0) throw new Error(`${where}: the host exited with ${status}`);
  } else if (s.expect) {
    const event = await hosts[s.on].waitEvent(s.expect);
    check(`${where} (${s.expect})`, event.params ?? {}, s.match, saved);
    if (s.save) saved[s.save] = event.params ?? {};
  } else if (s.call) {
    const host = hosts[s.on], params = substitute(s.params ?? {}, saved);
    let result;
    try {
      result = typeof host[camel(s.call)] === "function" ? await host[camel(s.call)](params) : await host.request(s.call, params);
    } catch (error) {
      if (error instanceof RPCError && error.code === s.error) return;
      throw new Error(`${where}: ${s.call} failed: ${error.message}`);
    }
    if (s.error !== undefined) throw new Error(`${where}: ${s.call} succeeded, expected error ${s.error}`);
    check(`${where} (${s.call})`, result, s.match, saved);
    if (s.save) saved[s.save] = result;
  } else {
    throw new Error(`${where}: unknown step ${Object.keys(s)}`);
  }
}

try {
  for (const scenario of suite.scenarios) {
    for (const [index, s] of scenario.steps.entries()) {
      const where = `${scenario.name}, step ${index + 1}`;
      try { await step(s, where); } catch (error) { throw new Error(error.message.startsWith(where) ? error.message : `${where}: ${error.message}`); }
    }
    console.log(`scenario ok: ${scenario.name}`);
  }
} catch (error) {
  console.error(`scenario failed: ${error.message}`);
  for (const host of Object.values(hosts)) host.process.kill();
  process.exit(1);
}
