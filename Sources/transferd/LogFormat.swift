/// How log lines are written: `text` for people, `json` (one object a line) for log collectors.
enum LogFormat: String, Sendable {
    case text
    case json
}
