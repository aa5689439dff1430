import Foundation

/// A measured case together with its derived ratios; one table row and one JSON entry.
struct BenchmarkResult {
    /// The case's name.
    let name: String
    /// The case's group.
    let group: String
    /// Timing.
    let measurement: BenchmarkMeasurement
    /// The declared baseline, if any.
    let baseline: String?
    /// The declared multiplier (`unitsPerIteration`).
    let multiplier: Double
    /// `median / (multiplier × median(baseline))`, if the baseline was measured.
    let ratio: Double?
    /// `median / median(reference)` for Keccak-based cases (the reference and the cases compared against
    /// it), if the reference case was measured; `nil` for every other case.
    let referenceEquivalents: Double?
}

// MARK: - Number formatting

enum TableFormat {
    /// "231.4 ns", "12.35 µs", "1.207 ms", "2.50 s".
    static func duration(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: return String(format: "%.1f ns", nanoseconds)
        case ..<1_000_000: return String(format: "%.2f µs", nanoseconds / 1_000)
        case ..<1_000_000_000: return String(format: "%.3f ms", nanoseconds / 1_000_000)
        default: return String(format: "%.2f s", nanoseconds / 1_000_000_000)
        }
    }

    /// "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// "17" for integral multipliers, "2.5" otherwise.
    static func multiplier(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// "1.62×".
    static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }

    /// The ratio cell: "1.62× vs 17 × keccak-f1600 (C reference -O3)".
    static func ratioCell(ratio: Double?, baseline: String?, multiplier: Double) -> String {
        guard let baseline else { return "—" }
        let against = multiplier == 1 ? baseline : "\(Self.multiplier(multiplier)) × \(baseline)"
        guard let ratio else { return "n/a (\(against) not measured)" }
        return "\(Self.ratio(ratio)) vs \(against)"
    }

    static func padRight(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}

// MARK: - Table

/// Prints the result table one row at a time, as cases finish.
struct TablePrinter {
    private let nameWidth: Int
    private let ratioWidth: Int
    private let referenceName: String?
    private static let timeWidth = 11
    private static let iterationsWidth = 13
    private static let samplesWidth = 7
    private static let equivalentsWidth = 8
    /// The ratio column's title: a ratio of times, so a newcomer reads 0.5× as "twice as fast".
    static let ratioHeader = "time ratio (lower is faster)"

    /// Sizes the columns for the cases that will be printed.
    init(cases: [Benchmark], referenceName: String?) {
        self.referenceName = referenceName
        nameWidth = max(4, cases.map(\.name.count).max() ?? 0)
        // Widest ratio cell, assuming ratios below 1000×.
        ratioWidth = max(
            Self.ratioHeader.count,
            cases.map {
                TableFormat.ratioCell(ratio: 999.99, baseline: $0.baseline, multiplier: $0.unitsPerIteration).count
            }
            .max() ?? 0)
    }

    /// The header line and a rule under it.
    func header() -> String {
        let columns = [
            TableFormat.padRight("case", nameWidth),
            TableFormat.padLeft("median", Self.timeWidth),
            TableFormat.padLeft("min", Self.timeWidth),
            TableFormat.padLeft("iterations", Self.iterationsWidth),
            TableFormat.padLeft("samples", Self.samplesWidth),
            TableFormat.padRight(Self.ratioHeader, ratioWidth),
            TableFormat.padLeft("perm-eq", Self.equivalentsWidth),
        ]
        let line = columns.joined(separator: "  ")
        return line + "\n" + String(repeating: "-", count: line.count)
    }

    /// One row.
    func row(_ result: BenchmarkResult) -> String {
        let ratio =
            result.name == referenceName && result.baseline == nil
            ? "(reference)"
            : TableFormat.ratioCell(ratio: result.ratio, baseline: result.baseline, multiplier: result.multiplier)
        let equivalents = result.referenceEquivalents.map { String(format: "%.2f", $0) } ?? "—"
        let columns = [
            TableFormat.padRight(result.name, nameWidth),
            TableFormat.padLeft(TableFormat.duration(result.measurement.medianNanoseconds), Self.timeWidth),
            TableFormat.padLeft(TableFormat.duration(result.measurement.minimumNanoseconds), Self.timeWidth),
            TableFormat.padLeft(TableFormat.grouped(result.measurement.iterations), Self.iterationsWidth),
            TableFormat.padLeft(String(result.measurement.samples), Self.samplesWidth),
            TableFormat.padRight(ratio, ratioWidth),
            TableFormat.padLeft(equivalents, Self.equivalentsWidth),
        ]
        return columns.joined(separator: "  ")
    }
}

