import FlowHostAccounts
import FlowHostStore

/// The LDA login: a session for a user the credentials domain lets in.
/// (Sessions themselves are the sessions domain's: `SessionLedger`, `SessionService`.)
extension CredentialService {
    /// An LDA login (or the session after replacing an expired password): a
    /// session for a user who may log in on this device now, on a device
    /// that proved it holds its key.
    public func openSession(_ userID: String, deviceID: String, workflow: String, proof: String?) throws -> SessionOutcome {
        try write(durability: .relaxed) { tx in
            guard let user = try tx.user(userID) else { throw StoreError.notFound }
            if let refusal = try loginRefusal(tx, user, deviceID: deviceID)
                ?? possessionRefusal(tx, userID: userID, deviceID: deviceID, proof.map(DevicePossession.proof), allowsBinding: false)
            {
                try audit.count(tx, userID, "session.open", refusal.name)
                return .refused(refusal)
            }
            return .opened(try sessionLedger.open(tx, userID: userID, deviceID: deviceID, workflow: workflow))
        }
    }
}
