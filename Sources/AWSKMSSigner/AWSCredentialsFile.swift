import Foundation

/// The shared credentials file's INI format, as the AWS CLI writes it: `[profile]` sections of
/// `name = value` lines, `#` and `;` comment lines, blank lines.
enum AWSCredentialsFile {
    /// The settings of section `[profile]` (names lower-cased, values trimmed).
    ///
    /// - Throws: ``AWSKMSError/invalidCredentialsFile(path:line:reason:)`` naming the line of a malformed
    ///   section header or setting (never its value), or `missingCredentials` when there is no such profile.
    static func profile(_ profile: String, in data: Data, path: String) throws(AWSKMSError) -> [String: String] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .invalidCredentialsFile(path: path, line: 0, reason: "not UTF-8 text")
        }
        var section: String?
        var found = false
        var entries: [String: String] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw .invalidCredentialsFile(path: path, line: index + 1, reason: "malformed section header")
                }
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if section == profile { found = true }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .invalidCredentialsFile(path: path, line: index + 1, reason: "expected name = value")
            }
            guard section == profile else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                throw .invalidCredentialsFile(path: path, line: index + 1, reason: "a setting without a name")
            }
            if !value.isEmpty { entries[name] = value }
        }
        guard found else {
            throw .missingCredentials(
                "AWS_ACCESS_KEY_ID is not set and \(AWSKMSError.quoted(path)) has no profile "
                    + AWSKMSError.quoted(profile))
        }
        return entries
    }
}
