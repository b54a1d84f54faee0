import Foundation

/// The figures of one run: flowhost, the reference, their ratio, the target.
/// Targets are not written in the code: a row names its threshold by id, and
/// the thresholds file (Benchmarks/thresholds.json) says what it must meet.
struct Report {
    enum Target {
        case ratioAtLeast(Double)
        case ratioAtMost(Double)
        case absoluteAtMost(Double)

        /// `{"ratioAtLeast": 0.8}`, `{"ratioAtMost": 1.1}` or `{"atMost": 250}`.
        init?(_ object: [String: Any]) {
            guard object.count == 1, let entry = object.first, let bound = (entry.value as? NSNumber)?.doubleValue else { return nil }
            switch entry.key {
            case "ratioAtLeast": self = .ratioAtLeast(bound)
            case "ratioAtMost": self = .ratioAtMost(bound)
            case "atMost": self = .absoluteAtMost(bound)
            default: return nil
            }
        }

        var text: String {
            switch self {
            case .ratioAtLeast(let value): "ratio ≥ \(value)"
            case .ratioAtMost(let value): "ratio ≤ \(value)"
            case .absoluteAtMost(let value): "≤ \(value)"
            }
        }
    }

    struct Row {
        let name: String
        let flowhost: Double
        let reference: Double?
        let threshold: String?
        let target: Target?
        let note: String?

        var ratio: Double? { reference.flatMap { $0 == 0 ? nil : flowhost / $0 } }

        var met: Bool? {
            guard let target else { return nil }
            switch target {
            case .ratioAtLeast(let value): return (ratio ?? 0) >= value
            case .ratioAtMost(let value): return (ratio ?? .infinity) <= value
            case .absoluteAtMost(let value): return flowhost <= value
            }
        }
    }

    let thresholds: [String: Target]
    var rows: [Row] = []

    /// Reads the thresholds file; a malformed entry stops the run, since a
    /// target silently dropped would read as met.
    init(thresholdsFile path: String) {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            fatalError("cannot read the thresholds file \(path)")
        }
        var thresholds: [String: Target] = [:]
        for (id, value) in object where !id.hasPrefix("$") {
            guard let entry = value as? [String: Any], let target = Target(entry) else {
                fatalError("\(path): \(id) is not one of {\"ratioAtLeast\": N}, {\"ratioAtMost\": N}, {\"atMost\": N}")
            }
            thresholds[id] = target
        }
        self.thresholds = thresholds
    }

    mutating func add(_ name: String, flowhost: Double, reference: Double?, higherIsBetter: Bool, threshold: String?, note: String? = nil) {
        let target = threshold.map { id in
            guard let target = thresholds[id] else { fatalError("the row \"\(name)\" names the threshold \(id), which the thresholds file lacks") }
            return target
        }
        rows.append(Row(name: name, flowhost: flowhost, reference: reference, threshold: threshold, target: target, note: note))
    }

    /// The thresholds this run measured no row for (a section left out, or a
    /// tool or server missing).
    var unmeasuredThresholds: [String] { thresholds.keys.filter { id in !rows.contains { $0.threshold == id } }.sorted() }

    var allTargetsMet: Bool { rows.allSatisfy { $0.met ?? true } }

    static func format(_ value: Double) -> String {
        if abs(value) >= 1000 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    func print() {
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        Swift.print("| " + [pad("measure", 48), pad("flowhost", 10), pad("reference", 10), pad("ratio", 6), pad("target", 12), "met"].joined(separator: " | ") + " |")
        Swift.print("|" + String(repeating: "-", count: 50) + "|" + String(repeating: "-", count: 12) + "|" + String(repeating: "-", count: 12) + "|--------|--------------|-----|")
        for row in rows {
            let cells = [
                pad(row.name, 48), pad(Self.format(row.flowhost), 10), pad(row.reference.map(Self.format) ?? "—", 10),
                pad(row.ratio.map { String(format: "%.2f", $0) } ?? "—", 6), pad(row.target?.text ?? "", 12),
                row.met.map { $0 ? "yes" : "NO" } ?? "",
            ]
            Swift.print("| " + cells.joined(separator: " | ") + " |")
        }
        for row in rows where row.note != nil { Swift.print("- \(row.name): \(row.note!)") }
    }

    func writeJSON(to path: String) throws {
        let rows = self.rows.map { row -> [String: Any] in
            var object: [String: Any] = ["measure": row.name, "flowhost": row.flowhost]
            if let reference = row.reference { object["reference"] = reference }
            if let ratio = row.ratio { object["ratio"] = ratio }
            if let threshold = row.threshold { object["threshold"] = threshold }
            if let target = row.target { object["target"] = target.text }
            if let met = row.met { object["met"] = met }
            if let note = row.note { object["note"] = note }
            return object
        }
        let data = try JSONSerialization.data(withJSONObject: ["rows": rows, "allTargetsMet": allTargetsMet], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
