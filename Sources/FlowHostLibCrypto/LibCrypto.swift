import CLibCrypto

/// OpenSSL's libcrypto, loaded with dlopen the first time a P-256 key is
/// met (Sources/CLibCrypto): a host whose devices hold Ed25519 keys never
/// maps it. The host's devices domain and the Swift client (on Linux, for
/// a software P-256 key) both reach it through here. Every call goes through one of these helpers, which turn
/// libcrypto's failures (a null object, a status other than 1) into a
/// `LibCryptoError` carrying OpenSSL's own words and leave its error
/// queue empty.
public enum LibCrypto {
    public typealias API = flowhost_crypto_api

    /// The table, loading libcrypto on first use.
    public static func api() throws(LibCryptoError) -> UnsafePointer<API> {
        var problem: UnsafePointer<CChar>?
        guard let api = flowhost_crypto_load(&problem) else {
            throw LibCryptoError(call: "dlopen", detail: problem.map { String(cString: $0) } ?? "cannot load libcrypto.so.3")
        }
        return api
    }

    /// A call that makes or finds an object: nil is a failure.
    public static func make(_ call: StaticString, _ body: (API) -> OpaquePointer?) throws(LibCryptoError) -> OpaquePointer {
        let api = try api()
        guard let made = body(api.pointee) else { throw failure(call, api) }
        return made
    }

    /// A call that answers 1 on success.
    public static func check(_ call: StaticString, _ body: (API) -> Int32) throws(LibCryptoError) {
        let api = try api()
        guard body(api.pointee) == 1 else { throw failure(call, api) }
    }

    /// A call that answers a length, negative on failure (`i2d_*`).
    public static func length(_ call: StaticString, _ body: (API) -> Int32) throws(LibCryptoError) -> Int {
        let api = try api()
        let count = body(api.pointee)
        guard count >= 0 else { throw failure(call, api) }
        return Int(count)
    }

    /// A verification: 1 holds, 0 does not, anything else is a failure.
    public static func verdict(_ call: StaticString, _ body: (API) -> Int32) throws(LibCryptoError) -> Bool {
        let api = try api()
        switch body(api.pointee) {
        case 1: return true
        case 0:
            api.pointee.ERR_clear_error()  // a wrong signature may leave a reason queued
            return false
        default: throw failure(call, api)
        }
    }

    /// A call that cannot fail (a free, a getter), on an object made through
    /// `make`: the table was loaded to make it, so it is there.
    public static func run<T>(_ body: (API) -> T) -> T {
        guard let api = flowhost_crypto_load(nil) else { preconditionFailure("libcrypto used before it was loaded") }
        return body(api.pointee)
    }

    /// The failure of `call`, with OpenSSL's queued reasons (the queue emptied).
    private static func failure(_ call: StaticString, _ api: UnsafePointer<API>) -> LibCryptoError {
        var reasons: [String] = []
        while case let code = api.pointee.ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            api.pointee.ERR_error_string_n(code, &text, text.count)
            // ERR_error_string_n always ends the text with a NUL within the buffer.
            reasons.append(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return LibCryptoError(call: "\(call)", detail: reasons.isEmpty ? "failed" : reasons.joined(separator: "; "))
    }
}

/// A libcrypto call that failed: which, and OpenSSL's reasons (never a key).
public struct LibCryptoError: Error, CustomStringConvertible {
    public let call: String
    public let detail: String
    public var description: String { "\(call): \(detail)" }

    public init(call: String, detail: String) {
        self.call = call
        self.detail = detail
    }
}
