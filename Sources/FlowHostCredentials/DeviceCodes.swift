import FlowHostAccounts
import FlowHostStore
import FlowHostVocabulary

/// Codes for one user on one device, sent through the delivery channel: a
/// new device's activation fallback, `resetBlockedUserAccount` and
/// `forgotPassword`. A code is bound to its purpose (the action that sent
/// it): a check for another purpose finds no code and spends nothing. It
/// is hashed at rest, replaced by the next one for the same purpose,
/// rate-limited like a resend,
/// and has `deviceCodeTries` wrong tries of its own (a stranger who asks for
/// codes cannot spend the user's attempts).
extension CredentialService {
    public static let deviceCodeTries = 3

    /// How checking a device code ended.
    public enum DeviceCodeCheck: Sendable, Equatable {
        /// Right: the code is spent, and `accepted` ran in the same transaction.
        case accepted(grant: String)
        case wrong(triesLeft: Int)
        /// No live code: never sent, replaced, expired, used, or its tries spent.
        case noCode
        case refused(Refusal)
    }

    /// A fresh code to the user's delivery channel for `deviceID` and
    /// `action` (its purpose); the previous one for that purpose stops working.
    func sendDeviceCode(
        _ userID: String, deviceID: String, action: String, refusal: (any StoreReader, UserRecord, String) throws -> Refusal?
    ) throws -> ResendOutcome {
        try sendCode(
            userID, deviceID: deviceID, forDevice: deviceID, purpose: action, action: action, refusal: refusal,
            replacePrevious: { tx, now in
                if let previous = try tx.deviceCode(userID: userID, deviceID: deviceID, purpose: action, now: now), let id = previous.id {
                    _ = try tx.recordDeviceCodeMiss(id: id, limit: 0, at: now)  // replaced: it stops working
                }
            },
            sent: { tx, _ in
                try self.audit.row(tx, userID, deviceID, action, "sent")
                return Self.deviceCodeTries
            })
    }

    /// Checks a typed device code. The live code is hashed outside any
    /// transaction; the outcome is decided inside one, against the user's
    /// state then, and a right code's effect (`accepted`) joins it.
    func checkDeviceCode(
        _ userID: String, code: String, deviceID: String, action: String,
        refusal: (any StoreReader, UserRecord, String) throws -> Refusal?,
        accepted: (any StoreWriter, inout UserRecord) throws -> Void = { _, _ in }
    ) throws -> DeviceCodeCheck {
        let now = clock()
        let typed = ActivationCodes.normalize(code)
        let live = try store.read { try $0.deviceCode(userID: userID, deviceID: deviceID, purpose: action, now: now) }
        let matches = live.map { settings.hasher.verify(typed, against: $0.codeHash) } ?? false
        return try write { tx in
            guard var user = try tx.user(userID) else { throw StoreError.notFound }
            if let refused = try refusal(tx, user, deviceID) {
                try audit.count(tx, userID, action, refused.name)
                return .refused(refused)
            }
            guard let current = try tx.deviceCode(userID: userID, deviceID: deviceID, purpose: action, now: now), let id = current.id, id == live?.id else {
                try audit.count(tx, userID, action, "no-code")
                return .noCode
            }
            guard matches else {
                let left = try tx.recordDeviceCodeMiss(id: id, limit: Self.deviceCodeTries, at: now)
                try audit.row(tx, userID, deviceID, action, "wrong", ["triesLeft": .int(left)])
                return left > 0 ? .wrong(triesLeft: left) : .noCode
            }
            let grant = SecureRandom.hex(bytes: 32)
            guard try tx.acceptActivationCode(id: id, at: now, grantHash: ActivationGrant.hash(grant)) else { return .noCode }
            try accepted(tx, &user)
            try audit.row(tx, userID, deviceID, action, "ok")
            return .accepted(grant: grant)
        }
    }
}
