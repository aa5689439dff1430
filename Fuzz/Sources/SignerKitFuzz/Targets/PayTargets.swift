import EthereumPrimitives
import WalletConnectPay

/// WalletConnect Pay: payment links users paste or scan, and every answer of the Pay API.
enum PayTargets {
    static let paymentLink = FuzzTarget(
        name: "pay-link",
        summary: "Pay payment links and wallet deep links: an extracted payment id is valid and one safe path "
            + "segment"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        _ = PaymentLink.isPaymentLink(text)
        if let inner = PaymentLink.paymentLink(fromWalletDeepLink: text) {
            FuzzCheck.expect(inner.count <= text.count, "a deep link's inner link is longer than the deep link")
        }
        do throws(PaymentLinkError) {
            let id = try PaymentLink.paymentId(fromLinkOrDeepLink: text)
            FuzzCheck.expect((try? PaymentLink.validatePaymentId(id)) != nil, "an extracted id fails validation")
            let segment = PaymentLink.pathSegment(id)
            FuzzCheck.expect(!segment.contains("/") && !segment.contains("?") && !segment.contains("#"), "segment")
            FuzzCheck.expect(segment != "." && segment != ".." && !segment.isEmpty, "a dot segment: \(segment)")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    static let apiResponses = FuzzTarget(
        name: "pay-responses",
        summary: "every Pay API answer model (payment info, options, fetch, status, error bodies) from JSON: "
            + "typed errors naming the path, bounded"
    ) { bytes in
        let error = PayTransport.apiError(status: 400, body: bytes, endpoint: .confirm)
        FuzzCheck.boundedDescription(error)
        guard let json = try? JSONValue(parsing: bytes) else { return }
        check { () throws(PayError) in try PaymentInfo(json: json, path: "payment") }
        check { () throws(PayError) in try PaymentOptionsResponse(json: json) }
        check { () throws(PayError) in try PaymentStatusResponse(json: json) }
        check { () throws(PayError) in try CollectedData(json: json) }
        do throws(PayError) {
            let actions = try PayClient.fetchedActions(json)
            FuzzCheck.expect(actions.count == json["actions"]?.arrayValue?.count, "actions lost or added")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        if case .object(let object) = json, let options = object["options"]?.arrayValue {
            for (index, option) in options.enumerated() {
                check { () throws(PayError) in try PaymentOption(json: option, path: "options[\(index)]") }
            }
        }
    }

    /// Runs one model's parser: success, or an error with a bounded description.
    static func check<T>(_ parse: () throws(PayError) -> T) {
        switch Result(catching: parse) {
        case .success: break
        case .failure(let error): FuzzCheck.boundedDescription(error)
        }
    }
}
