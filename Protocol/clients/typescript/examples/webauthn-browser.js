// A web page's answers to the host's WebAuthn requests (`keyCustody:
// "webauthn"`, spec §7), with the browser's own authenticator (a passkey
// provider, Touch ID, Windows Hello, a security key). The host's params are
// WebAuthn's JSON options and it takes WebAuthn's JSON answer
// (`PublicKeyCredential.toJSON()`), so the page passes them through:
//
//   platform/createCredential → navigator.credentials.create → toJSON()
//   platform/getAssertion     → navigator.credentials.get    → toJSON()
//
// The host runs beside a server of the app's, not in the browser: the
// server's FlowHostClient relays each request to the page and the page's
// answer back (docs/clients.md, "WebAuthn answers"). For browsers without
// the JSON helpers (parse…FromJSON, toJSON), the same conversion is done here.

/** `platform/createCredential {challenge, rp, user, pubKeyCredParams, authenticatorSelection, attestation}` → RegistrationResponseJSON. */
export async function createCredential(params, signal) {
  const publicKey = typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function"
    ? PublicKeyCredential.parseCreationOptionsFromJSON(params)
    : { ...params, challenge: bytes(params.challenge), user: { ...params.user, id: bytes(params.user.id) },
        excludeCredentials: (params.excludeCredentials ?? []).map((credential) => ({ ...credential, id: bytes(credential.id) })) };
  const credential = await navigator.credentials.create({ publicKey, signal });
  if (typeof credential.toJSON === "function") return credential.toJSON();
  return {
    id: credential.id, rawId: text(credential.rawId), type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: text(credential.response.clientDataJSON),
      attestationObject: text(credential.response.attestationObject),
      transports: credential.response.getTransports?.() ?? [],
      // What toJSON() adds, read out of the attestation object by the browser.
      authenticatorData: credential.response.getAuthenticatorData ? text(credential.response.getAuthenticatorData()) : undefined,
      publicKey: credential.response.getPublicKey?.() ? text(credential.response.getPublicKey()) : undefined,
      publicKeyAlgorithm: credential.response.getPublicKeyAlgorithm?.(),
    },
  };
}

/** `platform/getAssertion {challenge, rpId, allowCredentials, userVerification}` → AuthenticationResponseJSON. */
export async function getAssertion(params, signal) {
  const publicKey = typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function"
    ? PublicKeyCredential.parseRequestOptionsFromJSON(params)
    : { ...params, challenge: bytes(params.challenge),
        allowCredentials: (params.allowCredentials ?? []).map((credential) => ({ ...credential, id: bytes(credential.id) })) };
  const credential = await navigator.credentials.get({ publicKey, signal });
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const { response } = credential;
  return {
    id: credential.id, rawId: text(credential.rawId), type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: text(response.clientDataJSON),
      authenticatorData: text(response.authenticatorData),
      signature: text(response.signature),
      userHandle: response.userHandle ? text(response.userHandle) : null,
    },
  };
}

/** A refusal as the host reads it (spec §7): the user dismissed the prompt, or there is no authenticator. */
export function refusal(error) {
  const reason = error?.name === "NotAllowedError" || error?.name === "AbortError" ? "cancelled" : "unavailable";
  return { code: 1, message: String(error?.message ?? error), data: { reason } };
}

// base64url without padding, as WebAuthn's JSON encoding has it.
function bytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

function text(buffer) {
  const view = new Uint8Array(buffer);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
