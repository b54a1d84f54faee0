// FlowHost's client for Node: spawns `flowhost` (or connects to one behind a
// socket: `FlowHostClient.connect`), speaks line-delimited JSON-RPC 2.0 on
// its stdin/stdout, delivers events, answers the host's own
// requests with registered handlers (cancelled through an AbortSignal when
// the host sends $/cancelRequest), and times out what goes unanswered.
// The typed methods come from typed.js, generated from the contract.
import { spawn } from "node:child_process";
import { connect as connectSocket } from "node:net";
import { connect as connectTLS } from "node:tls";
import { createInterface } from "node:readline";
import { installTypedMethods, EVENT_STATUS } from "./typed.js";
export { EVENTS, CHALLENGES, HOST_REQUESTS, EVENT_STATUS } from "./typed.js";
export { PlatformKeystore, ALGORITHMS, P256_ORDER, lowS, derSignature } from "./platform-keys.js";

const at = (value, path) => path.split(".").reduce((v, part) => (v !== null && typeof v === "object" ? v[part] : undefined), value);

/** An event's status and error codes, read where the contract says that event carries them (undefined when it carries none). */
export function statusOf(event) {
  const where = EVENT_STATUS[event.method];
  return where && { status: at(event.params, where.statusPath), error: at(event.params, where.errorPath) };
}

export const PROTOCOL_VERSION = "1.1";

/** A JSON-RPC error answer: code, message and data as the host sent them. */
export class RPCError extends Error {
  constructor(error) {
    super(`${error.code} ${error.message}`);
    this.code = error.code;
    this.data = error.data;
    this.rpcMessage = error.message;
  }
}

export class FlowHostClient {
  /** argv: the flowhost executable and its arguments; or a connected socket (see `connect`). */
  constructor(argv, { env, timeoutMs = 10000 } = {}) {
    this.timeoutMs = timeoutMs;
    this.stderr = "";
    let input, output, exited;
    if (Array.isArray(argv)) {
      this.process = spawn(argv[0], argv.slice(1), { env: env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
      this.process.stderr.on("data", (chunk) => { this.stderr += chunk; });
      [input, output] = [this.process.stdout, this.process.stdin];
      exited = new Promise((resolve) => this.process.on("exit", (code) => resolve(code)));
    } else {
      // A host behind a socket: its exit status does not cross it, so `exited` resolves to null when it closes.
      this.process = null;
      this.socket = argv;
      [input, output] = [argv, argv];
      exited = new Promise((resolve) => argv.on("close", () => resolve(null)));
      argv.on("error", () => {});  // a reset connection ends like a closed one
    }
    this.output = output;
    this.nextId = 1;
    this.pending = new Map();      // id -> {resolve, reject, timer}
    this.handlers = new Map();     // host request method -> async (params, signal) => result
    this.inFlight = new Map();     // host request id -> AbortController
    this.events = [];              // events not yet taken by waitEvent
    this.waiters = [];             // {name, resolve, reject, timer}
    this.listeners = new Map();    // event name -> [handler]
    this.exited = exited.then((code) => { this.#closed(); return code; });
    createInterface({ input }).on("line", (line) => this.#receive(line));
  }

  /**
   * A host behind a socket (a socket-activated service, spec §23): `address`
   * is a Unix-domain socket's path, or `{host, port}`. With `tls` (node:tls
   * options: `ca`, `servername`, …) the connection is TLS and the server's
   * certificate is checked. Resolves once connected.
   */
  static connect(address, { tls, timeoutMs = 10000, connectTimeoutMs = 10000 } = {}) {
    const where = typeof address === "string" ? { path: address } : { host: address.host, port: address.port };
    return new Promise((resolve, reject) => {
      const socket = tls
        ? connectTLS({ ...where, ...(where.host && !tls.servername ? { servername: where.host } : {}), ...tls })
        : connectSocket(where);
      const timer = setTimeout(() => { socket.destroy(); reject(new Error(`cannot connect within ${connectTimeoutMs} ms`)); }, connectTimeoutMs);
      socket.once("error", (error) => { clearTimeout(timer); reject(error); });
      socket.once(tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        resolve(new FlowHostClient(socket, { timeoutMs }));
      });
    });
  }

  /** Sends a request; resolves with its result, rejects with RPCError or on timeout. */
  request(method, params, { timeoutMs = this.timeoutMs } = {}) {
    const id = this.nextId++;
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.#send(message);
    });
  }

  notify(method, params) {
    const message = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    this.#send(message);
  }

  initialize({ device = {}, clientInfo = { name: "flowhost-client-ts", version: "0.1.0" } } = {}) {
    return this.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientInfo, device });
  }

  /** Answers the host request `method`; the handler gets (params, signal) and may throw RPCError-like {code, message, data: {reason}}. */
  onRequest(method, handler) { this.handlers.set(method, handler); }

  /** Calls `handler(params)` for every `event` from now on. */
  on(event, handler) {
    const list = this.listeners.get(event) ?? [];
    list.push(handler);
    this.listeners.set(event, list);
  }

  /** The next event named `name` not yet taken (earlier ones of other names stay queued). */
  waitEvent(name, { timeoutMs = this.timeoutMs } = {}) {
    const index = this.events.findIndex((event) => event.method === name);
    if (index >= 0) return Promise.resolve(this.events.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const waiter = { name, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no ${name} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** shutdown, exit, and the exit status. */
  async close() {
    try {
      await this.request("shutdown");
      this.notify("exit");
    } catch {
      if (this.process) this.process.kill(); else this.socket.destroy();
    }
    if (this.socket) this.socket.end();
    return this.exited;
  }

  #send(message) { this.output.write(JSON.stringify(message) + "\n"); }

  #receive(line) {
    let message;
    try { message = JSON.parse(line); } catch { return; }
    if (Array.isArray(message)) { message.forEach((one) => this.#route(one)); return; }
    this.#route(message);
  }

  #route(message) {
    if (message.method === "$/cancelRequest") {
      this.inFlight.get(message.params?.id)?.abort();  // the host gave up: close the prompt
      return;
    }
    if (message.method !== undefined && message.id !== undefined) { this.#answer(message); return; }
    if (message.method !== undefined) {
      for (const handler of this.listeners.get(message.method) ?? []) handler(message.params);
      const waiter = this.waiters.find((one) => one.name === message.method);
      if (waiter) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        clearTimeout(waiter.timer);
        waiter.resolve(message);
      } else {
        this.events.push(message);
      }
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new RPCError(message.error)); else pending.resolve(message.result);
  }

  async #answer(message) {
    const handler = this.handlers.get(message.method);
    if (!handler) return;  // unanswered: the host times it out
    const controller = new AbortController();
    this.inFlight.set(message.id, controller);
    let reply;
    try {
      reply = { jsonrpc: "2.0", id: message.id, result: await handler(message.params, controller.signal) };
    } catch (error) {
      reply = { jsonrpc: "2.0", id: message.id, error: { code: error.code ?? 1, message: error.message ?? "failed", data: error.data } };
    } finally {
      this.inFlight.delete(message.id);
    }
    if (!controller.signal.aborted) this.#send(reply);  // a cancelled request's late answer is not sent
  }

  #closed() {
    for (const [, pending] of this.pending) { clearTimeout(pending.timer); pending.reject(new Error("the host exited")); }
    this.pending.clear();
    for (const waiter of this.waiters) { clearTimeout(waiter.timer); waiter.reject(new Error("the host exited")); }
    this.waiters = [];
  }
}

installTypedMethods(FlowHostClient);
