/// What a child is given at one of its descriptor numbers.
public enum ChildDescriptor: Sendable, Equatable {
    /// /dev/null, for reading and writing.
    case nothing
    /// A pipe the child reads and its owner writes (`ChildProcess.write`).
    case pipeToChild
    /// A pipe the child writes and its owner reads (`ChildProcess.read`).
    case pipeFromChild
    /// A descriptor of this process, copied (this process keeps its own).
    case parent(Int32)
}
