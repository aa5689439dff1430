import Foundation
import PackagePlugin

/// Generates Swift structs from the `*.eip712.json` schema files of the target it is applied to: one command
/// per file, running `EIP712CodegenTool SCHEMA OUTPUT` into the plugin's work directory (docs/EIP712.md).
@main
struct EIP712CodegenPlugin: BuildToolPlugin {
    static let suffix = ".eip712.json"

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? any SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "EIP712CodegenTool")
        return target.sourceFiles(withSuffix: Self.suffix).map { file in
            let schema = file.url
            let base = String(schema.lastPathComponent.dropLast(Self.suffix.count))
            let output = context.pluginWorkDirectoryURL.appending(path: "\(base).eip712.swift")
            return .buildCommand(
                displayName: "Generating EIP-712 structs from \(schema.lastPathComponent)",
                executable: tool.url,
                arguments: [schema.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [schema],
                outputFiles: [output])
        }
    }
}
