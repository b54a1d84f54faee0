import FlowHostPOSIX

/// `Hex` lives in FlowHostPOSIX, the bottom module, so that every module
/// spells bytes the one way; named here too for the modules that import
/// only this one.
public typealias Hex = FlowHostPOSIX.Hex

/// Random identifiers from the system CSPRNG (`SecureRandom`): device ids,
/// session ids, grants.
public enum RandomHex {
    public static func make(bytes count: Int) -> String { Hex.encode(SecureRandom.bytes(count)) }
}
