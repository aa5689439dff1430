// The list of `signerkit` commands.
//
// HOW TO ADD A COMMAND
//
// 1. Create one file in Sources/SignerKitCommands, e.g. `TxCommands.swift`, declaring the command
//    as a value. A leaf runs; a group dispatches to subcommands by the next word:
//
//        enum TxCommands {
//            static let command = Command.group("tx", summary: "Ethereum transactions.", subcommands: [sign])
//
//            static let sign = Command.leaf(
//                "sign", summary: "Sign an eth_sendTransaction JSON object.",
//                flags: SigningKeyOptions.flags + [.flag("--json", help: "print hash and raw transaction as JSON")],
//                positionals: [.positional("FILE|-", optional: true, help: "transaction JSON; - or none reads stdin")],
//                run: run)
//
//            static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
//                try SigningKeyOptions.checkPresent(context.options)        // fail fast, before reading stdin
//                let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
//                let signer = try await loadSigningKey(context.options, io: context.io)
//                …
//                context.printLine(result)
//                return .success
//            }
//        }
//
// 2. Add `TxCommands.command` to `CommandRegistry.commands` below. That is all: parsing, unknown-flag
//    errors, `--help` text and exit statuses come from the declaration.
//
// Conventions every command keeps (external checks rely on them):
// - Invalid input: throw `CommandFailure.invalidInput("<where>: <problem>")` (or `context.usageError`
//   for command-line mistakes). The dispatcher prints exactly one line `error: …` on stderr and exits
//   65. Write nothing to stdout before you know the command succeeds.
// - Never accept key material on the command line and never put it in a message. Keys are loaded
//   only through `loadSigningKey(_:io:)` (SigningKey.swift), which is also where new key sources
//   (keystore, PKCS#11) plug in: add their flags to `SigningKeyOptions.flags` and a branch there.
// - Echo user-supplied arguments (paths, names) only through `TextSafety.displayArgument(_:)`.
// - Exit statuses are `ExitCode` values: 0 success, 1 a well-formed failure, 65 invalid input.

/// Every top-level command of `signerkit`, in the order `--help` lists them.
enum CommandRegistry {
    /// The top-level commands. Add new command groups here.
    static let commands: [Command] = [
        TypedDataCommands.command,
        MessageCommands.command,
        RecoverCommands.command,
        VerifyCommands.command,
        SiweCommands.command,
        KeyCommands.command,
        TxCommands.command,
        AuthCommands.command,
        CallsCommands.command,
        ActionCommands.command,
        PreviewCommands.command,
        KeystoreCommands.command,
        PKCS11Commands.command,
        PayCommands.command,
        WaypointCommands.command,
        ServeCommands.command,
        AuditCommands.command,
        PolicyCommands.command,
    ]

    /// The `signerkit` group itself.
    static let root = Command.group(
        "signerkit",
        summary:
            "Ethereum signing: EIP-712 typed data, EIP-191 personal messages, transactions, wallet RPC actions.",
        details: """
            Inputs: FILE or - (stdin) for JSON documents; --text (UTF-8) or --hex (0x-hex bytes) for messages.
            Keys come from files (--key-file FILE holding a 0x-hex private key), keystores (--keystore FILE with
            --password-file P) or PKCS#11 tokens (--pkcs11-module M --token-label L --key-label K --pin-file F);
            never from arguments.
            Exit status: 0 success, 1 a reported failure (a failed --jsonl line), 65 invalid input or any
            other error (with one "error: …" line on stderr and nothing on stdout).
            """,
        subcommands: commands)
}
