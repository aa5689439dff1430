import EthereumPrimitives
import RemoteSigner

/// The remote-signer key source: `--remote-signer URL --remote-account 0xADDR [--remote-signer-kind
/// web3signer|signerkit] [--remote-token-file FILE]` (else `$SIGNERKIT_REMOTE_TOKEN`). The account's key stays
/// in the remote; every answer is verified by the dispatcher (docs/KMS.md, "Remote signers"). The token is
/// never taken from the command line.
///
/// The remote signs whole requests, never a bare digest: `key address`, `sign` (the dispatcher's command) and
/// `message sign`, `typed-data sign`, `tx sign` (one request each, ``RemoteSigning``) take it; the commands
/// that need a key's digest signature (`siwe`, `auth`, `pay`, `waypoint`, `tx sponsor`, `typed-data sign
/// --jsonl`) refuse it with a usage error.
enum RemoteSignerOptions {
    /// `--remote-signer URL`.
    static let url = FlagSpec.option(
        "--remote-signer", value: "URL", help: "remote signer holding the key (https; plain http only to loopback)")
    /// `--remote-account 0xADDR`.
    static let account = FlagSpec.option(
        "--remote-account", value: "0xADDR", help: "the remote signer's account to sign with")
    /// `--remote-signer-kind web3signer|signerkit`.
    static let kind = FlagSpec.option(
        "--remote-signer-kind", value: "KIND", help: "web3signer (its eth1 API, the default) or signerkit (serve)")
    /// `--remote-token-file FILE`.
    static let tokenFile = FlagSpec.option(
        "--remote-token-file", value: "FILE",
        help: "file holding the remote's bearer token (else $SIGNERKIT_REMOTE_TOKEN; never an argument)")
    /// The environment variable holding the bearer token when no file is named.
    static let tokenVariable = "SIGNERKIT_REMOTE_TOKEN"

    /// The four flags.
    static let flags = [url, account, kind, tokenFile]
    /// The flags that only qualify `--remote-signer`.
    static let qualifiers = [account, kind, tokenFile]

    /// The backend for the account `--remote-account` names, after one `eth_accounts` that lists it.
    ///
    /// - Throws: 64 for a missing `--remote-account` or an unknown kind; 65 with one message naming the remote
    ///   (never the token) when it cannot be used: a bad URL, unreachable, 401, an account it does not hold.
    static func backend(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure)
        -> RemoteSignerBackend
    {
        let text = try options.required(url.name, "(the remote signer's URL)")
        let accountText = try options.required(account.name, "(the remote signer's account)")
        let address: Address
        do { address = try Address(accountText) } catch {
            throw .usage("\(account.name): \(error)", command: options.commandPath)
        }
        let kindText = options.value(kind.name) ?? RemoteSignerKind.web3signer.rawValue
        guard let chosen = RemoteSignerKind(rawValue: kindText) else {
            throw .usage(
                "\(kind.name): expected web3signer or signerkit, got \(TextSafety.displayArgument(kindText))",
                command: options.commandPath)
        }
        let token = try self.token(options, io: io)
        do throws(RemoteSignerError) {
            let client = RemoteSignerClient(endpoint: try RemoteSignerEndpoint(text), kind: chosen, token: token)
            return try await RemoteSignerBackend.connect(client, accounts: [address])
        } catch {
            throw .invalidInput(error.description)
        }
    }

    /// The bearer token from `--remote-token-file` (a secret file: mode 0600, not a symlink) or
    /// `$SIGNERKIT_REMOTE_TOKEN`; none when neither is given.
    static func token(_ options: ParsedOptions, io: any CommandIO) throws(CommandFailure) -> RemoteSignerToken? {
        if let path = options.value(tokenFile.name) {
            return try token(file: path, allowInsecure: SecretFile.allowsInsecure(options))
        }
        guard let value = io.environment[tokenVariable], !value.isEmpty else { return nil }
        guard let token = RemoteSignerToken(value) else {
            throw .invalidInput("$\(tokenVariable): a bearer token is printable ASCII without spaces")
        }
        return token
    }

    /// The bearer token in the secret file at `path` (one trailing newline dropped).
    static func token(file path: String, allowInsecure: Bool) throws(CommandFailure) -> RemoteSignerToken {
        let (secret, _) = try SecretFile.readLine(
            path, what: "bearer token", maximumSize: 4096, allowInsecure: allowInsecure)
        defer { secret.wipe() }
        let text = String(decoding: secret.withUnsafeBytes { Array($0) }, as: UTF8.self)
        guard let token = RemoteSignerToken(text) else {
            throw .invalidInput(
                "\(TextSafety.displayArgument(path)): a bearer token is printable ASCII without spaces")
        }
        return token
    }

    /// The refusal of a command that signs bare digests.
    static func notAKey(_ options: ParsedOptions) -> CommandFailure {
        .usage(
            "\(url.name) signs whole requests, not digests: use it with key address, sign, message sign, "
                + "typed-data sign or tx sign",
            command: options.commandPath)
    }
}
