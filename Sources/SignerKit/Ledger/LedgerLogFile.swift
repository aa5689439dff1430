import EthereumPrimitives

/// The lines of an audit log file that is a ledger, in order: records (``LedgerEntry``), checkpoint lines
/// `{"event":"checkpoint","checkpoint":"<signed note text>"}`, and lines a crash cut short. A cut line is
/// recognised only when the line after it is the `{"event":"torn-line",…}` record the log wrote when it
/// reopened (a ledger record itself, so one cannot be added unseen); any other line that is not a record is
/// read as one, so the verifier names it.
public enum LedgerLogFile {
    /// One line of the file.
    public enum Line: Sendable, Equatable {
        /// A record: its text (the leaf's bytes).
        case record(String)
        /// A checkpoint: the signed note's text.
        case checkpoint(String)
        /// A line cut short by a crash, followed by the torn-line record.
        case torn
    }

    /// A line and where it starts in the file (bytes) and how long it is (without its newline).
    public struct Located: Sendable, Equatable {
        /// The line.
        public let line: Line
        /// Its first byte's offset in the file.
        public let offset: Int
        /// Its length in bytes, without the newline.
        public let length: Int
    }

    /// The complete lines of `bytes` (a file's contents), classified; a last line without its newline is left
    /// out (the log repairs it when it opens). Blank lines are records (and fail verification).
    public static func lines(_ bytes: [UInt8]) -> [Located] {
        var raw: [(text: String, offset: Int, length: Int)] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            raw.append((String(decoding: bytes[start..<index], as: UTF8.self), start, index - start))
            start = index + 1
        }
        var located: [Located] = []
        located.reserveCapacity(raw.count)
        for (position, item) in raw.enumerated() {
            let line: Line
            if let note = checkpointNote(item.text) {
                line = .checkpoint(note)
            } else if position + 1 < raw.count, isTornMarker(raw[position + 1].text) {
                // The log writes a torn-line record only after a line it found cut short (even one that lacks
                // only its newline): that line was never a leaf.
                line = .torn
            } else {
                line = .record(item.text)
            }
            located.append(Located(line: line, offset: item.offset, length: item.length))
        }
        return located
    }

    /// The line that stores a signed checkpoint.
    public static func checkpointLine(_ note: String) -> String {
        JSONValue.object(JSONObject(["event": .string("checkpoint"), "checkpoint": .string(note)])).serialized
    }

    /// The note of a checkpoint line (an object of exactly `event` = `checkpoint` and `checkpoint`).
    static func checkpointNote(_ text: String) -> String? {
        guard text.hasPrefix(#"{"event":"checkpoint""#),
            case .object(let object)? = try? JSONValue(parsing: text), object.members.count == 2,
            object["event"]?.stringValue == "checkpoint"
        else { return nil }
        return object["checkpoint"]?.stringValue
    }

    /// Whether `text` is a record the log writes after a line cut short.
    static func isTornMarker(_ text: String) -> Bool {
        // Most lines are records: parse only those that can be the marker.
        guard text.contains(#""event":"torn-line""#), case .object(let object)? = try? JSONValue(parsing: text)
        else { return false }
        return object["event"]?.stringValue == "torn-line"
    }

}
