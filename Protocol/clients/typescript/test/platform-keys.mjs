// The software platform keystore (platform-keys.js): its signatures on their
// own (every ES256 one low-s, strict DER, verifying), then against the real
// binary with a P-256 key: activation, a login, a step-up and a data
// signing, each proved by the key; and a step-up answered with the high-s
// form of a good signature, which the host refuses and the keystore never sends.
// Usage: node test/platform-keys.mjs FLOWHOST STORE CONFIG CODE
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from "node:crypto";
import { FlowHostClient, PlatformKeystore, P256_ORDER, lowS, derSignature } from "../index.js";

const [binary, store, config, code] = process.argv.slice(2);
const HALF = P256_ORDER / 2n;
const scalar = (bytes) => BigInt("0x" + Buffer.from(bytes).toString("hex"));

/** r and s of a strict DER signature (asserting it is strict: minimal integers, nothing after it). */
function derScalars(der) {
  assert.equal(der[0], 0x30);
  assert.equal(der[1], der.length - 2, "one SEQUENCE, nothing after it");
  const integers = [];
  for (let at = 2; at < der.length;) {
    assert.equal(der[at], 0x02);
    const length = der[at + 1], body = der.subarray(at + 2, at + 2 + length);
    assert.ok(!(body[0] & 0x80), "a positive integer");
    assert.ok(!(body[0] === 0 && length > 1 && !(body[1] & 0x80)), "a minimal integer");
    integers.push(scalar(body));
    at += 2 + length;
  }
  assert.equal(integers.length, 2);
  return integers;
}

// -- The keystore on its own --------------------------------------------------

// Node's own signer gives a high s about half the time: lowS turns it into
// the other form of the same signature, which still verifies.
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const message = Buffer.from("flowhost-device-proof-v1\nalice\nphone\n00\nlogin");
let high = 0;
for (let i = 0; i < 64; i++) {
  const raw = sign("sha256", message, { key: privateKey, dsaEncoding: "ieee-p1363" });
  const lowered = lowS(raw);
  assert.ok(scalar(lowered.subarray(32)) <= HALF);
  assert.ok(verify("sha256", message, { key: publicKey, dsaEncoding: "ieee-p1363" }, lowered));
  assert.ok(verify("sha256", message, { key: publicKey, dsaEncoding: "der" }, derSignature(lowered)));
  if (scalar(raw.subarray(32)) > HALF) {
    high += 1;
    assert.notDeepEqual(Buffer.from(lowered), raw);
    assert.equal(scalar(lowered.subarray(32)), P256_ORDER - scalar(raw.subarray(32)));
  } else {
    assert.deepEqual(Buffer.from(lowered), raw);
  }
}
assert.ok(high > 0, "some of 64 signatures had a high s (all low: chance 2^-64)");
// DER's integers: a leading zero dropped, a zero byte before a set high bit.
assert.deepEqual(Buffer.from(derSignature(Buffer.concat([Buffer.alloc(31), Buffer.of(5), Buffer.alloc(32, 0x80)]))),
  Buffer.concat([Buffer.of(0x30, 0x26, 0x02, 0x01, 0x05, 0x02, 0x21, 0x00), Buffer.alloc(32, 0x80)]));

// The keystore's own answers: of the algorithm asked for, if the host offers it;
// every ES256 signature strict DER (or r‖s) with a low s, and verifying.
assert.equal(new PlatformKeystore().choose(["Ed25519", "ES256"]), "Ed25519", "the host's first choice");
assert.equal(new PlatformKeystore().choose(undefined), "Ed25519", "a host that offers none takes Ed25519");
assert.equal(new PlatformKeystore({ algorithm: "ES256" }).choose(["Ed25519", "ES256"]), "ES256");
assert.throws(() => new PlatformKeystore({ algorithm: "ES256" }).choose(["Ed25519"]), (error) => error.data.reason === "unavailable");
for (const signatureForm of ["der", "raw"]) {
  const keystore = new PlatformKeystore({ algorithm: "ES256", signatureForm });
  const made = keystore.createDeviceKey({ userID: "alice", purpose: "activation", algorithms: ["Ed25519", "ES256"] });
  assert.equal(made.algorithm, "ES256");
  const point = Buffer.from(made.publicKey, "base64");
  assert.ok(point.length === 65 && point[0] === 4, "the 65-byte uncompressed point");
  const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") }, format: "jwk" });
  for (let i = 0; i < 64; i++) {
    const challenge = randomBytes(48);
    const signature = Buffer.from(keystore.signDeviceChallenge({ keyID: made.keyID, challenge: challenge.toString("base64") }).signature, "base64");
    const [, s] = signatureForm === "der" ? derScalars(signature) : [0n, scalar(signature.subarray(32))];
    assert.ok(s >= 1n && s <= HALF, "the keystore never sends a high s");
    assert.ok(verify("sha256", challenge, { key, dsaEncoding: signatureForm === "der" ? "der" : "ieee-p1363" }, signature));
  }
}
const ed = new PlatformKeystore({ algorithm: "Ed25519" });
const edKey = ed.createDeviceKey({ userID: "alice", purpose: "activation", algorithms: ["Ed25519", "ES256"] });
assert.equal(Buffer.from(edKey.publicKey, "base64").length, 32);
assert.equal(Buffer.from(ed.signDeviceChallenge({ keyID: edKey.keyID, challenge: "AA==" }).signature, "base64").length, 64);

