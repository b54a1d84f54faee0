import ArgumentParser
import FlowHostLaunch
import FlowHostPOSIX
import FlowHostVocabulary
import FlowJSON

#if canImport(Glibc)
import Glibc
#endif

/// `flowhost demo`: the main job. Spawns `flowhost` (beside this executable)
/// as a server on a temporary store and walks through every flow, printing
/// the exchange.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a scripted session of every flow against a temporary store.")

    @Option(help: "Use this store file instead of a temporary one.")
    var store: String?

    func run() throws {
        guard let binaries = ExecutableLocation.directory(), access(binaries + "/flowhost", X_OK) == 0 else {
            throw ValidationError("cannot find flowhost beside this executable")
        }
        let executable = binaries + "/flowhost"
        // The temporary store and everything beside it (its keys, the issuer's
        // key, the device keys) go with the folder when the demo ends.
        let scratch = try TemporaryFolder(prefix: "flowhost-demo")
        let folder = scratch.path
        let context = DemoContext(executable: executable, storePath: store ?? folder + "/demo.sqlite", folder: folder)

        for scenario in DemoScenario.all {
            print("\n== \(scenario.title)")
            try scenario.run(context)
        }
        print("\nDemo finished: every scenario ran as scripted.")
        withExtendedLifetime(scratch) {}
    }
}

/// One scripted walk through a flow.
struct DemoScenario: Sendable {
    let title: String
    let run: @Sendable (DemoContext) throws -> Void

    static var all: [DemoScenario] { [echo, activationWithPassword, passwordLogin, activationWithLDA, ldaLogin, stepUp, secondDevice, myDevices, ldaToggle, dataSigning, forgotPassword] }

    static let password = "Tr0ub4dor&Zebra"
    /// The password alice sets when she turns LDA off (challengeMode 14); the signing demo logs in with it.
    static let newPassword = "Correct-Horse-9-Battery"

    static let activationWithPassword = DemoScenario(title: "mfa: activation with a password, then logoff") { context in
        let code = try context.addUser("alice")
        let client = try context.startHost(deviceID: "alice-laptop")
        try client.waitEvent("getUser")
        try client.call("setUser", ["userName": "alice"])
        try client.waitEvent("getActivationCode")
        try client.call("setActivationCode", [.string(code)])
        try client.waitEvent("getDeviceName")
        try client.call("setDeviceName", ["Alice's laptop"])
        try client.waitEvent("getPassword")
        try client.call("setPassword", [.string(password), 1])
        try client.waitEvent("onUserLoggedIn")
        try client.call("logOff", ["alice"])
        try client.waitEvent("onUserLoggedOff")
        try client.waitEvent("getUser")
        try context.stop(client)
    }

    static let passwordLogin = DemoScenario(title: "mfa: password login, with one wrong attempt first") { context in
        let client = try context.startHost(deviceID: "alice-laptop")
        try client.waitEvent("getUser")
        try client.call("setUser", ["alice"])
        try client.waitEvent("getPassword")
        try client.call("setPassword", ["not-her-password", 0])
        let retry = try client.waitEvent("getPassword")
        guard retry["response"]?["status"]?["statusCode"]?.intValue == SDKCode.authenticationFailed else {
            throw DemoClient.Failure(description: "expected status 102 after a wrong password")
        }
        try client.call("setPassword", [.string(password), 0])
        try client.waitEvent("onUserLoggedIn")
        try context.stop(client)
    }

    static let activationWithLDA = DemoScenario(title: "mfa: activation with LDA (the client's platform confirms a fingerprint)") { context in
        let code = try context.addUser("bob")
        let client = try context.startHost(deviceID: "bob-phone", ldaCapabilities: [1])
        try client.waitEvent("getUser")
        try client.call("setUser", ["bob"])
        try client.waitEvent("getActivationCode")
        try client.call("setActivationCode", [.string(code)])
        try client.waitEvent("getDeviceName")
        try client.call("setDeviceName", ["Bob's phone"])
        try client.waitEvent("getUserConsentForLDA")
        try client.call("setUserConsentForLDA", [true, 1, 1])
        try client.waitEvent("onUserLoggedIn")
        try client.call("logOff", ["bob"])
        try client.waitEvent("onUserLoggedOff")
        try context.stop(client)
    }

