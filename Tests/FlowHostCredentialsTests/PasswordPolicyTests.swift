import FlowHostCredentials
import FlowJSON
import Testing

@Suite struct PasswordPolicyTests {
    let policy = PasswordPolicy()

    private func problems(_ password: String, user: String = "alice") -> [String] {
        policy.violations(of: password, userID: user).map(\.text)
    }

    @Test func aGoodPasswordPasses() {
        #expect(problems("Tr0ub4dor&Zebra") == [])
    }

    @Test(arguments: [
        ("Ab1!xyz", "shorter than 8 characters"),
        ("Ab1!" + String(repeating: "xq", count: 40), "longer than 64 characters"),
        ("Abcxyz!!Q", "fewer than 1 digits"),
        ("ab1!qwxz", "fewer than 1 upper-case letters"),
        ("AB1!QWXZ", "fewer than 1 lower-case letters"),
        ("Ab1qwxzr", "fewer than 1 symbols"),
        ("Abbb1!qwz", "more than 2 identical characters in a row"),
        ("Xalice1!qz", "contains the user id"),
        ("XALICE1!qz", "contains the user id"),
        ("Qz!abcd9x", "contains a sequence of 4 or more characters"),
        ("Qz!9876xw", "contains a sequence of 4 or more characters"),
        ("Password1!", "is a common password"),
        ("Dragon99!", "is a common password"),
    ])
    func eachRuleIsEnforced(password: String, problem: String) {
        #expect(problems(password).contains(problem), "\(password): \(problems(password))")
    }

    @Test func charsNotAllowed() {
        var strict = PasswordPolicy()
        strict.charsNotAllowed = " <>"
        #expect(strict.violations(of: "Tr0ub4 dor&Z", userID: "x").map(\.text).contains("contains the character  , which is not allowed"))
    }

    /// Each violation names the policy's key and its limit, for a client to say in its own words.
    @Test func violationsAreMachineReadable() {
        var strict = PasswordPolicy()
        strict.charsNotAllowed = " <>"
        let found = strict.violations(of: "ab <", userID: "x")
        #expect(found.map(\.rule) == ["minL", "minDg", "minUc", "charsNotAllowed"])
        #expect(found.first?.limit == .int(8))
        #expect(found.last?.limit == .string(" <>"))
        #expect(found.first?.json["rule"]?.stringValue == "minL" && found.first?.json["limit"]?.intValue == 8)
        let userID = PasswordPolicy().violations(of: "Xalice1!qz", userID: "alice")
        #expect(userID.map(\.rule) == ["UserIDcheck"] && userID.first?.json["limit"]?.kind == .bool)
    }

    @Test func rulesCanBeSwitchedOff() {
        var lax = PasswordPolicy()
        lax.userIDCheck = false
        lax.seqCheck = false
        lax.blackListedCommonPassword = false
        lax.repetition = 0
        #expect(lax.violations(of: "Xalice1!abcdeee", userID: "alice").isEmpty)
    }

    @Test func sequencesOfThreeAreAllowed() {
        #expect(problems("Qz!abc9xw2") == [])
    }

    @Test func sdkJSONHasTheSDKsFieldsAndTypes() throws {
        let text = policy.sdkJSONText()
        for field in ["\"minL\":8", "\"maxL\":64", "\"minDg\":1", "\"minUc\":1", "\"minLc\":1", "\"minSc\":1", "\"charsNotAllowed\":\"\"",
                      "\"Repetition\":2", "\"UserIDcheck\":true", "\"SeqCheck\":\"true\"", "\"BlackListedCommonPassword\":\"true\"", "\"msg\":"] {
            #expect(text.contains(field), "\(field) in \(text)")
        }
    }
}

@Suite struct Argon2idTests {
    let cheap = Argon2idHasher(memoryKiB: 1024, iterations: 1, parallelism: 1)

    @Test func hashVerifiesAndRejects() throws {
        let hash = try cheap.hash("correct horse")
        #expect(hash.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(cheap.verify("correct horse", against: hash))
        #expect(!cheap.verify("correct horsf", against: hash))
        #expect(!cheap.verify("", against: hash))
    }

    @Test func eachHashHasItsOwnSalt() throws {
        #expect(try cheap.hash("same") != cheap.hash("same"))
    }

    @Test func oldParametersStillVerify() throws {
        let old = try cheap.hash("pw")
        let stronger = Argon2idHasher(memoryKiB: 2048, iterations: 2, parallelism: 1)
        #expect(stronger.verify("pw", against: old), "params come from the encoded hash")
    }

    /// The hashes the default settings really produce carry OWASP's
    /// minimum parameters (m=19456 KiB, t=2, p=1), read back from the PHC string.
    @Test func defaultHashesWithOWASPParameters() throws {
        let hash = try CredentialSettings().hasher.hash("pw")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    }

    @Test func badParametersAreATypedError() {
        let broken = Argon2idHasher(memoryKiB: 1, iterations: 1, parallelism: 1)
        #expect(throws: Argon2Error.self) { try broken.hash("x") }
    }

    @Test func codesAreLongEnoughAndNormalize() {
        let code = ActivationCodes.newCode()
        #expect(code.count == 10)  // 10 × 5 bits = 50 bits
        #expect(ActivationCodes.normalize("ab-cd ef o1l") == "ABCDEF011")
    }
}
