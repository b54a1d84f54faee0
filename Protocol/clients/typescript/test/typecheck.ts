// Compiled with `tsc --noEmit --strict` by the test suite: the declarations
// are consistent, and a client's use of them is typed (the @ts-expect-error
// lines must be errors, or tsc fails).
import { FlowHostClient, RPCError, statusOf, EVENT_STATUS, PlatformKeystore, lowS, type Event, type GetPasswordEvent } from "../index.js";

export async function drive(binary: string): Promise<number | null> {
  const host = new FlowHostClient([binary, "--store", "/tmp/s.sqlite"], { timeoutMs: 5000 });
  host.onRequest("platform/authenticateLDA", async (params, signal) => {
    signal.addEventListener("abort", () => undefined);
    return { authenticated: params.userID === "alice" };
  });
  const keystore = new PlatformKeystore({ algorithm: "ES256" });
  keystore.attach(host);
  const made: { keyID: string; algorithm: "ES256" | "Ed25519" } = keystore.createDeviceKey({ userID: "alice", purpose: "activation", algorithms: ["ES256"] });
  const lowered: Uint8Array = lowS(new Uint8Array(64));
  void made; void lowered;
  // @ts-expect-error: not an algorithm the keystore makes
  void new PlatformKeystore({ algorithm: "RS256" });
  await host.initialize({ device: { deviceID: "ts", ldaCapabilities: [1], keyCustody: "platform" } });
  await host.waitEvent("getUser");
  await host.setUser({ userName: "alice" });
  const challenge: Event<GetPasswordEvent, "getPassword"> = await host.waitEvent("getPassword");
  const mode: number = challenge.params.challengeMode;
  const codes: number[] | undefined = EVENT_STATUS.getPassword?.status;
  await host.setPassword({ password: "secret", challengeMode: mode });
  host.on("onUserLoggedIn", (params) => { const user: string = params.userID; void user; });
  const status = statusOf(challenge);
  void codes; void status;
  // @ts-expect-error: setPassword needs challengeMode
  await host.setPassword({ password: "secret" });
  // @ts-expect-error: not an event name
  await host.waitEvent("getUsers");
  // @ts-expect-error: challengeMode is a number
  const wrong: string = challenge.params.challengeMode;
  void wrong;
  try { await host.logOff({ userID: "alice" }); } catch (error) { if (error instanceof RPCError) return error.code; }
  return host.close();
}