    static let ldaLogin = DemoScenario(title: "mfa: login with LDA") { context in
        let client = try context.startHost(deviceID: "bob-phone", ldaCapabilities: [1])
        try client.waitEvent("getUser")
        try client.call("setUser", ["bob"])
        try client.waitEvent("onUserLoggedIn")
        try context.stop(client)
    }

    static let stepUp = DemoScenario(title: "step-up: a notification approved with the password again (challengeMode 3)") { context in
        let client = try context.startHost(deviceID: "alice-laptop")
        try logIn(client, "alice")
        let uuid = try context.notify("alice", subject: "Pay 20 EUR to Carol?", actions: [("Accept", "accept", "1"), ("Reject", "reject", "0")])
        try client.waitEvent("onNotificationReceived")
        try client.call("getNotifications", [0, "", 1, "", ""])
        try client.waitEvent("onGetNotifications")
        try client.call("updateNotification", [.string(uuid), "accept"])
        try client.waitEvent("getPassword")
        try client.call("setPassword", [.string(password), 3])
        let updated = try client.waitEvent("onUpdateNotification")
        guard updated["pArgs"]?["response"]?["StatusCode"]?.intValue == SDKCode.success else {
            throw DemoClient.Failure(description: "expected the action to be recorded")
        }
        try context.stop(client)
    }

    static let secondDevice = DemoScenario(
        title: "device-activation: alice's tablet joins, approved from her laptop (two hosts, one store)"
    ) { context in
        let laptop = try context.startHost(deviceID: "alice-laptop")
        try logIn(laptop, "alice")

        print("  -- on the new tablet:")
        let tablet = try context.startHost(deviceID: "alice-tablet")
        try tablet.waitEvent("getUser")
        try tablet.call("setUser", ["alice"])
        try tablet.waitEvent("addNewDeviceOptions")
        try tablet.call("performVerifyAuth", [true])

        print("  -- on the laptop, the approval request arrives through the change feed:")
        let pushed = try laptop.waitEvent("onNotificationReceived")
        let uuid = pushed["notification_uuid"]?.stringValue ?? ""
        try laptop.call("updateNotification", [.string(uuid), "accept"])
        try laptop.waitEvent("getPassword")
        try laptop.call("setPassword", [.string(password), 3])
        try laptop.waitEvent("onUpdateNotification")

        print("  -- back on the tablet:")
        try tablet.waitEvent("getPassword")
        try tablet.call("setPassword", [.string(password), 0])
        let joined = try tablet.waitEvent("onUserLoggedIn")
        guard joined["response"]?["additionalInfo"]?["currentWorkFlow"]?.stringValue == "AdditionalDeviceActivation" else {
            throw DemoClient.Failure(description: "expected AdditionalDeviceActivation")
        }
        try context.stop(tablet)
        try context.stop(laptop)
    }

