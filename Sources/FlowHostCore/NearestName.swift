/// "Did you mean …?": the name a slip was probably meant to be, for every
/// refusal that names an unknown key or name (manifest keys, config keys,
/// services a flow uses).
enum NearestName {
    /// The known name closest to `key` by edit distance, if it is close
    /// enough to be a slip (at most a third of its length, at least 1).
    ///
    /// Names are compared as Unicode scalars (the names FlowHost suggests
    /// are ASCII), and a name whose length alone puts it past the limit is
    /// not compared: a host whose flows use services nothing offers asks
    /// this once per such service, of every name offered (it took 2.8
    /// million instructions of a start with one flow, in grapheme clusters).
    static func to(_ key: String, in known: Set<String>) -> String? {
        let wanted = Array(key.lowercased().unicodeScalars)
        let limit = max(1, wanted.count / 3)
        var best: (name: String, distance: Int)?
        for name in known {
            let candidate = Array(name.lowercased().unicodeScalars)
            guard abs(candidate.count - wanted.count) <= limit else { continue }
            let found = distance(wanted, candidate)
            guard found <= limit else { continue }
            if let current = best, (current.distance, current.name) <= (found, name) { continue }
            best = (name, found)
        }
        return best?.name
    }

    /// Levenshtein distance, in Unicode scalars.
    static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
