// A platform keystore in software, for a client with `keyCustody: "platform"`
// (spec §7, §14), on Node's own `crypto` (no dependency): it answers
// `platform/createDeviceKey` and `platform/signDeviceChallenge` with real
// P-256 (ES256) or Ed25519 keys. A real client keeps its keys in the
// platform's keystore (the Secure Enclave, a TPM, Android's keystore); this
// one gives the answers the host takes, and `lowS`/`derSignature` turn any
// signer's r‖s into one.
//
//   const keystore = new PlatformKeystore({ algorithm: "ES256" });
//   keystore.attach(client);
import { generateKeyPairSync, sign } from "node:crypto";

/** The algorithms this keystore makes. */
export const ALGORITHMS = ["ES256", "Ed25519"];
/** P-256's group order n. */
export const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const bytesToBigInt = (bytes) => BigInt("0x" + (Buffer.from(bytes).toString("hex") || "0"));
const bigIntTo32 = (value) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");
const fromBase64url = (text) => Buffer.from(text, "base64url");

/**
 * The 64-byte r‖s with s in the low half (s ≤ n/2), as the host accepts it:
 * a signer may give a high s, and (r, n − s) is the same signature's other
 * form, so the client answers that (no key needed).
 */
export function lowS(signature) {
  if (signature.length !== 64) throw new RangeError("an ES256 signature as r‖s is 64 bytes");
  const s = bytesToBigInt(signature.subarray(32));
  if (s <= P256_ORDER / 2n) return Buffer.from(signature);
  return Buffer.concat([Buffer.from(signature.subarray(0, 32)), bigIntTo32(P256_ORDER - s)]);
}

/** A 64-byte r‖s as a strict DER ECDSA-Sig-Value (minimal integers). */
export function derSignature(signature) {
  const integer = (bytes) => {
    let at = 0;
    while (at < bytes.length - 1 && bytes[at] === 0) at++;
    const minimal = bytes.subarray(at);
    const body = minimal[0] & 0x80 ? Buffer.concat([Buffer.of(0), minimal]) : minimal;
    return Buffer.concat([Buffer.of(0x02, body.length), body]);
  };
  const content = Buffer.concat([integer(signature.subarray(0, 32)), integer(signature.subarray(32))]);
  return Buffer.concat([Buffer.of(0x30, content.length), content]);
}

export class PlatformKeystore {
  /**
   * algorithm: "ES256" or "Ed25519" to make only that (refused when the host
   * does not offer it); else the host's first choice this keystore makes.
   * signatureForm: ES256 signatures as "der" (default) or "raw" (r‖s).
   */
  constructor({ algorithm, signatureForm = "der" } = {}) {
    if (algorithm !== undefined && !ALGORITHMS.includes(algorithm)) throw new RangeError(`no such algorithm: ${algorithm}`);
    if (!["der", "raw"].includes(signatureForm)) throw new RangeError(`no such signature form: ${signatureForm}`);
    this.algorithm = algorithm;
    this.signatureForm = signatureForm;
    this.keys = new Map();  // keyID -> {algorithm, privateKey, publicKey}
  }

  /** Answers the client's two platform-key requests with this keystore. */
  attach(client) {
    client.onRequest("platform/createDeviceKey", (params) => this.createDeviceKey(params));
    client.onRequest("platform/signDeviceChallenge", (params) => this.signDeviceChallenge(params));
  }

  /** The algorithm to make from the host's `algorithms` (a host that names none takes Ed25519). */
  choose(offered) {
    const list = offered?.length ? offered : ["Ed25519"];
    if (this.algorithm) {
      if (!list.includes(this.algorithm)) throw refusal(`the host does not accept ${this.algorithm} (it offers ${list.join(", ")})`);
      return this.algorithm;
    }
    const chosen = list.find((name) => ALGORITHMS.includes(name));
    if (!chosen) throw refusal(`this keystore makes none of ${list.join(", ")}`);
    return chosen;
  }

  /** `platform/createDeviceKey {userID, purpose, algorithms}` → `{keyID, publicKey, algorithm}`. */
  createDeviceKey(params) {
    const algorithm = this.choose(params?.algorithms);
    const keyID = `ks-${this.keys.size + 1}`;
    const pair = algorithm === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519");
    const jwk = pair.publicKey.export({ format: "jwk" });
    // ES256: the 65-byte uncompressed SEC1 point; Ed25519: the 32 raw bytes.
    const publicKey = algorithm === "ES256" ? Buffer.concat([Buffer.of(4), fromBase64url(jwk.x), fromBase64url(jwk.y)]) : fromBase64url(jwk.x);
    this.keys.set(keyID, { algorithm, privateKey: pair.privateKey, publicKey: pair.publicKey });
    return { keyID, publicKey: publicKey.toString("base64"), algorithm };
  }

  /** `platform/signDeviceChallenge {keyID, challenge, reason}` → `{signature}`. */
  signDeviceChallenge(params) {
    const key = this.keys.get(params?.keyID);
    if (!key) throw refusal(`no key ${params?.keyID}`);
    return { signature: this.signature(key, Buffer.from(params.challenge, "base64")).toString("base64") };
  }

  /** The signature of `message`: Ed25519's 64 bytes, or ES256 with a low s in the keystore's form. */
  signature(key, message) {
    if (key.algorithm === "Ed25519") return sign(null, message, key.privateKey);
    // OpenSSL does not lower s: about half of its signatures have a high one.
    const raw = lowS(sign("sha256", message, { key: key.privateKey, dsaEncoding: "ieee-p1363" }));
    return this.signatureForm === "raw" ? raw : derSignature(raw);
  }
}

/** A refusal the host reads as a failed check (spec §7: `data.reason`). */
function refusal(message) {
  return Object.assign(new Error(message), { code: 1, data: { reason: "unavailable" } });
}
