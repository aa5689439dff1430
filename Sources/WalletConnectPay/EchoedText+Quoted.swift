import EthereumPrimitives

extension EchoedText {
    /// Text from the Pay server or a wallet in double quotes, abbreviated (``abbreviated(_:)``), for step lines
    /// and errors.
    static func quoted(_ text: some StringProtocol) -> String { "\"\(abbreviated(text))\"" }
}
