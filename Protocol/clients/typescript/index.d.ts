// The client's types. The request methods and names come from typed.d.ts,
// generated from Protocol/openrpc.json.
import type { ChildProcess } from "node:child_process";
import type { EventName, HostRequestName, RequestOptions, TypedRequests } from "./typed.js";

export * from "./typed.js";

export declare const PROTOCOL_VERSION: "1.0";

export interface JSONRPCError { code: number; message: string; data?: unknown }

/** Why a client could not answer a host request (spec §7). */
export interface HostRequestError { code?: number; message?: string; data?: { reason?: "cancelled" | "failed" | "unavailable" } }

export declare class RPCError extends Error {
  constructor(error: JSONRPCError);
  code: number;
  data?: unknown;
  rpcMessage: string;
}

export interface Event<P = Record<string, unknown>> { jsonrpc: "2.0"; method: EventName; params: P }

export interface FlowHostClient extends TypedRequests {}
export declare class FlowHostClient {
  constructor(argv: string[], options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number });
  readonly process: ChildProcess;
  readonly stderr: string;
  request(method: string, params?: unknown, options?: RequestOptions): Promise<unknown>;
  notify(method: string, params?: unknown): void;
  initialize(options?: { device?: { deviceID?: string; deviceName?: string; ldaCapabilities?: number[]; keyCustody?: "host" | "platform" }; clientInfo?: { name: string; version: string } }): Promise<unknown>;
  /** The handler's signal aborts when the host gives up on the request ($/cancelRequest); throw a HostRequestError to refuse. */
  onRequest(method: HostRequestName, handler: (params: any, signal: AbortSignal) => unknown | Promise<unknown>): void;
  on(event: EventName, handler: (params: any) => void): void;
  waitEvent(name: EventName, options?: RequestOptions): Promise<Event<any>>;
  close(): Promise<number | null>;
}
