import FlowHostVocabulary
import FlowJSON

/// Logging a user in through the built-in `mfa` flow, as a client would:
/// what a test of a flow that asks for a step-up (`stepup.authenticate`)
/// needs first. Load the built-in flows with `builtInLibraries:` (mfa uses
/// device-activation's service, so both; and step-up for the step-up itself).
extension TestHost {
    /// Answers mfa's challenges until `userID` is logged in: `setUser`; for
    /// a user not yet active, the activation code `addUser` returned (pass
    /// it as `activationCode`), the device's name, no LDA and `password` as
    /// the new password; for an active one, `password`. The host must have
    /// been initialized, with mfa's `getUser` not yet answered. Returns
    /// `onUserLoggedIn`'s params; throws the first event with another status.
    @discardableResult
    public func logIn(_ userID: String, password: String, activationCode: String? = nil) throws -> JSON {
        guard flowNames.contains("mfa") else { throw TestHostError("logIn needs the built-in mfa flow (builtInLibraries:)") }
        var answered = 0
        while let event = nextEvent() {
            let status = event.params["response"]?["status"]?["statusCode"]?.intValue ?? 100
            let mode = event.params["challengeMode"]?.intValue ?? 0
            guard status == 100 else {
                throw TestHostError("logging \(userID) in: \(event.name) came with status \(status): \(event.params.serialized())")
            }
            answered += 1
            guard answered < 16 else { throw TestHostError("logging \(userID) in took more than 15 steps") }
            switch event.name {
            case "getUser":
                try answer("setUser", ["userName": .string(userID)])
            case "getActivationCode":
                guard let activationCode else { throw TestHostError("\(userID) is not active: pass the code addUser returned") }
                try answer("setActivationCode", ["activationCode": .string(activationCode)])
            case "getDeviceName":
                try answer("setDeviceName", [event.params["deviceName"] ?? .string("Test device")])
            case "getUserConsentForLDA":
                try answer("setUserConsentForLDA", [false, .int(mode), event.params["authenticationType"] ?? .int(0)])
            case "getPassword":
                try answer("setPassword", [.string(password), .int(mode)])
            case "onUserLoggedIn":
                return event.params
            default:
                throw TestHostError("logging \(userID) in: unexpected \(event.name): \(event.params.serialized())")
            }
        }
        throw TestHostError("logging \(userID) in: the host sent nothing more")
    }

    private func answer(_ method: String, _ params: JSON) throws {
        do { try request(method, params) } catch { throw TestHostError("\(method) was refused: \(error.message)") }
    }
}
