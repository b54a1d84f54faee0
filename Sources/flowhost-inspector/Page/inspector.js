// FlowHost Inspector: one panel per device, each a host process behind a
// WebSocket (`/host`), driven through forms built from `rpc.discover`.
// No build step: this file is what the browser runs.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";

// Secrets are masked in the timeline and the export as the host's --trace
// masks them: SECRET_MEMBERS, POSITIONAL_SECRETS and MASK come from
// secrets.js, generated from Protocol/masked-secrets.json (spec §8); what
// the flows declare secret comes from rpc.discover (declaredMasked).

// Values that change from run to run: `{{*}}` in an exported golden
// transcript, the ones Tests/EndToEnd/test_golden.py normalizes.
const VARYING_STRINGS = ["sessionID", "verificationKey", "notification_uuid", "create_ts", "expiry_timestamp", "update_ts",
  "payloadSignature", "dataSignatureID", "keyID", "publicKey", "signature", "jwtJsonTokenInfo"];
const VARYING_NUMBERS = ["create_ts_epoch", "expiry_timestamp_epoch", "ResponseDataLen", "signedAt"];

function normalized(line) {
  return line
    .replace(new RegExp(`"(${VARYING_STRINGS.join("|")})":"[^"]+"`, "g"), '"$1":"{{*}}"')
    .replace(new RegExp(`"(${VARYING_NUMBERS.join("|")})":\\d+`, "g"), '"$1":{{*}}')
    .replace(/("key":"VERIFICATION_KEY","value":")[^"]+"/g, '$1{{*}}"');
}

const LDA_NAMES = { 1: "fingerprint", 2: "face", 3: "pattern", 4: "SSKB password", 8: "device passcode", 9: "device LDA", 10: "biometric" };

const discovery = { methods: new Map(), events: new Map(), answers: new Map(), challengeEvents: new Set() };
const devices = [];
const timeline = [];

// ---------------------------------------------------------------- utilities

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function masked(value, method) {
  if (Array.isArray(value)) {
    const secrets = POSITIONAL_SECRETS[method] || [];
    return value.map((item, index) => secrets.includes(index) && typeof item === "string" ? MASK : masked(item));
  }
  if (value && typeof value === "object") {
    const copy = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = SECRET_MEMBERS.has(key) && typeof item === "string" ? MASK : masked(item);
    }
    return copy;
  }
  return value;
}

// What the flows declare secret (spec §8), from rpc.discover: a method's
// params marked x-flowhost-secret, by name and by position, and the members
// of an event's params whose property schema says "secret": true.
function secretPaths(schema, path, paths) {
  for (const [name, property] of Object.entries(schema?.properties || {})) {
    if (property?.secret === true) paths.push([...path, name]);
    else secretPaths(property, [...path, name], paths);
  }
  return paths;
}

function declaredMasked(params, method) {
  if (!params || typeof params !== "object") return params;
  const copy = Array.isArray(params) ? [...params] : { ...params };
  (discovery.methods.get(method)?.params || []).forEach((param, index) => {
    if (!param["x-flowhost-secret"]) return;
    if (Array.isArray(copy)) { if (index < copy.length) copy[index] = MASK; }
    else if (param.name in copy) copy[param.name] = MASK;
  });
  for (const path of secretPaths(discovery.events.get(method)?.params, [], [])) {
    let holder = copy;
    for (const name of path.slice(0, -1)) {
      if (!holder[name] || typeof holder[name] !== "object") { holder = null; break; }
      holder[name] = Array.isArray(holder[name]) ? [...holder[name]] : { ...holder[name] };
      holder = holder[name];
    }
    const last = path[path.length - 1];
    if (holder && last in holder) holder[last] = MASK;
  }
  return copy;
}

function maskedFrame(message) {
  if (!message || typeof message !== "object") return message;
  const copy = masked(message);
  if (message.params !== undefined) copy.params = masked(declaredMasked(message.params, message.method), message.method);
  return copy;
}

