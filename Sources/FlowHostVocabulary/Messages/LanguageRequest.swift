import FlowJSON

/// The SDK's RDNALanguageDirection: how the app lays out text. The host
/// echoes it; it changes no message.
public enum LanguageDirection: Int, Sendable {
    case leftToRight = 0  // RDNA_LOCALE_LTR
    case rightToLeft = 1  // RDNA_LOCALE_RTL
}

/// `setSDKLanguage(localeCode, languageDirection)`, checked: a BCP 47-like
/// code ("fr", "fr-CA", "pt_BR") and a direction the SDK knows. Anything
/// else is refused with -32602 naming the field, before a file is looked at.
public struct LanguageRequest: Sendable {
    public let localeCode: String
    public let direction: LanguageDirection
    /// The catalogs to try, most specific first: "fr_CA", then "fr".
    public let candidates: [String]

    public static let maxCodeLength = 35

    public init(localeCode: String, direction: Int) throws(FlowHostError) {
        guard let direction = LanguageDirection(rawValue: direction) else {
            throw FlowHostError.invalidParams(field: "languageDirection", reason: "must be 0 (left to right) or 1 (right to left)")
        }
        let parts = localeCode.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard localeCode.utf8.count <= Self.maxCodeLength, let language = parts.first,
            (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else {
            throw FlowHostError.invalidParams(field: "localeCode", reason: "must be a language code such as en, fr or fr-CA")
        }
        let primary = language.lowercased()
        let rest = parts.dropFirst().map { $0.count == 2 ? $0.uppercased() : $0.lowercased() }
        self.localeCode = localeCode
        self.direction = direction
        self.candidates = rest.isEmpty ? [primary] : [([primary] + rest).joined(separator: "_"), primary]
    }

    /// English is the built-in default: no catalog is read for it.
    public var isEnglish: Bool { candidates.last == "en" }
}
