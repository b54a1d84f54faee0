import Foundation

/// How much of the start-up layout list (.build/release-startup-order.txt, made by scripts/release/build.sh: the
/// functions and .bss variables laid out first at link) the built images
/// still define. Code changes rename some; the list then places fewer.
enum StartupOrder {
    /// Percent of the listed names defined in flowhost or a flow library in
    /// `images`; 0 when the list or the symbol tables cannot be read.
    static func coverage(list: String, images folder: String) -> Double {
        guard let text = try? String(contentsOfFile: list, encoding: .utf8) else { return 0 }
        let listed = Set(text.split(separator: "\n").map(String.init))
        guard !listed.isEmpty else { return 0 }
        let libraries = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("libFlowPlugin") && $0.hasSuffix(".so") }
        var defined = Set<String>()
        for image in ["flowhost"] + libraries {
            defined.formUnion(symbols(of: folder + "/" + image))
        }
        return Double(listed.intersection(defined).count) * 100 / Double(listed.count)
    }

    /// The names `nm --defined-only` prints for an image.
    private static func symbols(of image: String) -> [String] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        nm.arguments = ["nm", "--defined-only", image]
        let pipe = Pipe()
        nm.standardOutput = pipe
        nm.standardError = FileHandle.nullDevice
        guard (try? nm.run()) != nil else { return [] }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        nm.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: " ", maxSplits: 2).last.map(String.init)
        }
    }
}
