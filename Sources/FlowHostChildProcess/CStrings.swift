#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `body` with `strings` as a NULL-terminated C array (nil for nil), which
/// lives only as long as the call.
func withUnsafeCStrings<Result>(_ strings: [String]?, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Result) -> Result {
    guard let strings else { return body(nil) }
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { for copy in copies { free(copy) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress) }
}