// -- Against the real host ----------------------------------------------------

const admin = (...args) => JSON.parse(execFileSync(binary, ["admin", ...args, "--store", store, "--config", config, "--json"], { encoding: "utf8" }));
const keystore = new PlatformKeystore({ algorithm: "ES256" });
const host = new FlowHostClient([binary, "--store", store, "--config", config]);
const asked = [];  // each host request, as [method, reason]
let highS = false;  // answer with (r, n − s) of the keystore's signature
host.onRequest("platform/createDeviceKey", (params) => {
  asked.push(["createDeviceKey", params.purpose]);
  assert.deepEqual(params.algorithms, ["Ed25519", "ES256"]);
  return keystore.createDeviceKey(params);
});
host.onRequest("platform/signDeviceChallenge", (params) => {
  asked.push(["signDeviceChallenge", params.reason]);
  const answer = keystore.signDeviceChallenge(params);
  if (!highS) return answer;
  const [r, s] = derScalars(Buffer.from(answer.signature, "base64"));
  const raw = Buffer.concat([Buffer.from(r.toString(16).padStart(64, "0"), "hex"), Buffer.from((P256_ORDER - s).toString(16).padStart(64, "0"), "hex")]);
  return { signature: raw.toString("base64") };
});
await host.initialize({ device: { deviceID: "ts-phone", deviceName: "ts-phone", ldaCapabilities: [], keyCustody: "platform" } });
await host.waitEvent("getUser");
await host.setUser({ userName: "alice" });
await host.waitEvent("getActivationCode");
await host.setActivationCode({ activationCode: code });
await host.waitEvent("getDeviceName");
await host.setDeviceName({ deviceName: "ts-phone" });
await host.waitEvent("getPassword");
await host.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 1 });
await host.waitEvent("onUserLoggedIn");
assert.deepEqual(asked.map(([method]) => method)[0], "createDeviceKey");
const [device] = admin("devices", "alice");
assert.equal(device.keyAlgorithm, "ES256");
assert.equal(device.keyCustody, "platform");

// A login, proved by the key.
await host.logOff({ userID: "alice" });
await host.waitEvent("getUser");
asked.length = 0;
await host.setUser({ userName: "alice" });
await host.waitEvent("getPassword");
await host.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 0 });
await host.waitEvent("onUserLoggedIn");
assert.deepEqual(asked, [["signDeviceChallenge", "login"]]);

// A step-up (a notification's action at level 1), then a data signing.
const notify = () => admin("notify", "alice", "--subject", "Pay 20 EUR to Carol?", "--message", "Invoice 42",
  "--action", "Accept=accept:1", "--action", "Reject=reject").notification_uuid;
const stepUp = async () => {
  await host.updateNotification({ notificationID: notify(), response: "accept" });
  await host.waitEvent("getPassword");
  await host.setPassword({ password: "Tr0ub4dor&Zebra", challengeMode: 3 });
  return (await host.waitEvent("onUpdateNotification")).params.pArgs.response.StatusCode;
};
asked.length = 0;
assert.equal(await stepUp(), 100);
assert.ok(asked.some(([method, reason]) => method === "signDeviceChallenge" && reason.startsWith("step-up")), JSON.stringify(asked));
await host.authenticateUserAndSignData({ payload: "Pay 20 EUR to Carol", authLevel: 0, authenticatorType: 0, reason: "Invoice 42" });
const signed = (await host.waitEvent("onAuthenticateUserAndSignData")).params;
assert.equal(signed.status.statusCode, 100);
assert.equal(signed.receipt.algorithm, "ES256");
const { publicKey: registered } = [...keystore.keys.values()][0];
assert.deepEqual(Buffer.from(signed.receipt.publicKey, "base64"),
  Buffer.concat([Buffer.of(4), ...["x", "y"].map((part) => Buffer.from(registered.export({ format: "jwk" })[part], "base64url"))]));
assert.equal((await host.verifyDataSignature({ dataSignatureID: signed.dataSignatureID })).valid, true);

// The same key's signature in its high-s form: no proof, nothing approved.
highS = true;
assert.equal(await stepUp(), 126, "a high-s proof is refused");
assert.equal(admin("notifications", "alice")[0].status, "ACTIVE");
assert.equal(await host.close(), 0);
console.log("typescript platform keys ok");
