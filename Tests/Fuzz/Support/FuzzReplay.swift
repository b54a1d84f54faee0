#if canImport(Glibc)
import Glibc
#endif

/// Runs a fuzz target over files, as libFuzzer would over its corpus.
public enum FuzzReplay {
    public static func run(_ target: (UnsafeRawBufferPointer) -> Void) {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            for file in files(at: path) {
                guard let bytes = read(file) else {
                    print("cannot read \(file)")
                    exit(2)
                }
                bytes.withUnsafeBytes { target($0) }
                count += 1
            }
        }
        print("replayed \(count) inputs")
    }

    static func files(at path: String) -> [String] {
        guard let folder = opendir(path) else { return [path] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = fread(&buffer, 1, buffer.count, file)
            if got == 0 { break }
            bytes.append(contentsOf: buffer[0..<got])
        }
        return bytes
    }
}
