#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `body` with copies of `texts` as an array of C strings (a nil text is a
/// null pointer; no array is a null array), followed by a null pointer when
/// `terminated`: an argv or an environment ends with one, libpq's
/// parameter values do not. The copies live only as long as the call.
public func withUnsafeCStrings<Result>(
    _ texts: [String?]?, terminated: Bool, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Result
) -> Result {
    guard let texts else { return body(nil) }
    let copies: [UnsafeMutablePointer<CChar>?] = texts.map { $0.map { strdup($0) } } + (terminated ? [nil] : [])
    defer { for copy in copies { free(copy) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress) }
}
