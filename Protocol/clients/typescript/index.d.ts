// The client's types. The request methods and names come from typed.d.ts,
// generated from Protocol/openrpc.json.
import type { ChildProcess } from "node:child_process";
import type { EventMap, EventName, HostRequestName, RequestOptions, TypedRequests } from "./typed.js";

export * from "./typed.js";
export * from "./platform-keys.js";

export declare const PROTOCOL_VERSION: "1.1";

/** An event's status and error codes, read where the contract says that event carries them (undefined when it carries none). */
export declare function statusOf(event: Event<unknown>): { status?: number; error?: number } | undefined;

export interface JSONRPCError { code: number; message: string; data?: unknown }

/** Why a client could not answer a host request (spec §7). */
export interface HostRequestError { code?: number; message?: string; data?: { reason?: "cancelled" | "failed" | "unavailable" } }

export declare class RPCError extends Error {
  constructor(error: JSONRPCError);
  code: number;
  data?: unknown;
  rpcMessage: string;
}

export interface Event<P = Record<string, unknown>, N extends EventName = EventName> { jsonrpc: "2.0"; method: N; params: P }

export interface FlowHostClient extends TypedRequests {}
export declare class FlowHostClient {
  constructor(argv: string[], options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number });
  /** A host behind a socket: a Unix-domain socket's path or {host, port}; with `tls`, over TLS (node:tls options). */
  static connect(
    address: string | { host: string; port: number },
    options?: { tls?: { ca?: string | Uint8Array; servername?: string; [option: string]: unknown }; timeoutMs?: number; connectTimeoutMs?: number },
  ): Promise<FlowHostClient>;
  /** The spawned host; null when connected through a socket. */
  readonly process: ChildProcess | null;
  readonly stderr: string;
  request(method: string, params?: unknown, options?: RequestOptions): Promise<unknown>;
  notify(method: string, params?: unknown): void;
  initialize(options?: { device?: { deviceID?: string; deviceName?: string; ldaCapabilities?: number[]; keyCustody?: "host" | "platform" | "webauthn" }; clientInfo?: { name: string; version: string } }): Promise<unknown>;
  /** The handler's signal aborts when the host gives up on the request ($/cancelRequest); throw a HostRequestError to refuse. */
  onRequest(method: HostRequestName, handler: (params: any, signal: AbortSignal) => unknown | Promise<unknown>): void;
  /** Typed by the event's name: `on("getPassword", (p) => p.challengeMode)`. */
  on<K extends EventName>(event: K, handler: (params: EventMap[K]) => void): void;
  waitEvent<K extends EventName>(name: K, options?: RequestOptions): Promise<Event<EventMap[K], K>>;
  close(): Promise<number | null>;
}
