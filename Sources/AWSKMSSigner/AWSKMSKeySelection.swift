/// Which KMS keys to load as accounts at once (web3signer's bulk loading).
public enum AWSKMSKeySelection: Sendable, Equatable, CustomStringConvertible {
    /// Every key carrying the tag `key` (with value `value`, or any value when `nil`): `ListKeys`, then
    /// `ListResourceTags` of each key.
    case tag(key: String, value: String?)
    /// Every key an alias starting with `prefix` (`alias/signer-`) points to: `ListAliases`.
    case aliasPrefix(String)

    /// `tag signer=payments`, `alias prefix "alias/signer-"`.
    public var description: String {
        switch self {
        case .tag(let key, let value?): "tag \(AWSKMSError.quoted(key))=\(AWSKMSError.quoted(value))"
        case .tag(let key, nil): "tag \(AWSKMSError.quoted(key))"
        case .aliasPrefix(let prefix): "alias prefix \(AWSKMSError.quoted(prefix))"
        }
    }
}

extension AWSKMSKeySigner {
    /// A signer for every key `selection` picks, in the order of KMS's listing, each loaded as
    /// ``load(keyID:client:)`` loads one; at most `width` requests in flight at once.
    ///
    /// While scanning tags, a key whose tags the credentials may not read (`AccessDeniedException`) or that
    /// vanished meanwhile is skipped: an account holds keys of other users. A key that is selected and cannot
    /// be used (wrong spec, disabled, …) fails the whole load with its error: a signer never starts with fewer
    /// accounts than it was configured for.
    ///
    /// - Throws: ``AWSKMSError``.
    public static func loadAll(
        _ selection: AWSKMSKeySelection, client: AWSKMSClient, width: Int = 16
    ) async throws(AWSKMSError) -> [AWSKMSKeySigner] {
        let keyIDs: [String]
        switch selection {
        case .aliasPrefix(let prefix):
            keyIDs = try await client.aliases().filter { $0.name.hasPrefix(prefix) }.compactMap(\.targetKeyID)
        case .tag(let tagKey, let tagValue):
            let all = try await client.keyIDs()
            let tagged = try await concurrently(all, width: width) { id throws(AWSKMSError) -> String? in
                let tags: [String: String]
                do throws(AWSKMSError) { tags = try await client.tags(keyID: id) } catch {
                    switch error {
                    case .accessDenied, .keyNotFound: return nil
                    default: throw error
                    }
                }
                guard let found = tags[tagKey], tagValue == nil || found == tagValue else { return nil }
                return id
            }
            keyIDs = tagged.compactMap { $0 }
        }
        var seen = Set<String>()
        let unique = keyIDs.filter { seen.insert($0).inserted }
        return try await concurrently(unique, width: width) { id throws(AWSKMSError) in
            try await load(keyID: id, client: client)
        }
    }

    /// `body` over `items`, at most `width` at once, results in the order of `items`; the first error ends it.
    static func concurrently<Item: Sendable, Output: Sendable>(
        _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) async throws(AWSKMSError) -> Output
    ) async throws(AWSKMSError) -> [Output] {
        var results = [Output?](repeating: nil, count: items.count)
        let outcome: AWSKMSError? = await withTaskGroup(of: (Int, Result<Output, AWSKMSError>).self) { group in
            var next = 0
            func start() {
                guard next < items.count else { return }
                let index = next
                let item = items[index]
                next += 1
                group.addTask {
                    do throws(AWSKMSError) { return (index, .success(try await body(item))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<max(1, width) { start() }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let output):
                    results[index] = output
                    start()
                case .failure(let error):
                    group.cancelAll()
                    return error
                }
            }
            return nil
        }
        if let outcome { throw outcome }
        return results.compactMap { $0 }
    }
}
