import CFlowJSON
import CJansson
import FlowHostPOSIX

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A text that jansson refused, with where and why.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int
    public var description: String { "\(message) at line \(line), column \(column)" }
}

extension JSON {
    /// Parses one JSON text with FlowHost's reading rules (any top-level
    /// value, duplicate keys refused).
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        var text = text
        let outcome: Result<JSON, JSONParseError> = text.withUTF8 { bytes in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(bytes)) }
        }
        return try outcome.get()
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSON {
        let empty: StaticString = ""
        let base = bytes.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
        // FlowHost's reader first; a text it does not accept goes to jansson,
        // which gives the reason (or, should the two ever disagree, the value).
        if let value = flowhost_json_parse(base.assumingMemoryBound(to: CChar.self), bytes.count) { return JSON(taking: value) }
        var error = json_error_t()
        guard let value = json_loadb(base.assumingMemoryBound(to: CChar.self), bytes.count, fh_json_load_flags(), &error)
        else {
            throw JSONParseError(
                message: String(cString: fh_json_error_text(&error)), line: Int(error.line), column: Int(error.column))
        }
        return JSON(taking: value)
    }

    /// The compact text of this value, as FlowHost writes it on the wire.
    public func serialized() -> String {
        var bytes: [UInt8] = []
        JSON.serialize(raw, into: &bytes)
        return bytes.isEmpty ? "null" : String(utf8: bytes)
    }

    /// Appends the compact text of this value to `sink`, without a temporary string.
    public func serialize(into sink: inout [UInt8]) {
        JSON.serialize(raw, into: &sink)
    }

    public static func serialize(_ raw: UnsafeMutablePointer<json_t>, into sink: inout [UInt8]) {
        // FlowHost's writer first, into a buffer on the stack and then one
        // append, or straight into the sink when it is longer; what it
        // declines (a real, say) jansson writes, with the same flags.
        let length = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer -> Int in
            let length = flowhost_json_dumpb(raw, buffer.baseAddress!, buffer.count)
            guard length != FLOWHOST_JSON_DUMP_DECLINED else { return -1 }
            if length <= buffer.count { sink.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length)) }
            return length
        }
        if length > 4096 {
            let start = sink.count
            sink.append(contentsOf: repeatElement(0, count: length))
            sink.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress!.advanced(by: start).withMemoryRebound(to: CChar.self, capacity: length) {
                    _ = flowhost_json_dumpb(raw, $0, length)
                }
            }
        }
        if length >= 0 { return }
        let flags = fh_json_dump_flags() | JSON_ENCODE_ANY_FLAG
        guard let text = json_dumps(raw, flags) else { return }
        defer { free(text) }
        sink.append(contentsOf: UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }

    /// jansson's compact text of this value, with the flags FlowHost writes
    /// with: what FlowHost's own writer is checked against.
    public func serializedByJansson() -> String {
        guard let text = json_dumps(raw, fh_json_dump_flags() | JSON_ENCODE_ANY_FLAG) else { return "null" }
        defer { free(text) }
        return String(cString: text)
    }
}

extension JSON: CustomStringConvertible {
    public var description: String { serialized() }
}

/// jansson's JSON_ENCODE_ANY, which Swift imports as an Int32 macro.
@usableFromInline let JSON_ENCODE_ANY_FLAG: Int = Int(JSON_ENCODE_ANY)
