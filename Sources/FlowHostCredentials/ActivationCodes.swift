import FlowHostVocabulary
/// Activation codes and verification keys: Crockford base32, so codes are
/// easy to read aloud and type (no I, L, O, U).
public enum ActivationCodes {
    static let alphabet: [Character] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// 10 symbols of 5 bits: 50 bits of entropy.
    public static let codeLength = 10
    public static let verificationKeyLength = 6

    public static func newCode() -> String { SecureRandom.string(length: codeLength, alphabet: alphabet) }
    public static func newVerificationKey() -> String { SecureRandom.string(length: verificationKeyLength, alphabet: alphabet) }

    /// What the user typed, as the code was issued: upper case, no spaces or
    /// dashes, and the look-alikes read the way Crockford's scheme reads them.
    public static func normalize(_ input: String) -> String {
        String(
            input.uppercased().compactMap { character -> Character? in
                switch character {
                case " ", "-", "\t": nil
                case "I", "L": "1"
                case "O": "0"
                default: character
                }
            })
    }
}
