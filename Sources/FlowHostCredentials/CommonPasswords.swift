/// A short list of the passwords most often seen in breaches. A password is
/// "common" when, lower-cased and with trailing digits and symbols removed,
/// it is one of these (so "Password1!" is refused with "password").
enum CommonPasswords {
    static let list: Set<String> = [
        "password", "passw0rd", "p@ssword", "p@ssw0rd", "qwerty", "qwertyuiop", "asdfgh", "asdfghjkl", "zxcvbnm",
        "letmein", "welcome", "admin", "administrator", "login", "master", "dragon", "monkey", "football", "baseball",
        "iloveyou", "princess", "sunshine", "shadow", "superman", "batman", "trustno", "starwars", "whatever",
        "freedom", "hello", "charlie", "michael", "jennifer", "jordan", "hunter", "ranger", "buster", "soccer",
        "hockey", "killer", "george", "summer", "winter", "spring", "autumn", "secret", "changeme", "default",
        "abc", "abcd", "abcdef", "qazwsx", "1q2w3e", "1qaz2wsx", "zaq12wsx", "access", "flower", "cheese",
        "computer", "internet", "samsung", "google", "pokemon", "liverpool", "chelsea", "arsenal", "matrix",
    ]

    static let numeric: Set<String> = [
        "123456", "1234567", "12345678", "123456789", "1234567890", "111111", "000000", "123123", "654321",
        "666666", "121212", "112233", "987654321", "11111111", "88888888", "696969", "159753", "147258369",
    ]

    static func contains(_ password: String) -> Bool {
        let lowered = password.lowercased()
        if numeric.contains(lowered) { return true }
        var core = lowered
        while let last = core.last, !last.isLetter { core.removeLast() }
        return !core.isEmpty && list.contains(core)
    }
}
