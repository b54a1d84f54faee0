import FlowHostVocabulary
import FlowJSON

/// Every policy knob of the credential services, with safe defaults. Read
/// from the `passwords`, `activation` and `devices` sections of the config file; a bad
/// value is refused with the key's full name.
public struct CredentialSettings: Sendable, Equatable {
    public var hasher = Argon2idHasher.owaspDefault
    public var policy = PasswordPolicy()
    /// How many previous passwords may not be reused (status 164).
    public var historyDepth = 5
    /// Wrong passwords before the block (141): the seeds' 3.
    public var maxPasswordAttempts = 3
    /// Days a password stays valid (0: it never expires by age).
    public var passwordLifetimeDays = 0
    public var activationCodeLifetimeSeconds: Int64 = 600
    public var maxActivationAttempts = 5
    /// The least time between two `resendActivationCode` calls of a user.
    public var resendIntervalSeconds: Int64 = 30
    /// How many codes a client may ask for with `resendActivationCode` within
    /// one code lifetime (an operator's re-issue starts afresh).
    public var maxResendsPerCodeLifetime = 3
    /// How long after a device joins a user that user's devices cannot be
    /// renamed or deleted by the user (status 146; 0: no cooling period). A
    /// day: someone who just joined a device of their own cannot at once
    /// delete the owner's.
    public var deviceCoolingPeriodSeconds: Int64 = 86_400
    /// Whether a user may reset a forgotten password with `forgotPassword`
    /// (a code through the delivery channel, on a registered device). Off
    /// by default: the operator turns it on once the delivery channel is one
    /// only the user reads (status 170 while off).
    public var forgotPasswordEnabled = false

    public init() {}

    public typealias Invalid = ConfigError

    /// The config sections this module owns.
    public static let configKeys: Set<String> = ["passwords", "activation", "devices"]

    public static func parse(passwords: JSON?, activation: JSON?, devices: JSON? = nil) throws(Invalid) -> CredentialSettings {
        var settings = CredentialSettings()
        if let passwords {
            let reader = try SectionReader(passwords, "passwords")
            for key in passwords.keys {
                switch key {
                case "argon2":
                    let argon = try SectionReader(passwords["argon2"]!, "passwords.argon2")
                    for inner in passwords["argon2"]!.keys {
                        switch inner {
                        case "memoryKiB": settings.hasher.memoryKiB = UInt32(try argon.int(inner, 8...4_194_304))
                        case "iterations": settings.hasher.iterations = UInt32(try argon.int(inner, 1...100))
                        case "parallelism": settings.hasher.parallelism = UInt32(try argon.int(inner, 1...64))
                        default: throw Invalid(key: "passwords.argon2.\(inner)", reason: "unknown key")
                        }
                    }
                    if settings.hasher.memoryKiB < 8 * settings.hasher.parallelism {
                        throw Invalid(key: "passwords.argon2.memoryKiB", reason: "must be at least 8 × parallelism")
                    }
                case "policy": settings.policy = try parsePolicy(passwords["policy"]!)
                case "historyDepth": settings.historyDepth = try reader.int(key, 0...50)
                case "maxAttempts": settings.maxPasswordAttempts = try reader.int(key, 1...100)
                case "lifetimeDays": settings.passwordLifetimeDays = try reader.int(key, 0...3650)
                case "forgotPassword": settings.forgotPasswordEnabled = try reader.bool(key)
                default: throw Invalid(key: "passwords.\(key)", reason: "unknown key")
                }
            }
        }
        if let activation {
            let reader = try SectionReader(activation, "activation")
            for key in activation.keys {
                switch key {
                case "codeLifetimeSeconds": settings.activationCodeLifetimeSeconds = Int64(try reader.int(key, 10...604_800))
                case "maxAttempts": settings.maxActivationAttempts = try reader.int(key, 1...100)
                case "resendIntervalSeconds": settings.resendIntervalSeconds = Int64(try reader.int(key, 0...86_400))
                case "maxResendsPerCode": settings.maxResendsPerCodeLifetime = try reader.int(key, 0...20)
                case "deliveryCommand", "deliveryTimeoutSeconds", "deliveryAttempts":
                    throw Invalid(key: "activation.\(key)", reason: "moved to the delivery section (delivery.command, .timeoutSeconds, .attempts)")
                default: throw Invalid(key: "activation.\(key)", reason: "unknown key")
                }
            }
        }
        if let devices {
            let reader = try SectionReader(devices, "devices")
            for key in devices.keys {
                switch key {
                case "coolingPeriodSeconds": settings.deviceCoolingPeriodSeconds = Int64(try reader.int(key, 0...2_592_000))
                default: throw Invalid(key: "devices.\(key)", reason: "unknown key")
                }
            }
        }
        return settings
    }

    private static func parsePolicy(_ section: JSON) throws(Invalid) -> PasswordPolicy {
        var policy = PasswordPolicy()
        let reader = try SectionReader(section, "passwords.policy")
        for key in section.keys {
            switch key {
            case "minL": policy.minL = try reader.int(key, 1...1024)
            case "maxL": policy.maxL = try reader.int(key, 1...1024)
            case "minDg": policy.minDg = try reader.int(key, 0...1024)
            case "minUc": policy.minUc = try reader.int(key, 0...1024)
            case "minLc": policy.minLc = try reader.int(key, 0...1024)
            case "minSc": policy.minSc = try reader.int(key, 0...1024)
            case "charsNotAllowed": policy.charsNotAllowed = try reader.string(key)
            case "Repetition": policy.repetition = try reader.int(key, 0...1024)
            case "UserIDcheck": policy.userIDCheck = try reader.bool(key)
            case "SeqCheck": policy.seqCheck = try reader.bool(key)
            case "BlackListedCommonPassword": policy.blackListedCommonPassword = try reader.bool(key)
            case "msg": policy.msg = try reader.string(key)
            default: throw Invalid(key: "passwords.policy.\(key)", reason: "unknown key")
            }
        }
        if policy.minL > policy.maxL { throw Invalid(key: "passwords.policy.minL", reason: "greater than maxL") }
        return policy
    }
}

/// Typed reads of one config section, with the section's path in errors.
private struct SectionReader {
    let section: JSON
    let path: String

    init(_ section: JSON, _ path: String) throws(CredentialSettings.Invalid) {
        guard section.kind == .object else { throw CredentialSettings.Invalid(key: path, reason: "must be an object") }
        self.section = section
        self.path = path
    }

    func int(_ key: String, _ range: ClosedRange<Int>) throws(CredentialSettings.Invalid) -> Int {
        guard let value = section[key]?.intValue, range.contains(value) else {
            throw CredentialSettings.Invalid(key: "\(path).\(key)", reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func bool(_ key: String) throws(CredentialSettings.Invalid) -> Bool {
        // The SDK writes some flags as "true"/"false" strings; accept both spellings.
        if let value = section[key]?.boolValue { return value }
        switch section[key]?.stringValue {
        case "true": return true
        case "false": return false
        default: throw CredentialSettings.Invalid(key: "\(path).\(key)", reason: "must be a boolean")
        }
    }

    func string(_ key: String) throws(CredentialSettings.Invalid) -> String {
        guard let value = section[key]?.stringValue else {
            throw CredentialSettings.Invalid(key: "\(path).\(key)", reason: "must be a string")
        }
        return value
    }
}
