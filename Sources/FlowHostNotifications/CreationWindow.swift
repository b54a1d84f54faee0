import FlowHostPOSIX

/// Creation times a listing keeps: `from` inclusive, `until` exclusive (seconds).
public struct CreationWindow: Sendable, Equatable {
    public var from: Int64
    public var until: Int64
    public init(from: Int64, until: Int64) {
        self.from = from
        self.until = until
    }
    public static let all = CreationWindow(from: .min, until: .max)
}

/// `startDate` / `endDate` of `getNotifications` and `getNotificationHistory`
/// as a window on creation times. The SDK leaves their format to the server;
/// FlowHost accepts a UTC day (`2026-11-22`, the whole day), an RFC 3339 UTC
/// instant (`2026-11-22T10:15:00Z`) or the SDK's own `create_ts` text
/// (`2026-11-22T10:15:00UTC`), so a client can page from a date it was shown.
/// Both ends are inclusive; an empty string means no bound. Anything else is
/// refused rather than ignored: a filter silently dropped shows the wrong list.
public enum CreationWindowParser {
    public static func window(startDate: String?, endDate: String?) throws(NotificationError) -> CreationWindow {
        var window = CreationWindow.all
        if let startDate, !startDate.isEmpty {
            window.from = try instant(startDate, field: "startDate").first
        }
        if let endDate, !endDate.isEmpty {
            window.until = try instant(endDate, field: "endDate").last + 1
        }
        guard window.from < window.until else { throw NotificationError("startDate must not be after endDate") }
        return window
    }

    /// The first and last second the text names (a day names 86 400).
    static func instant(_ text: String, field: String) throws(NotificationError) -> (first: Int64, last: Int64) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int64(bytes[index] - 0x30)
            }
            return value
        }
        let invalid = NotificationError("\(field) must be a UTC date (YYYY-MM-DD) or instant (YYYY-MM-DDTHH:MM:SSZ)")
        guard bytes.count >= 10, bytes[4] == 0x2D, bytes[7] == 0x2D,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { throw invalid }
        let midnight = daysFromCivil(year: year, month: month, day: day) * 86_400
        if bytes.count == 10 { return (midnight, midnight + 86_399) }
        let suffix = String(utf8: bytes[19...])
        guard bytes.count >= 20, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            hour < 24, minute < 60, second < 60, suffix == "Z" || suffix == "UTC"
        else { throw invalid }
        let at = midnight + hour * 3600 + minute * 60 + second
        return (at, at)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
