#if !canImport(CryptoKit) && canImport(CLibCrypto)
import CLibCrypto

/// The system's libcrypto for software keys on Linux (no CryptoKit there),
/// loaded with dlopen on first use through the host's own loader
/// (Sources/CLibCrypto): a client that makes no software key never maps
/// it. Every call goes through `LibCryptoHandle.call` or `check`, which
/// turn libcrypto's failures into a `LibCryptoFailure` with OpenSSL's
/// reasons and leave its error queue empty.
struct LibCryptoFailure: Error, CustomStringConvertible {
    let call: String
    let detail: String
    var description: String { "\(call): \(detail)" }
}

/// One libcrypto object (a key, a context, a signature) and its one Swift
/// owner, which frees it when it goes.
final class LibCryptoHandle {
    enum Kind { case key, keyContext, digestContext, signature }
    typealias API = flowhost_crypto_api

    let kind: Kind
    let pointer: OpaquePointer

    /// Owns what `make` returns; nil from it is a failure.
    init(_ kind: Kind, _ call: StaticString, _ make: (API) -> OpaquePointer?) throws {
        let api = try Self.api()
        guard let made = make(api.pointee) else { throw Self.failure(call, api) }
        self.kind = kind
        pointer = made
    }

    deinit {
        let api = Self.loaded
        switch kind {
        case .key: api.EVP_PKEY_free(pointer)
        case .keyContext: api.EVP_PKEY_CTX_free(pointer)
        case .digestContext: api.EVP_MD_CTX_free(pointer)
        case .signature: api.ECDSA_SIG_free(pointer)
        }
    }

    /// A call that answers 1 on success.
    static func check(_ call: StaticString, _ body: (API) -> Int32) throws {
        let api = try api()
        guard body(api.pointee) == 1 else { throw failure(call, api) }
    }

    /// A call that answers a length, negative on failure (`i2d_*`, `BN_bn2binpad`).
    static func length(_ call: StaticString, _ body: (API) -> Int32) throws -> Int {
        let api = try api()
        let count = body(api.pointee)
        guard count >= 0 else { throw failure(call, api) }
        return Int(count)
    }

    /// A call that cannot fail (a getter), once an object was made.
    static func run<T>(_ body: (API) -> T) -> T { body(loaded) }

    private static func api() throws -> UnsafePointer<API> {
        var problem: UnsafePointer<CChar>?
        guard let api = flowhost_crypto_load(&problem) else {
            throw LibCryptoFailure(call: "dlopen", detail: problem.map { String(cString: $0) } ?? "cannot load libcrypto.so.3")
        }
        return api
    }

    /// The table, for an object that exists: it was loaded to make it.
    private static var loaded: API {
        guard let api = flowhost_crypto_load(nil) else { preconditionFailure("libcrypto used before it was loaded") }
        return api.pointee
    }

    private static func failure(_ call: StaticString, _ api: UnsafePointer<API>) -> LibCryptoFailure {
        var reasons: [String] = []
        while case let code = api.pointee.ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            api.pointee.ERR_error_string_n(code, &text, text.count)
            // ERR_error_string_n always ends the text with a NUL within the buffer.
            reasons.append(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return LibCryptoFailure(call: "\(call)", detail: reasons.isEmpty ? "failed" : reasons.joined(separator: "; "))
    }
}
#endif
