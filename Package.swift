// swift-tools-version:6.0
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

let package = Package(
    name: "SignerKit",
    // Linux (Debian) is the tested platform. On macOS the system-library targets take Homebrew's libraries
    // (`providers`); macOS 15 is what `Synchronization` needs. No iOS: the C libraries are system libraries.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "EthereumPrimitives", targets: ["EthereumPrimitives"]),
        .library(name: "Secp256k1", targets: ["Secp256k1"]),
        .library(name: "EIP712", targets: ["EIP712"]),
        .library(name: "EthereumTransactions", targets: ["EthereumTransactions"]),
        .library(name: "SignerKit", targets: ["SignerKit"]),
        .library(name: "SignerKitHTTP", targets: ["SignerKitHTTP"]),
        .library(name: "SignerKitCurl", targets: ["SignerKitCurl"]),
        .library(name: "EthereumRPC", targets: ["EthereumRPC"]),
        .library(name: "SoftwareSigner", targets: ["SoftwareSigner"]),
        .library(name: "RedirectSigner", targets: ["RedirectSigner"]),
        .library(name: "RedirectSignerTransports", targets: ["RedirectSignerTransports"]),
        .library(name: "PKCS11Signer", targets: ["PKCS11Signer"]),
        .library(name: "AWSKMSSigner", targets: ["AWSKMSSigner"]),
        .library(name: "RemoteSigner", targets: ["RemoteSigner"]),
        .library(name: "CloudKMSSigner", targets: ["CloudKMSSigner"]),
        .library(name: "WalletConnectPay", targets: ["WalletConnectPay"]),
        .library(name: "WalletConnectPayPage", targets: ["WalletConnectPayPage"]),
        .executable(name: "signerkit", targets: ["SignerKitCLI"]),
        .plugin(name: "BenchmarkPlugin", targets: ["BenchmarkPlugin"]),
        .plugin(name: "EIP712CodegenPlugin", targets: ["EIP712CodegenPlugin"]),
    ],
    targets: [
        // MARK: C shims over system libraries
        .systemLibrary(
            name: "CSecp256k1",
            pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])]
        ),
        .systemLibrary(
            name: "CGcrypt",
            pkgConfig: "libgcrypt",
            providers: [.apt(["libgcrypt20-dev"]), .brew(["libgcrypt"])]
        ),
        // Header only: no pkgConfig, so nothing links -lp11-kit (its C_GetFunctionList is a proxy).
        .systemLibrary(
            name: "CPKCS11",
            providers: [.apt(["libp11-kit-dev"]), .brew(["p11-kit"])]
        ),
        // libcurl: the one HTTP client (shim.h holds fixed-argument wrappers over the variadic setopt/getinfo).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // libmicrohttpd: the one HTTP server (shim.h holds fixed-argument wrappers over the variadic calls).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        // SQLite: the signer service's transaction journal (shim.h holds SQLITE_TRANSIENT as a function).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libpq: the stores shared by several signer-service instances (SignerKitPostgres).
        .systemLibrary(
            name: "CPostgreSQL",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // Fixed-argument wrappers over the variadic gcry_control.
        .target(name: "CGcryptShim", dependencies: ["CGcrypt"]),
        // MARK: project C code (hot path)
        // No unsafe flags in any target a product depends on (SwiftPM refuses them in a dependency);
        // release builds optimise C targets already.
        .target(name: "CKeccak", exclude: ["keccak_permutation.inc"]),
        // MARK: Swift layers
        // Shared helpers with `package` access: POSIX I/O with EINTR, memory wiping, percent-encoding, durations.
        .target(
            name: "SignerKitSupport",
            swiftSettings: strictSwift
        ),
        .target(
            name: "EthereumPrimitives",
            dependencies: ["CKeccak"],
            swiftSettings: strictSwift
        ),
        // Secrets in libgcrypt secure memory, SHA-256, constant-time comparison: what the key layer and the HTTP
        // server share, without the curve.
        .target(
            name: "SecureMemory",
            dependencies: ["CGcrypt", "CGcryptShim", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "Secp256k1",
            dependencies: ["CSecp256k1", "SecureMemory", "EthereumPrimitives", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "EIP712",
            dependencies: ["EthereumPrimitives"],
            swiftSettings: strictSwift
        ),
        // The EIP-712 code generator: `*.eip712.json` schema files → Swift structs (docs/EIP712.md). Its logic is
        // a library so that tests call it directly; the tool is what the build-tool plugin runs.
        .target(
            name: "EIP712Codegen",
            dependencies: ["EIP712", "EthereumPrimitives"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "EIP712CodegenTool",
            dependencies: ["EIP712Codegen"],
            swiftSettings: strictSwift
        ),
        .plugin(
            name: "EIP712CodegenPlugin",
            capability: .buildTool(),
            dependencies: ["EIP712CodegenTool"]
        ),
        .target(
            name: "EthereumTransactions",
            dependencies: ["EthereumPrimitives", "Secp256k1"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "SignerKit",
            dependencies: ["EthereumPrimitives", "Secp256k1", "EIP712", "EthereumTransactions", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        // The HTTP client layer without an implementation: `HTTPTransport`, its messages and errors, the one
        // retrying call.
        .target(
            name: "SignerKitHTTP",
            dependencies: ["EthereumPrimitives", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        // The one HTTP client: `CurlHTTPTransport` on libcurl.
        .target(
            name: "SignerKitCurl",
            dependencies: ["CCurl", "SignerKitHTTP", "EthereumPrimitives", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        // The one HTTP server layer (`package` access) on libmicrohttpd: loopback callbacks, local test services.
        .target(
            name: "SignerKitHTTPServer",
            dependencies: ["CMicroHTTPD", "SignerKitSupport", "SecureMemory", "EthereumPrimitives"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "EthereumRPC",
            dependencies: ["SignerKit", "SignerKitHTTP", "SignerKitCurl", "EthereumPrimitives"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "SoftwareSigner",
            dependencies: ["SignerKit", "Secp256k1", "CGcrypt", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RedirectSigner",
            dependencies: [
                "SignerKit", "EthereumPrimitives", "Secp256k1", "EIP712", "SignerKitSupport", "SignerKitHTTP",
                "SignerKitCurl",
                "CGcrypt",
            ],
            swiftSettings: strictSwift
        ),
        // The desktop transports of the hosted-wallet signer (a loopback listener, a deep-link socket), apart so
        // that RedirectSigner alone does not link the HTTP server.
        .target(
            name: "RedirectSignerTransports",
            dependencies: [
                "RedirectSigner", "SignerKitHTTPServer", "SignerKitHTTP", "SignerKitCurl", "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "PKCS11Signer",
            dependencies: ["SignerKit", "CPKCS11", "Secp256k1", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        // Keys in AWS KMS: GetPublicKey once, Sign over the digest, SigV4 by libcurl (docs/KMS.md).
        .target(
            name: "AWSKMSSigner",
            dependencies: [
                "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl", "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        // Keys held by another signer service (web3signer's eth1 API, another `signerkit serve`) (docs/KMS.md).
        .target(
            name: "RemoteSigner",
            dependencies: [
                "SignerKit", "EthereumPrimitives", "EthereumTransactions", "EthereumRPC", "SignerKitHTTP",
                "SignerKitCurl", "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        // Keys in Google Cloud KMS and Azure Key Vault: OAuth2 tokens (RS256 JWT by libgcrypt, client
        // credentials), getPublicKey / get key once, sign over the digest (docs/KMS.md).
        .target(
            name: "CloudKMSSigner",
            dependencies: [
                "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl", "SecureMemory",
                "SignerKitSupport", "CGcrypt",
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "WalletConnectPay",
            dependencies: [
                "SignerKit", "SignerKitHTTP", "SignerKitCurl", "EthereumPrimitives", "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        // The data-collection page on a desktop (a loopback page framing the hosted form), apart so that
        // WalletConnectPay alone links no HTTP server.
        .target(
            name: "WalletConnectPayPage",
            dependencies: ["WalletConnectPay", "SignerKitHTTPServer", "EthereumPrimitives", "SecureMemory"],
            swiftSettings: strictSwift
        ),
        // Test doubles, never in a wallet: the local Pay service and the hosted-wallet simulator (used by the
        // CLI's `pay serve-local` / `waypoint simulate-wallet` and the tests; deliberately not products).
        .target(
            name: "WalletConnectPayTesting",
            dependencies: [
                "WalletConnectPay", "SignerKit", "SignerKitHTTPServer", "EIP712", "Secp256k1", "EthereumPrimitives",
                "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "RedirectSignerTesting",
            dependencies: [
                "RedirectSigner", "RedirectSignerTransports", "SignerKit", "SignerKitHTTPServer", "EthereumPrimitives",
                "EIP712", "EthereumTransactions",
            ],
            swiftSettings: strictSwift
        ),
        // The signer service (`signerkit serve`): the dispatcher behind Ethereum JSON-RPC over HTTP.
        .target(
            name: "SignerKitService",
            dependencies: [
                "EthereumPrimitives", "EthereumTransactions", "SecureMemory", "SignerKit", "EthereumRPC",
                "SignerKitHTTPServer", "SignerKitHTTP",
                "SignerKitSupport",
            ],
            swiftSettings: strictSwift
        ),
        // Stores in SQLite (the transaction journal, the idempotency store), apart from the core.
        .target(
            name: "SignerKitSQLite",
            dependencies: ["CSQLite", "SignerKit", "EthereumPrimitives", "SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        // Stores in PostgreSQL (journal, idempotency store, audit trail) for several instances of one deployment.
        .target(
            name: "SignerKitPostgres",
            dependencies: [
                "CPostgreSQL", "SignerKit", "EthereumPrimitives", "SignerKitSupport", "SecureMemory",
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "SignerKitCommands",
            dependencies: [
                "EthereumPrimitives", "Secp256k1", "EIP712", "EthereumTransactions", "SignerKit", "SoftwareSigner",
                "RedirectSigner", "RedirectSignerTransports", "PKCS11Signer", "AWSKMSSigner", "CloudKMSSigner",
                "WalletConnectPay",
                "WalletConnectPayPage",
                "EthereumRPC",
                "SignerKitSupport",
                "WalletConnectPayTesting", "RedirectSignerTesting", "SignerKitService", "SignerKitSQLite",
                "SignerKitPostgres",
                "RemoteSigner",
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "SignerKitCLI",
            dependencies: ["SignerKitCommands"],
            swiftSettings: strictSwift
        ),
        // MARK: benchmarks
        .target(
            name: "KeccakReference",
            path: "Benchmarks/KeccakReference",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        // The second C baseline: CKeccak's lane-complementing permutation compiled apart (scripts/gen_keccak.py).
        .target(name: "KeccakComplemented", path: "Benchmarks/KeccakComplemented"),
        .executableTarget(
            name: "SignerKitBenchmarks",
            dependencies: [
                "EthereumPrimitives", "Secp256k1", "CSecp256k1", "EIP712", "KeccakReference", "SignerKit",
                "SoftwareSigner", "PKCS11Signer", "SignerKitCommands", "KeccakComplemented", "SignerKitTestSupport",
                "SignerKitService", "SignerKitHTTPServer", "EthereumRPC", "AWSKMSSigner",
            ],
            path: "Benchmarks/SignerKitBenchmarks",
            swiftSettings: strictSwift,
            plugins: ["EIP712CodegenPlugin"]
        ),
        .plugin(
            name: "BenchmarkPlugin",
            capability: .command(
                intent: .custom(
                    verb: "benchmark",
                    description: "Build the benchmarks in release mode, run them, print a table and write JSON."),
                permissions: [
                    .writeToPackageDirectory(reason: "Writes the benchmark results as JSON under .benchmarks/.")
                ]
            )
        ),
        // MARK: tests
        // Not a test target: what the test targets share (the ground-truth vectors, test keys, the SoftHSM2
        // store builder, the local EVM node, the fault-injecting proxy, child processes).
        .target(
            name: "SignerKitTestSupport",
            dependencies: [
                "EthereumPrimitives", "EthereumTransactions", "SignerKit", "SignerKitHTTP", "SignerKitCurl",
                "SoftwareSigner",
                "AWSKMSSigner",
            ],
            path: "Tests/SignerKitTestSupport",
            resources: [.copy("Vectors"), .copy("Contracts")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SignerKitSupportTests",
            dependencies: ["SignerKitSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "EthereumPrimitivesTests",
            dependencies: ["EthereumPrimitives", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "Secp256k1Tests",
            dependencies: ["Secp256k1", "EthereumPrimitives", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "EthereumTransactionsTests",
            dependencies: ["EthereumTransactions", "Secp256k1", "EthereumPrimitives", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SignerKitTests",
            dependencies: [
                "SignerKit", "EthereumRPC", "SoftwareSigner", "Secp256k1", "EIP712", "EthereumTransactions",
                "EthereumPrimitives", "SignerKitTestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SoftwareSignerTests",
            dependencies: ["SoftwareSigner", "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "RedirectSignerTests",
            dependencies: [
                "RedirectSigner", "RedirectSignerTransports", "RedirectSignerTesting", "SignerKit", "SoftwareSigner",
                "Secp256k1",
                "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl", "SignerKitTestSupport",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "PKCS11SignerTests",
            dependencies: [
                "PKCS11Signer", "CPKCS11", "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitTestSupport",
            ],
            swiftSettings: strictSwift
        ),
        // AWS KMS keys against a local KMS (ministack) behind the tests' SigV4-verifying proxy.
        .testTarget(
            name: "AWSKMSSignerTests",
            dependencies: [
                "AWSKMSSigner", "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl",
                "SignerKitTestSupport",
            ],
            swiftSettings: strictSwift
        ),
        // Google Cloud KMS and Azure Key Vault keys against the tests' stand-ins of their REST APIs.
        .testTarget(
            name: "CloudKMSSignerTests",
            dependencies: [
                "CloudKMSSigner", "SignerKit", "Secp256k1", "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl",
                "SignerKitTestSupport",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "WalletConnectPayTests",
            dependencies: [
                "WalletConnectPay", "EthereumRPC", "SignerKitHTTP", "SignerKitCurl", "SignerKit", "SoftwareSigner",
                "Secp256k1",
                "EthereumPrimitives", "EthereumTransactions", "EIP712", "SignerKitTestSupport", "SignerKitHTTPServer",
                "WalletConnectPayTesting", "WalletConnectPayPage",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SignerKitCommandsTests",
            dependencies: [
                "SignerKitCommands", "SignerKit", "EthereumPrimitives", "SignerKitHTTP", "SignerKitCurl",
                "SignerKitTestSupport",
                "WalletConnectPay", "AWSKMSSigner",
                "WalletConnectPayTesting", "Secp256k1", "SignerKitSQLite", "SignerKitSupport",
                "RemoteSigner",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift
        ),
        // One contract per store protocol, run against SQLite and a real PostgreSQL server.
        .testTarget(
            name: "SignerKitStoresTests",
            dependencies: [
                "SignerKitSQLite", "SignerKitPostgres", "SignerKitService", "SignerKit", "EthereumPrimitives",
                "Secp256k1", "SignerKitTestSupport", "SoftwareSigner", "EthereumTransactions", "SignerKitHTTPServer",
            ],
            swiftSettings: strictSwift
        ),
        // The signer service driven in process: its HTTP handler and JSON-RPC layer without sockets, on
        // temporary SQLite stores and the local EVM node.
        .testTarget(
            name: "SignerKitServiceTests",
            dependencies: [
                "SignerKitService", "SignerKitSQLite", "SignerKit", "EthereumRPC", "SignerKitHTTP", "SignerKitCurl",
                "SignerKitHTTPServer",
                "EthereumPrimitives", "Secp256k1", "SignerKitTestSupport",
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SignerKitHTTPServerTests",
            dependencies: ["SignerKitHTTPServer", "SignerKitHTTP", "SignerKitCurl", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "SignerKitHTTPTests",
            dependencies: ["SignerKitHTTP", "SignerKitCurl", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "EIP712Tests",
            dependencies: ["EIP712", "Secp256k1", "EthereumPrimitives", "SignerKitTestSupport"],
            swiftSettings: strictSwift
        ),
        // Structs generated from Tests/EIP712CodegenTests/Schemas/*.eip712.json by the plugin, checked against
        // the EIP-712 vectors; the generator's errors, from its library.
        .testTarget(
            name: "EIP712CodegenTests",
            dependencies: ["EIP712Codegen", "EIP712", "EthereumPrimitives", "SignerKitTestSupport"],
            swiftSettings: strictSwift,
            plugins: ["EIP712CodegenPlugin"]
        ),
    ]
)

// MARK: fuzzing
// libFuzzer targets (Fuzz/): declared only when SIGNERKIT_FUZZ=1, so the normal build, the tests and a package
// that depends on SignerKit never see them. scripts/fuzz.sh sets it and builds with the sanitizers.
if Context.environment["SIGNERKIT_FUZZ"] == "1" {
    package.products.append(.executable(name: "signerkit-fuzz", targets: ["SignerKitFuzz"]))
    package.targets.append(
        .executableTarget(
            name: "SignerKitFuzz",
            dependencies: [
                "EthereumPrimitives", "Secp256k1", "EIP712", "EthereumTransactions", "SignerKit", "SignerKitHTTP",
                "SignerKitCurl",
                "EthereumRPC", "SoftwareSigner", "RedirectSigner", "PKCS11Signer", "WalletConnectPay",
                "SignerKitSupport", "SignerKitService", "CloudKMSSigner",
            ],
            path: "Fuzz/Sources/SignerKitFuzz",
            swiftSettings: strictSwift
        )
    )
}