function base64(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

function unbase64(text) {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

// ------------------------------------------------------------ platform keys
// Keys the page makes itself (keyCustody "platform"), in WebCrypto, not
// extractable, kept in IndexedDB so a reload keeps the device: P-256
// (ES256, what the Secure Enclave, TPMs and passkeys make) by default, or
// Ed25519 (the device setting keyAlgorithm), from what the host offers.

const keystore = {
  open() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open("flowhost-inspector", 1);
      request.onupgradeneeded = () => request.result.createObjectStore("keys");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  },
  async put(keyID, pair) {
    const db = await this.open();
    await new Promise((resolve, reject) => {
      const tx = db.transaction("keys", "readwrite");
      tx.objectStore("keys").put(pair, keyID);
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  },
  async get(keyID) {
    const db = await this.open();
    return new Promise((resolve, reject) => {
      const request = db.transaction("keys").objectStore("keys").get(keyID);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  },
};

// The wire's algorithm names (spec §7), as WebCrypto makes and uses them.
const KEY_ALGORITHMS = {
  ES256: { generate: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  Ed25519: { generate: { name: "Ed25519" }, sign: { name: "Ed25519" } },
};

function unavailable(message) {
  return { code: 1, message, data: { reason: "unavailable" } };
}

// The device's choice if the host offers it, else the first the host
// offers that the page can make. A host that names none offers Ed25519 (spec §7).
function chosenAlgorithm(offered, preferred) {
  const acceptable = Array.isArray(offered) && offered.length ? offered : ["Ed25519"];
  if (acceptable.includes(preferred)) return preferred;
  const other = acceptable.find((name) => name in KEY_ALGORITHMS);
  if (!other) throw unavailable(`this page makes ES256 and Ed25519 keys; the host offers ${acceptable.join(", ")}`);
  return other;
}

async function createDeviceKey(params, preferred) {
  const algorithm = chosenAlgorithm(params.algorithms, preferred);
  const pair = await crypto.subtle.generateKey(KEY_ALGORITHMS[algorithm].generate, false, ["sign", "verify"]);
  // "raw": Ed25519's 32 bytes; for P-256 the 65-byte uncompressed point.
  const publicKey = await crypto.subtle.exportKey("raw", pair.publicKey);
  const keyID = "inspector-" + crypto.randomUUID();
  await keystore.put(keyID, pair);
  return { keyID, publicKey: base64(publicKey), algorithm };
}

// P-256's group order n: the host takes only s ≤ n/2 (spec §7), and
// WebCrypto's r‖s may carry either s; (r, n − s) is the same signature.
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function lowS(signature) {
  const bytes = new Uint8Array(signature);
  const hex = (part) => Array.from(part, (byte) => byte.toString(16).padStart(2, "0")).join("");
  const s = BigInt("0x" + hex(bytes.slice(32)));
  if (s <= P256_ORDER / 2n) return bytes;
  const low = (P256_ORDER - s).toString(16).padStart(64, "0");
  const result = new Uint8Array(bytes);
  for (let index = 0; index < 32; index += 1) result[32 + index] = parseInt(low.slice(index * 2, index * 2 + 2), 16);
  return result;
}

async function signDeviceChallenge(params) {
  const pair = await keystore.get(params.keyID);
  if (!pair) throw unavailable("no such key in this browser");
  // The key's own algorithm, as it was made: never one a request names.
  const algorithm = pair.privateKey.algorithm.name === "ECDSA" ? "ES256" : "Ed25519";
  const signature = await crypto.subtle.sign(KEY_ALGORITHMS[algorithm].sign, pair.privateKey, unbase64(params.challenge));
  return { signature: base64(algorithm === "ES256" ? lowS(signature) : signature) };
}

// ---------------------------------------------------------------- WebAuthn
// keyCustody "webauthn": the device is a credential of this browser's
// authenticator (a platform authenticator, a security key, or Chromium's
// virtual one in the tests). The host's requests carry WebAuthn's JSON
// encoding and take `toJSON()`'s back unchanged (spec §7). WebAuthn needs a
// secure context and a domain for its RP id: the page at http://localhost,
// not at 127.0.0.1; the inspector tells its hosts that origin (webauthn.origins).

function webAuthnRefusal(error) {
  // NotAllowedError: the person dismissed the prompt, or it timed out.
  const reason = error?.name === "NotAllowedError" ? "cancelled" : "unavailable";
  const where = location.hostname === "localhost" ? "" : ` (WebAuthn needs this page at ${localhostAddress()})`;
  return { code: 1, message: `navigator.credentials: ${error?.name || "Error"}: ${error?.message || error}${where}`, data: { reason } };
}

function localhostAddress() {
  return `http://localhost:${location.port}/?token=${encodeURIComponent(token)}`;
}

function webAuthnAvailable() {
  if (!window.PublicKeyCredential || !navigator.credentials || !PublicKeyCredential.parseCreationOptionsFromJSON) {
    throw unavailable("this browser has no WebAuthn with its JSON methods (PublicKeyCredential.parseCreationOptionsFromJSON)");
  }
}

async function createCredential(params) {
  webAuthnAvailable();
  let credential;
  try {
    credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(params) });
  } catch (error) { throw webAuthnRefusal(error); }
  return credential.toJSON();
}

async function getAssertion(params) {
  webAuthnAvailable();
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(params) });
  } catch (error) { throw webAuthnRefusal(error); }
  return credential.toJSON();
}

// The host requests the page answers itself, and with what.
const PAGE_ANSWERS = {
  "platform/createDeviceKey": { answer: (params, device) => createDeviceKey(params, device.settings.keyAlgorithm),
    by: "this page's keystore (WebCrypto, a key it cannot export)" },
  "platform/signDeviceChallenge": { answer: (params) => signDeviceChallenge(params),
    by: "this page's keystore (WebCrypto, a key it cannot export)" },
  "platform/createCredential": { answer: (params) => createCredential(params), by: "this browser's authenticator (navigator.credentials.create)" },
  "platform/getAssertion": { answer: (params) => getAssertion(params), by: "this browser's authenticator (navigator.credentials.get)" },
};

// ---------------------------------------------------------------- discovery

function learn(document) {
  for (const method of document.methods || []) discovery.methods.set(method.name, method);
  for (const method of document.methods || []) {
    for (const event of method["x-flowhost-answers"] || []) {
      if (!discovery.answers.has(event)) discovery.answers.set(event, []);
      discovery.answers.get(event).push(method.name);
    }
  }
  const flows = new Map();
  for (const event of document["x-flowhost-events"] || []) {
    discovery.events.set(event.name, event);
    if (event.challenge) discovery.challengeEvents.add(event.name);
    if (!flows.has(event.flow)) flows.set(event.flow, { methods: [], events: [] });
    flows.get(event.flow).events.push(event.name);
  }
  for (const method of document.methods || []) {
    for (const flow of method["x-flowhost-flows"] || []) {
      if (!flows.has(flow)) flows.set(flow, { methods: [], events: [] });
      flows.get(flow).methods.push(method.name);
    }
  }
  const hostRequests = (document["x-flowhost-host-requests"] || []).map((request) => request.name);
  renderFlows(flows, hostRequests);
  for (const device of devices) device.renderMethods();
}

function renderFlows(flows, hostRequests) {
  const list = document.getElementById("flows");
  list.replaceChildren();
  for (const [name, flow] of [...flows].sort(([a], [b]) => (a === "host") - (b === "host") || a.localeCompare(b))) {
    list.append(el("li", { "data-testid": `flow-${name}`, class: "flow" },
      el("strong", { text: name }),
      el("div", { class: "muted", text: "methods" }),
      el("div", { class: "names", text: flow.methods.join(", ") || "—" }),
      el("div", { class: "muted", text: "events" }),
      el("div", { class: "names", text: [...new Set(flow.events)].join(", ") || "—" })));
  }
  list.append(el("li", { class: "flow", "data-testid": "flow-host-requests" },
    el("strong", { text: "host requests" }),
    el("div", { class: "names", text: hostRequests.join(", ") })));
}

// ------------------------------------------------------------------- forms

function isSecret(name) {
  return SECRET_MEMBERS.has(name);
}

function inputFor(param, value) {
  const schema = param.schema || {};
  const attributes = { name: param.name, id: undefined, "data-testid": `param-${param.name}` };
  if (schema.type === "boolean") {
    return el("input", { ...attributes, type: "checkbox", checked: value === true });
  }
  if (schema.type === "integer" || schema.type === "number") {
    return el("input", { ...attributes, type: "number", value: value ?? "", placeholder: param.required ? "" : "optional" });
  }
  if (schema.type === "object" || schema.type === "array") {
    return el("textarea", { ...attributes, rows: 2, placeholder: "JSON" }, value === undefined ? "" : JSON.stringify(value));
  }
  if (param.name === "activationCode") {
    return el("input", { ...attributes, type: "text", class: "code", autocomplete: "one-time-code",
      spellcheck: "false", placeholder: "Activation code", value: value ?? "" });
  }
  return el("input", { ...attributes, type: isSecret(param.name) ? "password" : "text",
    autocomplete: isSecret(param.name) ? "current-password" : "off", value: value ?? "",
    placeholder: param.required ? "" : "optional" });
}

function readForm(form, method) {
  const params = {};
  for (const param of method.params || []) {
    const input = form.querySelector(`[name="${CSS.escape(param.name)}"]`);
    if (!input) continue;
    const type = (param.schema || {}).type;
    if (type === "boolean") { params[param.name] = input.checked; continue; }
    if (input.value === "" && !param.required) continue;
    if (type === "integer" || type === "number") params[param.name] = Number(input.value);
    else if (type === "object" || type === "array") params[param.name] = JSON.parse(input.value);
    else params[param.name] = input.value;
  }
  return params;
}

function methodForm(device, method, prefill = {}, options = {}) {
  const form = el("form", { class: "method", "data-testid": options.testid || `method-form-${method.name}` });
  const fields = (method.params || []).map((param) => el("label", {},
    el("span", { text: param.name + (param.required ? "" : " (optional)") }),
    inputFor(param, prefill[param.name]),
    param.description ? el("small", { class: "muted", text: param.description }) : null));
  form.append(el("div", { class: "title" }, el("code", { text: method.name }),
    method["x-flowhost-startsDialogue"] ? el("span", { class: "tag", text: "starts a dialogue" }) : null),
    ...fields, el("button", { type: "submit", "data-testid": "submit", text: options.submitText || "Send" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let params;
    try { params = readForm(form, method); } catch (error) { device.note(`${method.name}: ${error.message}`); return; }
    device.request(method.name, params);
  });
  return form;
}

// --------------------------------------------------------------- a device

class Device {
  constructor(index) {
    this.index = index;
    this.label = index === 1 ? "device 1" : `device ${index}`;
    this.settings = this.loadSettings();
    this.nextID = 1;
    this.pending = new Map();
    this.hostRequests = new Map();
    this.challenge = null;
    this.loggedIn = "";
    this.lastUser = "";
    this.group = null;
    this.command = [];
    this.build();
    this.connect();
  }

  loadSettings() {
    const saved = JSON.parse(localStorage.getItem(`flowhost-inspector-device-${this.index}`) || "null");
    // keyCustody "host" as the host's own default (spec §14): what the
    // form shows is what initialize sends, and a page with host custody
    // exports a transcript that replays as a golden one (a platform key
    // signs a fresh nonce at each login, which no recorded answer can).
    return {
      deviceID: `inspector-device-${this.index}-${crypto.randomUUID().slice(0, 8)}`,
      deviceName: this.index === 1 ? "Inspector device" : `Inspector device ${this.index}`,
      ldaCapabilities: [1],
      keyCustody: "host",
      keyAlgorithm: "ES256",
      ...saved,
    };
  }

  saveSettings() {
    localStorage.setItem(`flowhost-inspector-device-${this.index}`, JSON.stringify(this.settings));
  }

  build() {
    const settings = el("details", { class: "settings" },
      el("summary", { text: "device settings (apply restarts the host)" }),
      el("label", {}, el("span", { text: "deviceID" }), el("input", { name: "deviceID", value: this.settings.deviceID })),
      el("label", {}, el("span", { text: "deviceName" }), el("input", { name: "deviceName", value: this.settings.deviceName })),
      el("fieldset", {}, el("legend", { text: "ldaCapabilities" }),
        Object.entries(LDA_NAMES).map(([value, name]) => el("label", { class: "inline" },
          el("input", { type: "checkbox", name: "lda", value, checked: this.settings.ldaCapabilities.includes(Number(value)) }), name))),
      el("label", {}, el("span", { text: "keyCustody" }),
        el("select", { name: "keyCustody" },
          el("option", { value: "host", selected: this.settings.keyCustody === "host", text: "host (the host keeps the device key)" }),
          el("option", { value: "platform", selected: this.settings.keyCustody === "platform", text: "platform (this page makes and keeps it)" }),
          el("option", { value: "webauthn", selected: this.settings.keyCustody === "webauthn", text: "webauthn (a credential of this browser's authenticator)" })),
        location.hostname === "localhost" ? null
          : el("small", { class: "muted" }, "webauthn needs the page at ", el("a", { href: localhostAddress(), text: "localhost" }))),
      el("label", {}, el("span", { text: "keyAlgorithm (platform)" }),
        el("select", { name: "keyAlgorithm" },
          el("option", { value: "ES256", selected: this.settings.keyAlgorithm === "ES256", text: "ES256 (P-256, as hardware keystores make)" }),
          el("option", { value: "Ed25519", selected: this.settings.keyAlgorithm === "Ed25519", text: "Ed25519" }))),
      el("button", { type: "button", text: "Apply and restart the host", onclick: () => this.applySettings(settings) }));
    this.status = el("span", { class: "muted", text: "starting…" });
    this.challengeArea = el("div", { class: "challenge" }, el("p", { class: "muted", text: "No open challenge." }));
    this.requestArea = el("div", { class: "requests" });
    this.notificationArea = el("div", { class: "notifications" });
    this.eventArea = el("ul", { class: "events" });
    this.methodArea = el("div", { class: "methods" });
    this.panel = el("article", { class: "device", "data-testid": `device-panel-${this.index}` },
      el("h2", {}, this.label, " ", this.status),
      settings,
      el("h3", { text: "Open challenge" }), this.challengeArea,
      this.requestArea,
      this.notificationArea,
      el("h3", { text: "Events and replies" }), this.eventArea,
      el("details", { class: "all-methods", open: true }, el("summary", { text: "Methods" }), this.methodArea));
    document.getElementById("devices").append(this.panel);
    this.renderMethods();
  }

  applySettings(form) {
    this.settings = {
      deviceID: form.querySelector("[name=deviceID]").value.trim(),
      deviceName: form.querySelector("[name=deviceName]").value.trim(),
      ldaCapabilities: [...form.querySelectorAll("[name=lda]:checked")].map((box) => Number(box.value)),
      keyCustody: form.querySelector("[name=keyCustody]").value,
      keyAlgorithm: form.querySelector("[name=keyAlgorithm]").value,
    };
    this.saveSettings();
    this.socket.close();
  }

  renderMethods() {
    this.methodArea.replaceChildren();
    // Every method, answers and lifecycle included: sending one out of turn
    // shows what the host says to that (-32003, error 88, …). The open
    // challenge's form above is where its answers are meant to be sent.
    for (const method of discovery.methods.values()) {
      const prefill = {};
      if (method.params?.some((param) => param.name === "userID")) prefill.userID = this.loggedIn || this.lastUser;
      this.methodArea.append(methodForm(this, method, prefill));
    }
  }

  connect() {
    this.saveSettings();
    this.socket = new WebSocket(`ws://${location.host}/host?token=${encodeURIComponent(token)}`);
    this.socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    this.socket.addEventListener("close", () => {
      // A host that ends is started again; one that keeps ending at once
      // waits longer each time (0.5 s doubling to 16 s), until one initializes.
      const delay = this.restartDelay ?? 500;
      this.restartDelay = Math.min(delay * 2, 16000);
      this.setStatus(`host ended; restarting in ${delay / 1000} s…`);
      this.closeChallenge();
      this.requestArea.replaceChildren();
      setTimeout(() => this.connect(), delay);
    });
  }

  setStatus(text) {
    this.status.textContent = text;
    if (this.index === 1) document.getElementById("status").textContent = text;
  }

  receive(message) {
    switch (message.kind) {
      case "started":
        this.command = message.command;
        this.nextID = 1;
        this.pending.clear();
        this.hostRequests.clear();
        record(this, "host", `started: ${message.command.join(" ")} (pid ${message.pid})`);
        this.setStatus(`host pid ${message.pid}`);
        this.initialize();
        break;
      case "frame":
        this.frame(message.line);
        break;
      case "log":
        record(this, "log", message.line);
        break;
      case "exit":
        record(this, "host", `exited: ${message.signalled ? "signal" : "status"} ${message.status}`);
        break;
    }
  }

  initialize() {
    if (discovery.methods.size === 0) this.request("rpc.discover", undefined);
    const device = { deviceID: this.settings.deviceID, deviceName: this.settings.deviceName,
      ldaCapabilities: this.settings.ldaCapabilities, keyCustody: this.settings.keyCustody };
    this.request("initialize", { protocolVersion: "1.1", clientInfo: { name: "flowhost-inspector", version: "1" }, device });
  }

  send(message) {
    const line = JSON.stringify(message);
    this.socket.send(JSON.stringify({ kind: "frame", line }));
    record(this, "->", line, message);
  }

  request(method, params) {
    if (discovery.methods.get(method)?.["x-flowhost-notification"]) {
      // A notification (`exit`): no id, never answered.
      const message = { jsonrpc: "2.0", method };
      if (params !== undefined && Object.keys(params).length) message.params = params;
      this.group = newGroup(this, method);
      this.send(message);
      return;
    }
    const id = this.nextID++;
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    this.pending.set(id, method);
    const answers = discovery.methods.get(method)?.["x-flowhost-answers"];
    if (!answers || !this.challenge || discovery.events.get(this.challenge.method)?.resting || this.challenge.method === "getUser") {
      this.group = newGroup(this, method);
    }
    if (method === "setUser" && params?.userName) this.lastUser = params.userName;
    this.send(message);
  }

  note(text) {
    this.eventArea.prepend(el("li", { class: "error", text }));
  }

  frame(line) {
    let message;
    try { message = JSON.parse(line); } catch { record(this, "<-", line); return; }
    record(this, "<-", line, message);
    if (Array.isArray(message)) return;
    if (message.method !== undefined && message.id !== undefined) { this.hostRequest(message); return; }
    if (message.method === undefined) { this.reply(message); return; }
    this.event(message);
  }

  reply(message) {
    const method = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (method === "rpc.discover" && message.result) { learn(message.result); return; }
    if (message.error) {
      this.note(`${method}: error ${message.error.code} ${message.error.message}` +
        (message.error.data ? ` ${JSON.stringify(message.error.data)}` : ""));
      return;
    }
    if (method === "initialize") {
      this.settings.deviceID = message.result.device.deviceID;
      this.saveSettings();
      this.setStatus(`${this.settings.deviceID} · host ready`);
      this.restartDelay = undefined;
      return;
    }
    const answers = discovery.methods.get(method)?.["x-flowhost-answers"];
    if (answers && this.challenge && answers.includes(this.challenge.method)) this.closeChallenge();
    this.eventArea.prepend(el("li", {}, el("code", { text: method }), " → ", JSON.stringify(message.result)));
  }

  event(message) {
    const name = message.method;
    const params = message.params || {};
    if (name === "$/cancelRequest") {
      this.requestArea.querySelector(`[data-request-id="${CSS.escape(String(params.id))}"]`)?.remove();
      return;
    }
    if (discovery.challengeEvents.has(name)) { this.openChallenge(message); return; }
    if (name === "onUserLoggedIn") { this.loggedIn = params.userID; this.renderMethods(); }
    if (name === "onUserLoggedOff") { this.loggedIn = ""; }
    if (name === "onGetNotifications") this.showNotifications(params);
    if (name === "onUpdateNotification") this.notificationArea.replaceChildren();
    const status = params.status?.statusCode ?? params.response?.status?.statusCode ?? params.pArgs?.response?.StatusCode;
    this.eventArea.prepend(el("li", { "data-testid": `event-${name}` },
      el("code", { text: name }), status !== undefined ? ` status ${status}` : "",
      name === "onAuthenticateUserAndSignData" && params.payloadSignature
        ? el("div", { class: "signature", "data-testid": "signature", text: `signature ${params.payloadSignature}` }) : null,
      name === "onNotificationReceived"
        ? el("div", { class: "muted", text: "a notification arrived: getNotifications lists it" }) : null));
  }

  closeChallenge() {
    this.challenge = null;
    this.challengeArea.replaceChildren(el("p", { class: "muted", text: "No open challenge." }));
  }

  openChallenge(message) {
    this.challenge = message;
    const params = message.params || {};
    const prefill = { ...params };
    if (message.method === "getDeviceName") prefill.deviceName = params.deviceName || this.settings.deviceName;
    if (message.method === "getUser") prefill.userName = params.recentlyLoggedInUser || "";
    const form = el("div", { class: "event-form", "data-testid": `event-form-${message.method}` },
      el("div", { class: "title" }, el("code", { text: message.method }),
        params.challengeMode !== undefined ? el("span", { class: "tag", text: `challengeMode ${params.challengeMode}` }) : null,
        params.attemptsLeft !== undefined ? el("span", { class: "tag", text: `${params.attemptsLeft} attempts left` }) : null),
      this.challengeScreen(message));
    const answering = (discovery.answers.get(message.method) || []).filter((name) => this.offers(name, message));
    for (const name of answering) {
      form.append(methodForm(this, discovery.methods.get(name), prefill, { testid: `answer-${name}` }));
    }
    this.challengeArea.replaceChildren(form);
    form.querySelector("input:not([type=hidden]):not([type=checkbox])")?.focus();
  }

  // An answer the challenge itself may withhold: forgotPassword only under
  // getPassword 0 whose info says ENABLE_FORGOT_PASSWORD "true".
  offers(name, message) {
    if (name !== "forgotPassword") return true;
    const params = message.params || {};
    const info = Object.fromEntries((params.response?.info || []).map((item) => [item.key, item.value]));
    return params.challengeMode === 0 && info.ENABLE_FORGOT_PASSWORD === "true";
  }

  // What the seeds' app screens show for a challenge, above its form.
  challengeScreen(message) {
    const params = message.params || {};
    switch (message.method) {
      case "getUser":
        return el("p", {}, "Enter your user id.",
          params.userNames?.length ? el("span", { class: "muted", text: ` Known here: ${params.userNames.join(", ")}` }) : "");
      case "getActivationCode":
        return el("div", { class: "screen" },
          el("p", { text: `Enter the activation code sent to ${params.userID || "you"}.` }),
          params.verificationKey ? el("p", {}, "Verification key ", el("strong", { class: "code", text: params.verificationKey })) : null);
      case "getUserConsentForLDA": {
        const kind = LDA_NAMES[params.authenticationType] || `authenticator ${params.authenticationType}`;
        const consent = (allow) => () => {
          this.request("setUserConsentForLDA", { shouldEnrollLDA: allow, challengeMode: params.challengeMode,
            authenticationType: params.authenticationType });
        };
        return el("div", { class: "screen consent" },
          el("p", { text: `Use your ${kind} to authenticate ${params.userID || ""}?` }),
          el("button", { type: "button", "data-testid": "consent-allow", class: "primary", text: `Use ${kind}`, onclick: consent(true) }),
          el("button", { type: "button", "data-testid": "consent-deny", text: "Not now (use a password)", onclick: consent(false) }));
      }
      case "addNewDeviceOptions": {
        const info = Object.fromEntries((params.challengeInfo || []).map((item) => [item.key, item.value]));
        return el("div", { class: "screen" },
          el("p", { text: "This device is new for this user. Approve it from a registered device, or use an activation code." }),
          info.VERIFICATION_KEY ? el("p", {}, "Verification key ", el("strong", { class: "code", "data-testid": "verification-key", text: info.VERIFICATION_KEY })) : null);
      }
      case "getPassword": {
        // The modes FlowHost sends, as the SDK names them (RDNAChallengeOpMode).
        const why = { 0: "Enter your password.", 1: "Set a password.",
          2: "Change your password: enter the current one and a new one (updatePassword).",
          3: "Confirm it is you: enter your password.",
          4: "Your password expired: enter it and set a new one (updatePassword).",
          5: "Enter your password to turn on LDA.", 12: "Enter your password to sign.",
          14: "LDA is being turned off: set a password.", 15: "Enter your password to turn off LDA.",
          1000: "A flow asks you to confirm it is you: enter your password." }[params.challengeMode]
          || "Enter your password.";
        return el("p", { text: this.offers("forgotPassword", message) ? `${why} Forgotten it? Use forgotPassword below.` : why });
      }
      default:
        return el("pre", { class: "params", text: JSON.stringify(masked(declaredMasked(params, message.method)), null, 1) });
    }
  }

  showNotifications(params) {
    const items = params.response?.notifications || params.notificationResponse?.notifications || [];
    this.notificationArea.replaceChildren(el("h3", { text: "Notifications" }),
      ...items.map((item) => el("div", { class: "notification", "data-testid": `notification-${item.notification_uuid}` },
        el("strong", { text: item.body?.[0]?.subject || "Notification" }),
        el("p", { text: item.body?.[0]?.message || "" }),
        el("div", {}, ...(item.actions || []).map((action) => el("button", {
          type: "button", "data-testid": `notification-action-${action.action}`, text: action.label || action.action,
          onclick: () => this.request("updateNotification", { notificationID: item.notification_uuid, response: action.action }),
        }))))));
  }

  // A request from the host to this page (spec §7).
  hostRequest(message) {
    this.hostRequests.set(message.id, message.method);
    const answer = (reply) => {
      card.remove();
      this.send({ jsonrpc: "2.0", id: message.id, ...reply });
    };
    const refuse = (reason) => answer({ error: { code: 1, message: `the user's answer: ${reason}`, data: { reason } } });
    const card = el("div", { class: "host-request", "data-testid": `host-request-${message.method}`, "data-request-id": String(message.id) },
      el("div", { class: "title" }, el("code", { text: message.method }), el("span", { class: "tag", text: "host request" })),
      el("pre", { class: "params", text: JSON.stringify(masked(message.params), null, 1) }));
    const byThePage = PAGE_ANSWERS[message.method];
    if (byThePage) {
      card.append(el("p", { class: "muted", text: `answered by ${byThePage.by}` }));
      this.requestArea.append(card);
      // A synchronous throw (no such algorithm, no WebAuthn) is an answer too.
      Promise.resolve().then(() => byThePage.answer(message.params || {}, this))
        .then((result) => answer({ result }), (error) => answer({ error: error?.code ? error
          : { code: 1, message: String(error), data: { reason: "unavailable" } } }));
      return;
    }
    const results = {
      "platform/authenticateLDA": { authenticated: true },
      "platform/verifyServerBiometric": { verified: true },
    };
    const result = el("textarea", { rows: 2, "data-testid": "host-request-result" }, JSON.stringify(results[message.method] ?? {}));
    card.append(el("label", {}, el("span", { text: "result" }), result),
      el("button", { type: "button", class: "primary", "data-testid": "host-request-approve", text: "Approve",
        onclick: () => { try { answer({ result: JSON.parse(result.value) }); } catch (error) { this.note(error.message); } } }),
      el("button", { type: "button", "data-testid": "host-request-deny", text: "Deny", onclick: () => refuse("cancelled") }));
    this.requestArea.append(card);
  }
}

// ---------------------------------------------------------------- timeline

let groupCount = 0;

function newGroup(device, method) {
  groupCount += 1;
  const flows = discovery.methods.get(method)?.["x-flowhost-flows"] || [];
  const node = el("section", { class: "dialogue", "data-group": String(groupCount) },
    el("h4", { text: `${device.label} · ${method}${flows.length ? " · " + flows.join(", ") : ""}` }));
  document.getElementById("timeline").prepend(node);
  return node;
}

function record(device, direction, line, message) {
  const at = new Date();
  timeline.push({ device: device.index, direction, line, at });
  if (!device.group) device.group = newGroup(device, "host");
  let name = direction === "log" || direction === "host" ? line : "";
  let body = line;
  if (message && typeof message === "object" && !Array.isArray(message)) {
    if (message.method !== undefined) name = message.method;
    else if (direction === "->") name = `answer to ${device.hostRequests.get(message.id) ?? message.id}`;
    else if (message.id !== undefined) name = `reply to ${device.pending.get(message.id) ?? message.id}`;
    body = JSON.stringify(maskedFrame(message));
  } else if (Array.isArray(message)) {
    name = "batch";
    body = JSON.stringify(message.map(maskedFrame));
  } else if (direction === "->" || direction === "<-") {
    body = `(not JSON, ${line.length} characters)`;
  }
  const entry = el("details", { class: `frame ${direction === "->" ? "out" : direction === "<-" ? "in" : "note"}` },
    el("summary", {}, el("time", { text: at.toISOString().slice(11, 23) }), " ",
      el("span", { class: "direction", text: direction }), " ", el("code", { text: name })),
    direction === "log" || direction === "host" ? null : el("pre", { text: body }));
  device.group.append(entry);
}

// ------------------------------------------------------------------ export

function transcript(keepSecrets) {
  const hostLetter = (index) => (index === 1 ? "" : `@${String.fromCharCode(64 + index)} `);
  const lines = [
    `# Exported by flowhost inspect on ${new Date().toISOString()}.`,
    keepSecrets ? "# Secrets are kept: this file holds passwords as typed."
      : "# Secrets are masked (•••): put the real ones back before replaying it.",
    "# Add the `# setup:` lines the session relied on (`# setup: add-user NAME` for each user added with flowhost admin).",
  ];
  const argumentsOf = (device) => device.command.slice(1).map((argument, index, all) =>
    all[index - 1] === "--store" ? "{store}" : all[index - 1] === "--config" ? "{config}" : argument).join(" ");
  for (const device of devices) {
    lines.push(device.index === 1 ? `# args: ${argumentsOf(device)}` : `# host ${String.fromCharCode(64 + device.index)}: ${argumentsOf(device)}`);
  }
  const answered = new Set();
  const body = [];
  const pendingHostRequests = new Map();
  let lastNotification = null;
  const users = new Map();
  const volatile = new Set();
  for (const item of timeline) {
    if (item.direction !== "->" && item.direction !== "<-") continue;
    let message = null;
    try { message = JSON.parse(item.line); } catch { /* shown as it is */ }
    let line = item.line;
    if (item.direction === "<-") {
      // A run-specific value may also sit inside free text (the verification
      // key in a notification's message): each one seen is `{{*}}` wherever it appears.
      for (const match of item.line.matchAll(/"key":"VERIFICATION_KEY","value":"([^"]+)"/g)) volatile.add(match[1]);
      line = normalized(line);
      for (const value of volatile) line = line.split(value).join("{{*}}");
      const uuid = /"notification_uuid":"([^"]+)"/.exec(item.line);
      if (uuid) lastNotification = uuid[1];
      if (message?.method !== undefined && message.id !== undefined) pendingHostRequests.set(message.id, message.method);
      body.push(`<- ${hostLetter(item.device)}${line}`);
      continue;
    }
    if (message?.method === "setUser") users.set(item.device, message.params?.userName ?? message.params?.[0]);
    if (message && message.method === undefined && pendingHostRequests.has(message.id)) {
      const method = pendingHostRequests.get(message.id);
      if (!answered.has(method) && message.result) {
        answered.add(method);
        lines.push(`# answer: ${method} ${JSON.stringify(message.result)}`);
      }
      body.push(`=> ${hostLetter(item.device)}${line}`);
      continue;
    }
    if (message?.method === "setActivationCode" && users.get(item.device)) {
      line = line.replace(/"activationCode":"[^"]*"/, `"activationCode":"{{code:${users.get(item.device)}}}"`);
    } else if (!keepSecrets && message) {
      line = JSON.stringify(maskedFrame(message));
    }
    if (lastNotification) line = line.split(lastNotification).join("{{notification}}");
    body.push(`-> ${hostLetter(item.device)}${line}`);
  }
  return [...lines, ...body].join("\n") + "\n";
}

function exportTranscript() {
  const text = transcript(document.getElementById("export-secrets").checked);
  const link = el("a", { href: URL.createObjectURL(new Blob([text], { type: "text/plain" })),
    download: `inspector-${new Date().toISOString().replace(/[:.]/g, "-")}.transcript` });
  document.body.append(link);
  link.click();
  link.remove();
}

// ------------------------------------------------------------------- start

document.getElementById("second-device").addEventListener("click", (event) => {
  devices.push(new Device(devices.length + 1));
  if (devices.length >= 4) event.target.disabled = true;
});
document.getElementById("export").addEventListener("click", exportTranscript);
window.flowhostInspector = { transcript, devices, timeline, discovery };
devices.push(new Device(1));
