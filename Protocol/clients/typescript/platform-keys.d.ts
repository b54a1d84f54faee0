// The software platform keystore's types (platform-keys.js).
import type { HostRequestName } from "./typed.js";

export type DeviceKeyAlgorithm = "ES256" | "Ed25519";

/** The algorithms the keystore makes. */
export declare const ALGORITHMS: DeviceKeyAlgorithm[];
/** P-256's group order n. */
export declare const P256_ORDER: bigint;

/** `platform/createDeviceKey`'s params (spec §7). */
export interface CreateDeviceKeyParams { userID: string; purpose: string; algorithms?: string[] }
/** `platform/createDeviceKey`'s result: ES256's `publicKey` is the base64 of the 65-byte uncompressed point, Ed25519's of its 32 bytes. */
export interface CreateDeviceKeyResult { keyID: string; publicKey: string; algorithm: DeviceKeyAlgorithm }
/** `platform/signDeviceChallenge`'s params: `challenge` is base64. */
export interface SignDeviceChallengeParams { keyID: string; challenge: string; reason?: string }
export interface SignDeviceChallengeResult { signature: string }

/** The 64-byte r‖s with s ≤ n/2: (r, n − s) when the signer gave a high s. */
export declare function lowS(signature: Uint8Array): Uint8Array;
/** A 64-byte r‖s as strict DER. */
export declare function derSignature(signature: Uint8Array): Uint8Array;

export declare class PlatformKeystore {
  /** algorithm: make only that one; else the host's first choice. signatureForm: ES256 as DER (default) or r‖s. */
  constructor(options?: { algorithm?: DeviceKeyAlgorithm; signatureForm?: "der" | "raw" });
  readonly algorithm?: DeviceKeyAlgorithm;
  readonly signatureForm: "der" | "raw";
  /** Answers `platform/createDeviceKey` and `platform/signDeviceChallenge` for this client. */
  attach(client: { onRequest(method: HostRequestName, handler: (params: any, signal: AbortSignal) => unknown): void }): void;
  choose(offered?: string[]): DeviceKeyAlgorithm;
  createDeviceKey(params: CreateDeviceKeyParams): CreateDeviceKeyResult;
  signDeviceChallenge(params: SignDeviceChallengeParams): SignDeviceChallengeResult;
}
