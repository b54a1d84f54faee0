// The client against a host behind a socket, as a socket unit or a TLS
// terminator serves one: each connection is a host of its own, so the
// activation and the login below are two connections.
// Usage: node test/socket.mjs unix PATH USER CODE | node test/socket.mjs tls HOST PORT CAFILE USER CODE
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FlowHostClient } from "../index.js";

const [kind, ...rest] = process.argv.slice(2);
const [user, code] = rest.slice(-2);
const connect = () => kind === "unix"
  ? FlowHostClient.connect(rest[0])
  : FlowHostClient.connect({ host: rest[0], port: Number(rest[1]) }, { tls: { ca: readFileSync(rest[2]) } });

const first = await connect();
assert.equal(first.process, null);
await first.initialize({ device: { deviceID: "ts-socket", deviceName: "ts-socket", ldaCapabilities: [] } });
await first.waitEvent("getUser");
await first.setUser({ userName: user });
await first.waitEvent("getActivationCode");
await first.setActivationCode({ activationCode: code });
await first.waitEvent("getDeviceName");
await first.setDeviceName({ deviceName: "ts-socket" });
await first.waitEvent("getPassword");
await first.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 1 });
await first.waitEvent("onUserLoggedIn");
assert.equal(await first.close(), null);  // no exit status crosses a socket

const second = await connect();
await second.initialize({ device: { deviceID: "ts-socket", deviceName: "ts-socket", ldaCapabilities: [] } });
await second.waitEvent("getUser");
await second.setUser({ userName: user });
await second.waitEvent("getPassword");
await second.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 0 });
await second.waitEvent("onUserLoggedIn");
await second.close();

// Nothing listening: a clear refusal, not a hang.
await assert.rejects(kind === "unix" ? FlowHostClient.connect(rest[0] + ".none") : FlowHostClient.connect({ host: rest[0], port: 1 }, { tls: {} }));
console.log("typescript socket ok");
