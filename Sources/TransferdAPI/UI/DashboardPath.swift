/// Where a dashboard form sends the browser back to.
enum DashboardPath {
    /// `back` when it is one of the dashboard's own pages (never another site: no open redirect), else `otherwise`.
    static func back(_ back: String?, otherwise: String) -> String {
        guard let back, back.hasPrefix("/ui/"), !back.contains("//"), !back.contains("\\"),
            back.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return otherwise }
        return back
    }
}
