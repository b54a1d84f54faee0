@testable import FlowHostCore
import FlowHostPOSIX
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The loader's listing of a plugin folder: only names that end in the
/// library suffix are candidates, in name order, whatever else the folder
/// holds (the executable's folder is often a build folder).
@Suite struct PluginCandidatesTests {
    @Test func onlyLibrariesAreCandidatesInNameOrder() throws {
        let suffix = PluginLoader.librarySuffix
        let names = ["b" + suffix, "a" + suffix, "notes.txt", "a" + suffix + ".bak", "so", suffix, "z" + suffix.uppercased(), "libFlowPluginX" + suffix]
        let scratch = try TemporaryFolder()
        let folder = scratch.path
        for name in names {
            let file = open(folder + "/" + name, O_CREAT | O_WRONLY | O_EXCL, 0o600)
            try #require(file >= 0)
            close(file)
        }

        let (found, refusals) = PluginLoader.candidates(in: [PluginDirectory(path: folder)])
        #expect(refusals.isEmpty)
        #expect(found.map { String($0.path.dropFirst(folder.count + 1)) } == [suffix, "a" + suffix, "b" + suffix, "libFlowPluginX" + suffix])

        let prefixed = PluginLoader.candidates(in: [PluginDirectory(path: folder, requiredPrefix: "libFlowPlugin")])
        #expect(prefixed.found.map(\.path) == [folder + "/libFlowPluginX" + suffix])
        #expect(prefixed.refusals.isEmpty)
    }
}
