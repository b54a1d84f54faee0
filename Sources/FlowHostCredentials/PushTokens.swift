import FlowHostAccounts
import FlowHostDevices
import FlowHostPOSIX
import FlowHostStore
import FlowJSON

/// The SDK's `setDeviceToken`: a logged-in device's push token (FCM or
/// APNs), one per device registration, replaced when sent again, removed
/// when the device is revoked or deleted (`revokeDevice`). Who may set it
/// (the user logged in on that device) is the caller's to check.
///
/// A token is not a secret like a password, but it lets anyone who holds
/// it (with the app's push credentials) reach the device: it is kept in
/// the store alone, never logged or audited in full, and only
/// `push.command` is given it.
///
/// Used from one thread at a time, like the `CredentialService` it wraps.
public final class PushTokens {
    let credentials: CredentialService

    public init(_ credentials: CredentialService) { self.credentials = credentials }

    /// The longest token taken: FCM's are about 160 characters, APNs' 64;
    /// the room above is for providers that grow theirs.
    public static let maxLength = 4096
    public static let minLength = 16

    /// Why a token is refused, in words for the client (never the token).
    public static func problem(_ token: String) -> String? {
        let count = token.unicodeScalars.count
        guard (minLength...maxLength).contains(count) else { return "must be \(minLength) to \(maxLength) characters" }
        guard token.unicodeScalars.allSatisfy(allowed) else {
            return "may hold only ASCII letters, digits and - _ : . + / = (an FCM or APNs token as the platform gave it)"
        }
        return nil
    }

    static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ":", ".", "+", "/", "=": true
        default: false
        }
    }

    /// What may stand for a token in logs and the audit: the first 12 hex
    /// digits of its SHA-256, enough to tell two tokens apart.
    public static func fingerprint(_ token: String) -> String {
        String(Hex.encode(SHA256.digest(Array(token.utf8))).prefix(12))
    }

    public enum Outcome: Sendable, Equatable {
        /// Recorded (`replaced`: the registration had another token).
        case recorded(replaced: Bool)
        /// The device is not an active registration of the user.
        case notRegistered
    }

    /// Records `token` for the user's registration of `deviceID`, replacing
    /// the one it had. The token must pass `problem` (the caller's refusal).
    public func set(_ userID: String, deviceID: String, token: String) throws -> Outcome {
        precondition(Self.problem(token) == nil, "an unchecked push token")
        let now = credentials.clock()
        return try credentials.write { tx in
            guard let device = try tx.device(userID: userID, deviceID: deviceID), device.status == .active else {
                try credentials.audit.row(tx, userID, deviceID, "push.token", "not-registered")
                return .notRegistered
            }
            let previous = try tx.pushToken(userID: userID, deviceID: deviceID)
            if previous == token { return .recorded(replaced: false) }
            try tx.setPushToken(userID: userID, deviceID: deviceID, token: token, at: now)
            try credentials.audit.row(
                tx, userID, deviceID, "push.token", previous == nil ? "set" : "replaced", ["token": .string(Self.fingerprint(token))])
            return .recorded(replaced: previous != nil)
        }
    }
}
