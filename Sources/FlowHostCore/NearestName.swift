/// "Did you mean …?": the name a slip was probably meant to be, for every
/// refusal that names an unknown key or name (manifest keys, config keys,
/// services a flow uses).
enum NearestName {
    /// The known name closest to `key` by edit distance, if it is close
    /// enough to be a slip (at most a third of its length, at least 1).
    static func to(_ key: String, in known: Set<String>) -> String? {
        let limit = max(1, key.count / 3)
        let scored = known.map { (name: $0, distance: distance(key.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { ($0.distance, $0.name) < ($1.distance, $1.name) }), best.distance <= limit else { return nil }
        return best.name
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
