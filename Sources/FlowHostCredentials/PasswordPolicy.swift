import FlowHostPOSIX
import FlowJSON

/// The REL-ID SDK's `RELID_PASSWORD_POLICY`: the rules a new password must
/// meet, sent to the client as JSON text in `challengeInfo` of `getPassword`
/// when a password is being set. A violation is status 190.
public struct PasswordPolicy: Sendable, Equatable {
    public var minL = 8
    public var maxL = 64
    public var minDg = 1
    public var minUc = 1
    public var minLc = 1
    public var minSc = 1
    public var charsNotAllowed = ""
    /// The most identical characters allowed in a row (0: no limit).
    public var repetition = 2
    /// The password may not contain the user id (ignoring case).
    public var userIDCheck = true
    /// No run of 4 or more ascending or descending letters or digits ("abcd", "4321").
    public var seqCheck = true
    /// Not one of the common passwords (ignoring case and trailing digits and symbols).
    public var blackListedCommonPassword = true
    public var msg = "Use 8 to 64 characters with an upper-case letter, a lower-case letter, a digit and a symbol; no more than 2 identical characters in a row, no sequences like abcd or 1234, not your user id, and not a common password."

    public init() {}

    public static let sequenceLength = 4

    /// What is wrong with `password` for `userID`; empty when it passes.
    public func violations(of password: String, userID: String) -> [PolicyViolation] {
        var found: [PolicyViolation] = []
        let characters = Array(password)
        if characters.count < minL { found.append(.init("minL", .int(minL), "shorter than \(minL) characters")) }
        if characters.count > maxL { found.append(.init("maxL", .int(maxL), "longer than \(maxL) characters")) }
        if characters.filter(\.isASCIIDigit).count < minDg { found.append(.init("minDg", .int(minDg), "fewer than \(minDg) digits")) }
        if characters.filter(\.isUppercase).count < minUc { found.append(.init("minUc", .int(minUc), "fewer than \(minUc) upper-case letters")) }
        if characters.filter(\.isLowercase).count < minLc { found.append(.init("minLc", .int(minLc), "fewer than \(minLc) lower-case letters")) }
        if characters.filter({ !$0.isLetter && !$0.isNumber }).count < minSc { found.append(.init("minSc", .int(minSc), "fewer than \(minSc) symbols")) }
        if let banned = characters.first(where: { charsNotAllowed.contains($0) }) {
            found.append(.init("charsNotAllowed", .string(charsNotAllowed), "contains the character \(banned), which is not allowed"))
        }
        if repetition > 0, Self.longestRun(characters) > repetition {
            found.append(.init("Repetition", .int(repetition), "more than \(repetition) identical characters in a row"))
        }
        if userIDCheck, !userID.isEmpty, password.lowercased().containsBytes(of: userID.lowercased()) {
            found.append(.init("UserIDcheck", true, "contains the user id"))
        }
        if seqCheck, Self.hasSequence(characters, length: Self.sequenceLength) {
            found.append(.init("SeqCheck", .int(Self.sequenceLength), "contains a sequence of \(Self.sequenceLength) or more characters"))
        }
        if blackListedCommonPassword, CommonPasswords.contains(password) {
            found.append(.init("BlackListedCommonPassword", true, "is a common password"))
        }
        return found
    }

    /// The JSON text of `RELID_PASSWORD_POLICY`, with the SDK's field names and types.
    public func sdkJSONText() -> String {
        let object: JSON = [
            "minL": .int(minL), "maxL": .int(maxL), "minDg": .int(minDg), "minUc": .int(minUc), "minLc": .int(minLc),
            "minSc": .int(minSc), "charsNotAllowed": .string(charsNotAllowed), "Repetition": .int(repetition),
            "UserIDcheck": .bool(userIDCheck), "SeqCheck": .string(seqCheck ? "true" : "false"),
            "BlackListedCommonPassword": .string(blackListedCommonPassword ? "true" : "false"), "msg": .string(msg),
            "SDKValidation": false,
        ]
        return object.serialized()
    }

    static func longestRun(_ characters: [Character]) -> Int {
        var longest = 0
        var current = 0
        var previous: Character?
        for character in characters {
            current = character == previous ? current + 1 : 1
            longest = max(longest, current)
            previous = character
        }
        return longest
    }

    static func hasSequence(_ characters: [Character], length: Int) -> Bool {
        let values = characters.map { character -> Int? in
            guard character.isASCII, let scalar = character.lowercased().unicodeScalars.first,
                character.isLetter || character.isASCIIDigit
            else { return nil }
            return Int(scalar.value)
        }
        for step in [1, -1] {
            var run = 1
            for index in values.indices.dropFirst() {
                if let a = values[index - 1], let b = values[index], b - a == step,
                    Character(UnicodeScalar(UInt8(a))).isASCIIDigit == Character(UnicodeScalar(UInt8(b))).isASCIIDigit
                {
                    run += 1
                    if run >= length { return true }
                } else {
                    run = 1
                }
            }
        }
        return false
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
