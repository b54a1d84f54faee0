import FlowJSON

/// What flows ask of the device: an LDA check on the client's platform, and
/// a new device key (host custody: the host's keyring; platform custody: the
/// client's keystore). Each completion runs once, later, on the loop thread;
/// a flow checks there that its dialogue is still the one that asked.
extension FlowHost {
    /// `platform/authenticateLDA`: true only when the client says the check passed.
    public func authenticateWithLDA(userID: String, type: Int, reason: String, completion: @escaping (Bool) -> Void) {
        request("platform/authenticateLDA", ["userID": .string(userID), "authenticationType": .int(type), "reason": .string(reason)]) {
            outcome in
            if case .success(let result) = outcome, result["authenticated"]?.boolValue == true { completion(true) } else { completion(false) }
        }
    }

    /// `device.createKey`: `{keyID, publicKey, custody}`, the fields an
    /// activation step registers with the device.
    public func createDeviceKey(userID: String, deviceID: String, completion: @escaping (Result<JSON, FlowError>) -> Void) {
        call("device.createKey", ["userID": .string(userID), "deviceID": .string(deviceID)], completion: completion)
    }
}
