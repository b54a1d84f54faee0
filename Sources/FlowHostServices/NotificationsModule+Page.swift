import FlowHostCore
import FlowHostNotifications
import FlowHostStore
import FlowHostVocabulary

/// The paging and date parameters both listings share (declared in the
/// contract with each listing), checked in one place
/// so a flow written in C gets the same answers as one written in Swift.
extension NotificationsModule {
    struct Page {
        var startIndex: Int
        var recordCount: Int
        var created: CreationWindow
    }

    static func page(_ p: ServiceParams) throws(FlowHostError) -> Page {
        let startIndex = try p.optionalInt("startIndex") ?? 1
        guard startIndex >= 1 else { throw FlowHostError.invalidParams(field: "startIndex", reason: "must be at least 1") }
        let recordCount = try p.optionalInt("recordCount") ?? 0
        guard recordCount >= 0 else { throw FlowHostError.invalidParams(field: "recordCount", reason: "must be 0 (all) or more") }
        let startDate = try p.optionalString("startDate"), endDate = try p.optionalString("endDate")
        do throws(NotificationError) {
            let created = try CreationWindowParser.window(startDate: startDate, endDate: endDate)
            return Page(startIndex: startIndex, recordCount: recordCount, created: created)
        } catch {
            throw FlowHostError.invalidParams(field: "startDate/endDate", reason: error.description)
        }
    }

    static func historyFilter(_ p: ServiceParams) throws(FlowHostError) -> HistoryFilter {
        let status = try p.optionalString("notificationStatus"), action = try p.optionalString("actionPerformed")
        let keyword = try p.optionalString("keywordSearch"), device = try p.optionalString("deviceID")
        do throws(NotificationError) {
            return try HistoryFilter(status: status, action: action, keyword: keyword, answeredBy: device)
        } catch {
            throw FlowHostError.invalidParams(field: "notificationStatus", reason: error.description)
        }
    }
}
