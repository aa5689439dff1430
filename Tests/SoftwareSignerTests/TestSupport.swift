import EthereumPrimitives
import Foundation
import SoftwareSigner

/// Fixtures, temporary files and JSON editing shared by the SoftwareSigner tests.
enum TestSupport {
    /// The key both Web3 Secret Storage test vectors decrypt to.
    static let vectorKeyHex = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d"
    /// Its address.
    static let vectorAddress = "0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b"
    /// The vectors' password.
    static let vectorPassword = "testpassword"

    /// The independently generated r = 8 keystore (`Fixtures/independent-scrypt-r8.json`; see
    /// `Fixtures/README.md`): key, address and UTF-8 password.
    static let independentKeyHex = "0xd1c5fc78866150b8becfde3f412f94c29df54f1d6e708f474f3369a04757ce6b"
    static let independentAddress = "0x045dd47a5bd3ec9019083a0b743cd09146fbc890"
    static let independentPassword = "signerkit fixture \u{e9}\u{e8} password"

    enum FixtureError: Error { case missing(String) }

    static func fixtureURL(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureError.missing(name)
        }
        return url
    }

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtureURL(name), encoding: .utf8)
    }

    static func fixtureJSON(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: fixture(name))
    }

    /// A password as a fresh byte array (the APIs wipe the arrays they are given).
    static func password(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Writes `contents` to a new file in a fresh temporary directory and returns its path.
    static func temporaryFile(_ contents: String, name: String = "file") throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("SoftwareSignerTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    /// Removes a file made by ``temporaryFile(_:name:)`` and its directory.
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}

extension JSONValue {
    /// A copy with the member at the dotted `path` replaced (or removed when `value` is nil).
    func setting(_ path: String, to value: JSONValue?) -> JSONValue {
        setting(path.split(separator: ".").map(String.init)[...], to: value)
    }

    private func setting(_ path: ArraySlice<String>, to value: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var object) = self else { return self }
        if path.count == 1 {
            object[key] = value
        } else {
            object[key] = (object[key] ?? .object(JSONObject())).setting(path.dropFirst(), to: value)
        }
        return .object(object)
    }

    /// The string at a dotted path.
    func string(at path: String) -> String? {
        var current: JSONValue? = self
        for key in path.split(separator: ".") { current = current?[String(key)] }
        return current?.stringValue
    }
}

/// Tests that several pieces of text never appear in `text`, in either letter case.
func containsNone(of secrets: [String], in text: String) -> Bool {
    let lower = text.lowercased()
    return secrets.allSatisfy { !lower.contains($0.lowercased()) }
}
