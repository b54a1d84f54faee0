import Foundation

/// The page's files, read once at start from the resource bundle beside
/// the executable. The page has no build step: what is in `Page/` is what
/// the browser gets. Its script is `secrets.js` (what to mask, generated
/// from Protocol/masked-secrets.json, the host's own list) then `inspector.js`.
struct InspectorPage: Sendable {
    let html: Data
    let script: Data
    let style: Data

    init() throws(InspectorError) {
        func read(_ name: String, _ type: String) throws(InspectorError) -> Data {
            guard let url = Bundle.module.url(forResource: name, withExtension: type, subdirectory: "Page"),
                  let data = try? Data(contentsOf: url)
            else {
                throw InspectorError(kind: .missingPage, description: "the page's \(name).\(type) is missing from \(Bundle.module.bundlePath)")
            }
            return data
        }
        html = try read("index", "html")
        script = try read("secrets", "js") + Data("\n".utf8) + read("inspector", "js")
        style = try read("inspector", "css")
    }
}
