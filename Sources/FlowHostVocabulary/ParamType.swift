/// The type a declared parameter must have: the one list, used by the host
/// (which checks calls) and the Swift SDK (which declares them), and spelled
/// the same in every manifest.
public enum ParamType: String, Sendable, CaseIterable {
    case string, integer, number, boolean, object, array, any
}

/// A rule a string param must meet beyond its type, checked by the host
/// before any flow runs, so every flow (Swift or C) gets it for free.
public enum ParamFormat: String, Sendable, CaseIterable {
    /// A user id: the rule in `UserIdentifier` (scalars, bytes, no control characters).
    case userID
    /// A device's name: the rule in `DeviceName` (one short line).
    case deviceName
}
