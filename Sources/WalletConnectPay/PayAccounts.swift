import EthereumPrimitives

/// CAIP-10 account lists as the Pay API takes them (`["eip155:8453:0x…", …]`).
public enum PayAccounts {
    /// Chains Pay settles on today, in the order a wallet usually offers them: Base, Ethereum,
    /// Optimism, Arbitrum One, Polygon.
    public static let defaultChains: [ChainID] = [8453, 1, 10, 42161, 137].map { ChainID(eip155: $0) }

    /// One account per chain for an EVM address, in chain order (duplicates dropped).
    public static func accounts(for address: Address, chains: [ChainID] = defaultChains) -> [AccountID] {
        unique(chains.map { AccountID(chainID: $0, address: address) })
    }

    /// The accounts of several addresses on each chain (address-major order, duplicates dropped).
    public static func accounts(for addresses: [Address], chains: [ChainID] = defaultChains) -> [AccountID] {
        unique(addresses.flatMap { accounts(for: $0, chains: chains) })
    }

    /// Parses CAIP-10 strings strictly; two spellings of one EVM account count once.
    ///
    /// - Throws: ``PayError/invalidAccounts(_:)`` for an empty list or an invalid entry (naming its index).
    public static func parse(_ texts: [String]) throws(PayError) -> [AccountID] {
        guard !texts.isEmpty else { throw .invalidAccounts("the list is empty") }
        var accounts: [AccountID] = []
        for (index, text) in texts.enumerated() {
            do { accounts.append(try AccountID(text)) } catch { throw .invalidAccounts("[\(index)]: \(error)") }
        }
        return unique(accounts)
    }

    /// The wire form: each account's string.
    public static func wire(_ accounts: [AccountID]) -> [String] { accounts.map(\.description) }

    /// `accounts` without repeats, first occurrence kept.
    public static func unique(_ accounts: [AccountID]) -> [AccountID] {
        var seen = Set<AccountID>()
        return accounts.filter { seen.insert($0).inserted }
    }
}