    static let myDevices = DemoScenario(
        title: "my devices: alice lists her devices; the tablet just joined, so changes wait for the cooling period (146); without one, she renames it"
    ) { context in
        let laptop = try context.startHost(deviceID: "alice-laptop")
        try logIn(laptop, "alice")
        try laptop.call("getRegisteredDeviceDetails", ["alice"])
        let listed = try laptop.waitEvent("onGetRegistredDeviceDetails")
        let devices = listed["pArgs"]?["response"]?["ResponseData"]?["device"] ?? .array()
        func change(_ status: String, name: String? = nil) -> String {
            let items = devices.elements.map { device -> JSON in
                guard device["devUUID"]?.stringValue == "alice-tablet", let copy = try? JSON.parse(device.serialized()) else { return device }
                copy["status"] = .string(status)
                if let name { copy["devName"] = .string(name) }
                return copy
            }
            return (["device": .array(items)] as JSON).serialized()
        }
        try laptop.call("updateDeviceDetails", ["alice", .string(change("Delete"))])
        try expectDeviceStatus(try laptop.waitEvent("onUpdateDeviceDetails"), SDKCode.deviceCoolingPeriod)
        try context.stop(laptop)
        print("  -- a host whose operator turned the cooling period off (devices.coolingPeriodSeconds: 0):")
        let config = context.folder + "/no-cooling.json"
        try SystemFile.create(config, bytes: Array(#"{"devices": {"coolingPeriodSeconds": 0}}"#.utf8), mode: 0o600)
        let renaming = try context.startHost(deviceID: "alice-laptop", config: config)
        try logIn(renaming, "alice")
        try renaming.call("updateDeviceDetails", ["alice", .string(change("Update", name: "Alice's tablet"))])
        try expectDeviceStatus(try renaming.waitEvent("onUpdateDeviceDetails"), SDKCode.success)
        try context.stop(renaming)
    }

    private static func expectDeviceStatus(_ event: JSON, _ status: Int) throws {
        guard event["pArgs"]?["response"]?["StatusCode"]?.intValue == status else {
            throw DemoClient.Failure(description: "expected onUpdateDeviceDetails with status \(status)")
        }
    }

    static let ldaToggle = DemoScenario(
        title: "lda-toggle: alice turns the fingerprint on (password 5, consent 16), logs in with it, turns it off (password 15, a new one 14)"
    ) { context in
        let laptop = try context.startHost(deviceID: "alice-laptop", ldaCapabilities: [1])
        try logIn(laptop, "alice")
        try laptop.call("getDeviceAuthenticationDetails")
        try laptop.call("manageDeviceAuthenticationModes", [true, 1])
        try laptop.waitEvent("getPassword")
        try laptop.call("setPassword", [.string(password), 5])
        try laptop.waitEvent("getUserConsentForLDA")
        try laptop.call("setUserConsentForLDA", [true, 16, 1])
        try expectToggled(try laptop.waitEvent("onDeviceAuthManagementStatus"))
        try laptop.call("logOff", ["alice"])
        try laptop.waitEvent("getUser")
        print("  -- the next login uses the fingerprint:")
        try laptop.call("setUser", ["alice"])
        try laptop.waitEvent("onUserLoggedIn")
        try laptop.call("manageDeviceAuthenticationModes", [false, 1])
        try laptop.waitEvent("getPassword")
        try laptop.call("setPassword", [.string(password), 15])
        try laptop.waitEvent("getPassword")
        try laptop.call("setPassword", [.string(newPassword), 14])
        try expectToggled(try laptop.waitEvent("onDeviceAuthManagementStatus"))
        try context.stop(laptop)
    }

    static let dataSigning = DemoScenario(
        title: "data-signing: alice signs at level 0, at level 1 with her password (challengeMode 12), at level 4 with the server biometric; anyone can check it"
    ) { context in
        let laptop = try context.startHost(deviceID: "alice-laptop")
        try logIn(laptop, "alice", password: newPassword)
        try laptop.call("authenticateUserAndSignData", ["I accept the terms, version 7", 0, 0, "Terms of service"])
        try expectSigned(try laptop.waitEvent("onAuthenticateUserAndSignData"))
        try laptop.call("authenticateUserAndSignData", ["Pay 20 EUR to Carol", 1, 0, "Invoice 42"])
        try laptop.waitEvent("getPassword")
        try laptop.call("setPassword", [.string(newPassword), 12])
        let signed = try laptop.waitEvent("onAuthenticateUserAndSignData")
        try expectSigned(signed)
        try laptop.call("authenticateUserAndSignData", ["Transfer 5000 EUR", 4, 1, "Wire 7"])
        try expectSigned(try laptop.waitEvent("onAuthenticateUserAndSignData"))
        let check = try laptop.call("verifyDataSignature", ["dataSignatureID": signed["dataSignatureID"] ?? ""])
        guard check["valid"]?.boolValue == true else { throw DemoClient.Failure(description: "expected the signature to verify") }
        try context.stop(laptop)
    }

    static let forgotPassword = DemoScenario(
        title: "mfa: carol forgot her password: forgotPassword (passwords.forgotPassword on), a code through the delivery channel, a new password (ForgotCredentials)"
    ) { context in
        let config = context.folder + "/forgot-password.json"
        try SystemFile.create(config, bytes: Array(#"{"passwords": {"forgotPassword": true}}"#.utf8), mode: 0o600)
        let code = try context.addUser("carol")
        let phone = try context.startHost(deviceID: "carol-phone", config: config)
        try phone.waitEvent("getUser")
        try phone.call("setUser", ["carol"])
        try phone.waitEvent("getActivationCode")
        try phone.call("setActivationCode", [.string(code)])
        try phone.waitEvent("getDeviceName")
        try phone.call("setDeviceName", ["Carol's phone"])
        try phone.waitEvent("getPassword")
        try phone.call("setPassword", [.string(password), 1])
        try phone.waitEvent("onUserLoggedIn")
        try phone.call("logOff", ["carol"])
        try phone.waitEvent("getUser")
        print("  -- carol comes back and cannot remember her password:")
        try phone.call("setUser", ["carol"])
        let asked = try phone.waitEvent("getPassword")
        let offered = asked["response"]?["info"]?.elements.contains {
            $0["key"]?.stringValue == "ENABLE_FORGOT_PASSWORD" && $0["value"]?.stringValue == "true"
        }
        guard offered == true else { throw DemoClient.Failure(description: "expected getPassword 0 to offer forgotPassword") }
        try phone.call("forgotPassword", ["carol"])
        try phone.waitEvent("getActivationCode")
        try phone.call("setActivationCode", [.string(try context.deliveredCode("carol"))])
        try phone.waitEvent("getPassword")
        try phone.call("setPassword", [.string(newPassword), 1])
        let reset = try phone.waitEvent("onUserLoggedIn")
        guard reset["response"]?["additionalInfo"]?["currentWorkFlow"]?.stringValue == "ForgotCredentials" else {
            throw DemoClient.Failure(description: "expected ForgotCredentials")
        }
        try context.stop(phone)
    }

    /// A password login from the host's first getUser.
    private static func logIn(_ client: DemoClient, _ userID: String, password: String = password) throws {
        try client.waitEvent("getUser")
        try client.call("setUser", [.string(userID)])
        try client.waitEvent("getPassword")
        try client.call("setPassword", [.string(password), 0])
        try client.waitEvent("onUserLoggedIn")
    }

    private static func expectSigned(_ event: JSON) throws {
        guard event["status"]?["statusCode"]?.intValue == SDKCode.success, event["error"]?["longErrorCode"]?.intValue == SDKCode.noError else {
            throw DemoClient.Failure(description: "expected the data to be signed")
        }
    }

    private static func expectToggled(_ status: JSON) throws {
        guard status["status"]?["statusCode"]?.intValue == SDKCode.success, status["error"]?["longErrorCode"]?.intValue == SDKCode.noError else {
            throw DemoClient.Failure(description: "expected the LDA toggle to succeed")
        }
    }

    static let echo = DemoScenario(title: "The C example flow: a method and its event") { context in
        let client = try context.startHost(deviceID: "demo-echo")
        try client.call("echo", ["text": "hello from a flow written in C", "notify": true])
        try client.waitEvent("onEcho")
        try context.stop(client)
    }
}
