/// The secret in the page's address. Anyone who can reach 127.0.0.1 (every
/// local user, a web page through DNS rebinding) must not drive a host that
/// holds the operator's store, so nothing is served without it.
struct AccessToken: Sendable {
    let value: String

    /// 32 bytes from the system's generator (getrandom), in hex.
    init() {
        var generator = SystemRandomNumberGenerator()
        value = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }

    /// Compares in time that does not depend on where the strings differ.
    func admits(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let given = Array(candidate.utf8), expected = Array(value.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= given[index] ^ expected[index] }
        return difference == 0
    }
}
