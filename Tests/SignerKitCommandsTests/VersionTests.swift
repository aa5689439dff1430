import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// One version, everywhere it is shown: `signerkit --version`, the constant, the CHANGELOG's newest entry.
@Suite(
    "signerkit --version",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct VersionTests {
    @Test("--version prints the package version, which is the CHANGELOG's newest entry")
    func version() async throws {
        let result = try await Binary.run(["--version"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == "signerkit \(SignerKitVersion.current)\n")
        let changelog = try String(
            contentsOf: ToolRun.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(SignerKitVersion.current) ") == true, "\(String(describing: newest))")
    }
}
