import CJansson
import FlowHostPOSIX

/// The kind of a JSON value, as jansson sees it.
public enum JSONKind: Sendable, Equatable {
    case object, array, string, integer, real, bool, null

    public var name: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }
}

extension JSON {
    public var kind: JSONKind { JSON.kind(of: raw) }

    @inlinable
    public static func kind(of raw: UnsafePointer<json_t>) -> JSONKind {
        switch raw.pointee.type {
        case JSON_OBJECT: .object
        case JSON_ARRAY: .array
        case JSON_STRING: .string
        case JSON_INTEGER: .integer
        case JSON_REAL: .real
        case JSON_TRUE, JSON_FALSE: .bool
        default: .null
        }
    }

    public var isNull: Bool { kind == .null }

    public var isEmptyObject: Bool { raw.pointee.type == JSON_OBJECT && json_object_size(raw) == 0 }

    public var stringValue: String? { JSON.stringValue(of: raw) }

    /// A string's text (nil for another kind), for readers that borrow values.
    public static func stringValue(of raw: UnsafeMutablePointer<json_t>) -> String? {
        guard kind(of: raw) == .string else { return nil }
        let length = json_string_length(raw)
        return json_string_value(raw).withMemoryRebound(to: UInt8.self, capacity: length) {
            String(utf8: UnsafeBufferPointer(start: $0, count: length))
        }
    }

    public var intValue: Int? {
        guard kind == .integer else { return nil }
        return Int(json_integer_value(raw))
    }

    /// Integers and reals alike.
    public var doubleValue: Double? {
        switch kind {
        case .integer, .real: json_number_value(raw)
        default: nil
        }
    }

    public var boolValue: Bool? { JSON.boolValue(of: raw) }

    @inlinable
    public static func boolValue(of raw: UnsafePointer<json_t>) -> Bool? {
        switch raw.pointee.type {
        case JSON_TRUE: true
        case JSON_FALSE: false
        default: nil
        }
    }

    // MARK: Objects

    /// Reads a member (a new owner of a borrowed reference) or sets it (nil removes).
    public subscript(key: String) -> JSON? {
        // withCString, not the implicit conversion: for a short key (most
        // are) that one copies the text to a new heap array on every access.
        get {
            guard kind == .object, let member = key.withCString({ json_object_get(raw, $0) }) else { return nil }
            return JSON(borrowing: member)
        }
        set {
            precondition(kind == .object, "subscript(key:) set on a non-object")
            if let newValue {
                _ = key.withCString { json_object_set_new(raw, $0, newValue.newReference()) }
            } else {
                _ = key.withCString { json_object_del(raw, $0) }
            }
        }
    }

    /// The keys of an object in insertion order (empty for other kinds).
    public var keys: [String] { JSON.keys(of: raw) }

    /// An object's keys in insertion order (empty for other kinds), for readers that borrow values.
    public static func keys(of raw: UnsafeMutablePointer<json_t>) -> [String] {
        guard kind(of: raw) == .object else { return [] }
        var keys: [String] = []
        keys.reserveCapacity(json_object_size(raw))
        var iterator = json_object_iter(raw)
        while let current = iterator {
            keys.append(String(cString: json_object_iter_key(current)))
            iterator = json_object_iter_next(raw, current)
        }
        return keys
    }

    public var count: Int {
        switch kind {
        case .object: json_object_size(raw)
        case .array: json_array_size(raw)
        default: 0
        }
    }

    // MARK: Arrays

    public subscript(index: Int) -> JSON? {
        guard kind == .array, index >= 0, index < json_array_size(raw), let element = json_array_get(raw, index) else {
            return nil
        }
        return JSON(borrowing: element)
    }

    public var elements: [JSON] {
        guard kind == .array else { return [] }
        return (0..<json_array_size(raw)).map { JSON(borrowing: json_array_get(raw, $0)) }
    }

    /// Replaces the element at `index` (within bounds).
    public func replace(at index: Int, with element: JSON) {
        precondition(kind == .array && index >= 0 && index < json_array_size(raw), "replace(at:) out of bounds")
        json_array_set_new(raw, index, element.newReference())
    }

    public func append(_ element: JSON) {
        precondition(kind == .array, "append on a non-array")
        json_array_append_new(raw, element.newReference())
    }

    /// A deep copy: the result shares nothing with `self`.
    public func deepCopy() -> JSON { JSON(taking: json_deep_copy(raw)!) }
}

extension JSON: Equatable {
    public static func == (lhs: JSON, rhs: JSON) -> Bool { json_equal(lhs.raw, rhs.raw) != 0 }
}