// MARK: - JSON

/// A minimal JSON value with deterministic, key-ordered output (numbers print in Swift's shortest
/// round-tripping form, non-finite numbers as null).
enum ReportJSON {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int)
    case string(String)
    case array([ReportJSON])
    case object([(String, ReportJSON)])

    /// Pretty-printed with two-space indentation.
    func rendered(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let innerPad = String(repeating: "  ", count: indent + 1)
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return value.isFinite ? String(value) : "null"
        case .integer(let value): return String(value)
        case .string(let value): return Self.quoted(value)
        case .array(let values):
            if values.isEmpty { return "[]" }
            let items = values.map { innerPad + $0.rendered(indent: indent + 1) }
            return "[\n" + items.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let items = members.map { innerPad + Self.quoted($0.0) + ": " + $0.1.rendered(indent: indent + 1) }
            return "{\n" + items.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Facts about the machine and run, recorded next to the results.
enum MachineInfo {
    /// `{"cores", "date", "os", "arch", "cpu", "build"}`.
    static func json(quick: Bool, filters: [String]) -> ReportJSON {
        let info = ProcessInfo.processInfo
        var members: [(String, ReportJSON)] = [
            ("cores", .integer(info.activeProcessorCount)),
            ("date", .string(ISO8601DateFormatter().string(from: Date()))),
            ("os", .string(info.operatingSystemVersionString)),
            ("arch", .string(architecture)),
        ]
        if let cpu = cpuModel { members.append(("cpu", .string(cpu))) }
        members.append(("build", .string(buildConfiguration)))
        members.append(("quick", .bool(quick)))
        members.append(("filters", .array(filters.map { .string($0) })))
        return .object(members)
    }

    /// One-line summary for the table header.
    static func summary() -> String {
        let info = ProcessInfo.processInfo
        var parts = ["\(info.activeProcessorCount) cores", architecture]
        if let cpu = cpuModel { parts.append(cpu) }
        parts.append(buildConfiguration + " build")
        return parts.joined(separator: ", ")
    }

    static var buildConfiguration: String {
        #if DEBUG
            return "debug"
        #else
            return "release"
        #endif
    }

    static var architecture: String {
        #if arch(x86_64)
            return "x86_64"
        #elseif arch(arm64)
            return "arm64"
        #else
            return "unknown"
        #endif
    }

    /// "model name" from /proc/cpuinfo (Linux); nil elsewhere.
    static var cpuModel: String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// Builds the results document: `{"machine": {...}, "cases": [...]}`.
func resultsJSON(_ results: [BenchmarkResult], quick: Bool, filters: [String]) -> ReportJSON {
    // Timings to 0.001 ns and ratios to 4 decimals: more digits are noise, and they make diffs unreadable.
    func rounded(_ value: Double, _ scale: Double) -> ReportJSON { .number((value * scale).rounded() / scale) }
    let cases: [ReportJSON] = results.map { result in
        .object([
            ("name", .string(result.name)),
            ("group", .string(result.group)),
            ("medianNs", rounded(result.measurement.medianNanoseconds, 1_000)),
            ("minNs", rounded(result.measurement.minimumNanoseconds, 1_000)),
            ("iterations", .integer(result.measurement.iterations)),
            ("samples", .integer(result.measurement.samples)),
            ("roundMedianNs", .array(result.measurement.roundMedians.map { rounded($0, 1_000) })),
            ("baseline", result.baseline.map { .string($0) } ?? .null),
            ("multiplier", .number(result.multiplier)),
            ("ratio", result.ratio.map { rounded($0, 10_000) } ?? .null),
            ("permutationEquivalents", result.referenceEquivalents.map { rounded($0, 10_000) } ?? .null),
        ])
    }
    return .object([("machine", MachineInfo.json(quick: quick, filters: filters)), ("cases", .array(cases))])
}

/// Writes `text` to `path`, creating parent directories.
func writeResultsFile(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url, options: .atomic)
}
