import FlowHostSDK
import FlowJSON
import FlowHostServiceTypes

/// Sessions: login, reset before login, logoff.
extension MFAFlow {
    /// A session without a password check (after LDA, or after replacing an
    /// expired password); the service checks the user may log in here now.
    func openSession(_ userID: String, factor: String, workflow: String = Workflow.login, proof: String? = nil) {
        guard let proof else {
            // The device proves it holds its key, then the session opens.
            return proveDevice(userID) { [self] outcome in
                guard case .proven(let fresh) = outcome else {
                    return askForUser(status: SDKCode.deviceNotRegistered, message: host.text("This device could not prove it is registered for this user.", in: "mfa"))
                }
                openSession(userID, factor: factor, workflow: workflow, proof: fresh)
            }
        }
        let outcome: Services.SessionOpenOutcome
        do {
            outcome = try host.call(Services.SessionOpen(userID: userID, deviceID: deviceID, workflow: workflow, proof: proof, factor: factor))
        } catch {
            host.log(.error, "opening a session failed: \(error.message)")
            return askForUser(status: SDKCode.serverFailed, message: host.text("Login failed on the server side; try again.", in: "mfa"))
        }
        switch outcome {
        case .opened(let sessionID): loggedIn(userID, sessionID: sessionID, workflow: workflow)
        case .refused(let status, _): refused(status: status)
        }
    }

    func loggedIn(_ userID: String, sessionID: String, workflow: String) {
        stage = .loggedIn(userID: userID, sessionID: sessionID)
        loginWorkflow = workflow
        let event = SDKPayload.event(sessionType: 1, sessionID: sessionID, workflow: workflow, fields: ["userID": .string(userID)])
        // Seeds 003 and 004 hand additionalInfo.jwtJsonTokenInfo to later screens: the host's signed session token.
        do {
            event["response"]?["additionalInfo"]?["jwtJsonTokenInfo"] = .string(try host.call(Services.SessionToken(sessionID: sessionID)).token)
        } catch {
            host.log(.error, "the session token could not be made: \(error.message)")
        }
        host.emit("onUserLoggedIn", event)
    }

    func resetAuthState() throws(FlowHostError) {
        if case .loggedIn = stage {
            // Logged in: it resets what another flow is in the middle of (a
            // step-up, an LDA toggle); the session stays.
            guard host.abandonAllDialogues() else {
                throw FlowHostError(.notAllowedNow, message: host.text("resetAuthState is for before login, or for a dialogue in progress; use logOff", in: "mfa"))
            }
            audit(nil, "flow.reset", "ok")
            return
        }
        pendingBindKey = nil
        restartDialogue()
        audit(nil, "flow.reset", "ok")
        askForUser()
    }

    func logOff(_ userID: String) throws(FlowHostError) {
        guard case .loggedIn(let current, let sessionID) = stage, current == userID,
            host.session?["sessionID"]?.stringValue == sessionID
        else {
            throw FlowHostError(.notAllowedNow, message: host.text("{userID} is not logged in on this device", in: "mfa", ["userID": userID]))
        }
        stage = .idle
        changingPassword = false
        restartDialogue()
        _ = try host.call(Services.SessionClose(sessionID: sessionID))
        host.emit(
            "onUserLoggedOff", SDKPayload.event(sessionType: 1, sessionID: sessionID, fields: ["userID": .string(userID)]))
        askForUser()
    }
}
