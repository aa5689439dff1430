import Foundation

// signerkit-fuzz: every fuzz target in one libFuzzer binary (built by scripts/fuzz.sh, which sets
// SIGNERKIT_FUZZ_TARGET). SwiftPM gives an executable its own `main`, so this one links libFuzzer without
// its `main` (libclang_rt.fuzzer_no_main) and starts the fuzzing loop through LLVMFuzzerRunDriver.
//
//   signerkit-fuzz --list                       names and summaries, one per line
//   SIGNERKIT_FUZZ_TARGET=json signerkit-fuzz [libFuzzer flags] [corpus folders or inputs]

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

if CommandLine.arguments.dropFirst().first == "--list" {
    for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
    exit(0)
}
guard let name = ProcessInfo.processInfo.environment["SIGNERKIT_FUZZ_TARGET"] else {
    FileHandle.standardError.write(Data("signerkit-fuzz: set SIGNERKIT_FUZZ_TARGET (see --list)\n".utf8))
    exit(2)
}
guard let target = FuzzTargets.all.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("signerkit-fuzz: no target named \(name.prefix(64)) (see --list)\n".utf8))
    exit(2)
}
FuzzTargets.selected = target

var argumentCount = CommandLine.argc
var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = runFuzzerDriver(&argumentCount, &arguments) { data, size in
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTargets.selected?.run(bytes)
    return 0
}
exit(status)
