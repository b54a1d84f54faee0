import FlowHostVocabulary

/// A session's id: time-ordered (`TimeOrderedID`), so a new session lands at
/// the end of the session table's primary-key index however long the history.
public enum SessionIdentifier {
    public static func make(openedAt seconds: Int64) -> String { TimeOrderedID.make(at: seconds) }
}
