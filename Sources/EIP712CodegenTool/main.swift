import EIP712Codegen
import Foundation

// eip712-codegen SCHEMA.eip712.json OUTPUT.swift: what the EIP712CodegenPlugin runs for each schema file.
// Errors go to standard error as `error: NAME.eip712.json: type T, field f: …`, and the exit status is 1.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let input = arguments.first, let output = arguments.last else {
    FileHandle.standardError.write(Data("usage: EIP712CodegenTool SCHEMA.eip712.json OUTPUT.swift\n".utf8))
    exit(2)
}
do {
    let contents = try Data(contentsOf: URL(fileURLWithPath: input))
    let source = try EIP712Generator.swiftSource(
        fileName: URL(fileURLWithPath: input).lastPathComponent, contents: Array(contents))
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch let error as CodegenError {
    FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("\(input): error: \(error)\n".utf8))
    exit(1)
}
