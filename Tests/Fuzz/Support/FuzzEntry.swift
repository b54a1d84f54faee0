/// A fuzz target's whole `main`: with libFuzzer (-DFUZZING) it fuzzes;
/// without, it replays the files named (or the files in the folders named),
/// so the corpus and every crash found are regression tests.
public enum FuzzEntry {
    #if FUZZING
    /// The target libFuzzer's C callback calls: set once, before fuzzing
    /// starts, on the one thread that fuzzes.
    nonisolated(unsafe) private static var target: ((UnsafeRawBufferPointer) -> Void)?
    #endif

    public static func run(_ target: @escaping (UnsafeRawBufferPointer) -> Void) {
        #if FUZZING
        Self.target = target
        FuzzDriver.run { data, size in
            FuzzEntry.target?(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
        #else
        FuzzReplay.run(target)
        #endif
    }
}
