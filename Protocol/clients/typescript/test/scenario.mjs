// The client's scenario suite against the real binary: activation with a
// password and with LDA, login, a wrong password, logoff, a step-up, a
// signing, and a host request the host gives up on (cancellation).
// Usage: node test/scenario.mjs FLOWHOST STORE CONFIG CODE_ALICE CODE_BOB
import assert from "node:assert/strict";
import { FlowHostClient, RPCError, CHALLENGES, HOST_REQUESTS, EVENT_STATUS, statusOf } from "../index.js";

const [binary, store, config, aliceCode, bobCode] = process.argv.slice(2);
const host = (device, lda = []) => {
  const client = new FlowHostClient([binary, "--store", store, "--config", config]);
  return client.initialize({ device: { deviceID: device, deviceName: device, ldaCapabilities: lda } }).then(() => client);
};
const status = (event) => event.params.response.status.statusCode;
assert.ok(CHALLENGES.includes("getPassword") && HOST_REQUESTS.includes("platform/authenticateLDA"));

// mfa activation with a password, a wrong password, login, logoff.
const alice = await host("ts-alice");
await alice.waitEvent("getUser");
await alice.setUser({ userName: "alice" });
await alice.waitEvent("getActivationCode");
await alice.setActivationCode({ activationCode: aliceCode });
await alice.waitEvent("getDeviceName");
await alice.setDeviceName({ deviceName: "ts" });
await alice.waitEvent("getPassword");
await alice.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 1 });
await alice.waitEvent("onUserLoggedIn");
await alice.logOff({ userID: "alice" });
await alice.waitEvent("getUser");
await alice.setUser({ userName: "alice" });
await alice.waitEvent("getPassword");
await alice.setPassword({ password: "Wrong&Passw0rd9", challengeMode: 0 });
const retry = await alice.waitEvent("getPassword");
assert.equal(status(retry), 102);
assert.deepEqual(statusOf(retry), { status: 102, error: 0 });  // read where the contract says
assert.ok(EVENT_STATUS.getPassword.status.includes(102));
await alice.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 0 });
await alice.waitEvent("onUserLoggedIn");
await assert.rejects(alice.setUser({ userName: "alice" }), (error) => error instanceof RPCError && error.code === -32003);
await alice.authenticateUserAndSignData({ payload: "typed in TypeScript", authLevel: 1, authenticatorType: 0, reason: "ts" });
await alice.waitEvent("getPassword");
await alice.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 12 });
const signed = await alice.waitEvent("onAuthenticateUserAndSignData");
assert.equal(signed.params.status.statusCode, 100);
assert.equal((await alice.verifyDataSignature({ dataSignatureID: signed.params.dataSignatureID })).valid, true);
assert.equal(await alice.close(), 0);

// mfa activation with LDA (the platform's check answered by a handler), then a
// check the client never answers: the host gives up and the handler's signal aborts.
const bob = await host("ts-bob", [1]);
bob.onRequest("platform/authenticateLDA", async (params) => ({ authenticated: params.userID === "bob" }));
await bob.waitEvent("getUser");
await bob.setUser({ userName: "bob" });
await bob.waitEvent("getActivationCode");
await bob.setActivationCode({ activationCode: bobCode });
await bob.waitEvent("getDeviceName");
await bob.setDeviceName({ deviceName: "ts" });
const consent = await bob.waitEvent("getUserConsentForLDA");
await bob.setUserConsentForLDA({ shouldEnrollLDA: true, challengeMode: consent.params.challengeMode, authenticationType: 1 });
await bob.waitEvent("onUserLoggedIn");
let aborted;
bob.onRequest("platform/authenticateLDA", (params, signal) => new Promise((resolve) => {
  aborted = new Promise((done) => signal.addEventListener("abort", () => done(true)));
}));
await bob.logOff({ userID: "bob" });
await bob.waitEvent("getUser");
await bob.setUser({ userName: "bob" });  // LDA login: the prompt stays open...
while (!aborted) await new Promise((resolve) => setTimeout(resolve, 10));
await bob.resetAuthState();              // ...until the flow is reset
assert.equal(await aborted, true);
assert.equal(await bob.close(), 0);
console.log("typescript scenario ok");
