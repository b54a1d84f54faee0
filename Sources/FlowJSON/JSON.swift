import CJansson

/// The one Swift owner of one jansson reference.
///
/// Every `json_t *` that Swift code holds lives inside a `JSON`, which drops
/// its reference in `deinit`. The raw pointer is only handed out inside
/// `withUnsafeRaw` and the `taking`/`borrowing` conversions at the C boundary.
///
/// Not `Sendable`: jansson values are mutable and unsynchronised. FlowHost
/// touches them on its event-loop thread only.
public final class JSON {
    @usableFromInline let raw: UnsafeMutablePointer<json_t>

    /// Takes over a new reference (the caller's reference moves into this owner).
    public init(taking raw: UnsafeMutablePointer<json_t>) {
        self.raw = raw
    }

    /// Adds a reference to a borrowed value and owns that.
    public init(borrowing raw: UnsafeMutablePointer<json_t>) {
        self.raw = json_incref(raw)!
    }

    deinit {
        json_decref(raw)
    }

    /// Gives `body` the borrowed pointer. It must not outlive the call.
    @inlinable
    public func withUnsafeRaw<R>(_ body: (UnsafeMutablePointer<json_t>) throws -> R) rethrows -> R {
        try body(raw)
    }

    /// A new reference for a C callee that steals one.
    public func newReference() -> UnsafeMutablePointer<json_t> {
        json_incref(raw)!
    }
}

// MARK: - Constructors

extension JSON {
    public static var null: JSON { JSON(taking: json_null()) }
    public static var `true`: JSON { JSON(taking: json_true()) }
    public static var `false`: JSON { JSON(taking: json_false()) }

    public static func bool(_ value: Bool) -> JSON { JSON(taking: json_boolean_value(value)) }
    public static func int(_ value: Int) -> JSON { JSON(taking: json_integer(json_int_t(value))!) }
    public static func double(_ value: Double) -> JSON {
        // json_real refuses NaN and infinities; JSON has no spelling for them.
        guard let raw = json_real(value) else { return .null }
        return JSON(taking: raw)
    }

    public static func string(_ value: String) -> JSON {
        var value = value
        // Swift strings are valid UTF-8, so jansson's check is skipped; the
        // length is passed so an embedded NUL is kept, not truncated at.
        return value.withUTF8 { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return JSON(taking: json_string("")!) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                JSON(taking: json_stringn_nocheck($0, bytes.count)!)
            }
        }
    }

    public static func object() -> JSON { JSON(taking: json_object()!) }
    public static func array() -> JSON { JSON(taking: json_array()!) }

    public static func object(_ pairs: KeyValuePairs<String, JSON>) -> JSON {
        let object = JSON.object()
        for (key, value) in pairs { object[key] = value }
        return object
    }

    public static func array(_ elements: [JSON]) -> JSON {
        let array = JSON.array()
        for element in elements { array.append(element) }
        return array
    }

    /// Builds a null for `nil`, otherwise the mapped value.
    public static func optional<T>(_ value: T?, _ transform: (T) -> JSON) -> JSON {
        value.map(transform) ?? .null
    }
}

// Deliberately not ExpressibleByNilLiteral: `nil` must always mean Optional.none,
// never a JSON null hiding inside `.some`. Write `.null` for JSON null.
extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public convenience init(stringLiteral value: String) { self.init(taking: JSON.string(value).newReference()) }
    public convenience init(integerLiteral value: Int) { self.init(taking: json_integer(json_int_t(value))!) }
    public convenience init(floatLiteral value: Double) { self.init(taking: json_real(value)!) }
    public convenience init(booleanLiteral value: Bool) { self.init(taking: json_boolean_value(value)) }
    public convenience init(arrayLiteral elements: JSON...) {
        self.init(taking: json_array()!)
        for element in elements { append(element) }
    }
    public convenience init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(taking: json_object()!)
        for (key, value) in elements { self[key] = value }
    }
}

@inline(__always)
func json_boolean_value(_ value: Bool) -> UnsafeMutablePointer<json_t> {
    value ? json_true() : json_false()
}
