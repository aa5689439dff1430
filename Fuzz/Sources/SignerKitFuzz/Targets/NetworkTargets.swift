import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit
import SignerKitHTTP

/// What servers answer: HTTP response heads (as libcurl hands over their lines) and JSON-RPC bodies.
enum NetworkTargets {
    static let requestURL = FuzzCheck.constant("request URL") {
        URL(string: "https://pay.fuzz.example/v1/gateway/payment/p")
    }
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let cap = Duration.seconds(2)

    static let httpResponseHead = FuzzTarget(
        name: "http-response-head",
        summary: "HTTP response heads line by line (status lines, 100 Continue, Retry-After, Location, "
            + "Content-Length): bounded fields, waits within the cap, hosts abbreviated"
    ) { bytes in
        var head = HTTPResponseHead()
        var start = 0
        for index in bytes.indices where bytes[index] == 0x0A || index == bytes.count - 1 {
            bytes[start...index].withUnsafeBytes { head.add(line: $0) }
            start = index + 1
        }
        FuzzCheck.expect(head.fields.count <= HTTPResponseHead.maximumFields, "\(head.fields.count) fields kept")
        for field in head.fields {
            FuzzCheck.expect(!field.name.isEmpty, "an empty field name")
            FuzzCheck.expect(
                field.name.utf8.allSatisfy { HTTPResponseHead.isTokenByte($0) && !(0x41...0x5A).contains($0) },
                "a field name that is not a lower-case token")
            let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
            FuzzCheck.expect(
                !(field.value.utf8.first.map(blank) ?? false) && !(field.value.utf8.last.map(blank) ?? false),
                "untrimmed")
            if let wait = RetryAfter.delay(field.value, now: now, cap: cap) {
                FuzzCheck.expect(wait >= .zero && wait <= cap, "Retry-After \(field.value.prefix(80)) waits \(wait)")
            }
            _ = HTTPDate.parse(field.value)
        }
        if let host = head.redirectHost(relativeTo: requestURL) {
            FuzzCheck.expect(host.count <= EchoedText.limit + 1, "a redirect host of \(host.count) characters")
        }
        let response = HTTPResponse(status: 200, headers: head.fields, body: [])
        if let retryAfter = response.header("Retry-After") {
            FuzzCheck.expect(head.fields.contains { $0.name == "retry-after" && $0.value == retryAfter }, "lookup")
        }
    }

    static let jsonRPCResponse = FuzzTarget(
        name: "json-rpc-response",
        summary: "JSON-RPC answers of a node: result, error object or a typed invalid-response error; results "
            + "read as quantities, hashes, addresses and receipts"
    ) { bytes in
        for status in [200, 500] {
            let result: JSONValue
            do throws(NodeError) {
                result = try JSONRPCClient.result(of: bytes, status: status, id: 7, method: "eth_getTransactionReceipt")
            } catch {
                FuzzCheck.boundedDescription(error)
                continue
            }
            FuzzCheck.expect(status == 200, "a result accepted with HTTP status \(status)")
            let reader = NodeResponseReader(method: "eth_call")
            _ = try? reader.quantity(result, field: "result")
            _ = try? reader.bytes32(result, field: "result")
            _ = try? reader.address(result, field: "result")
            if case .object(let object) = result {
                do throws(NodeError) {
                    let receipt = try TransactionReceipt(json: object)
                    FuzzCheck.expect(
                        receipt.transactionHash == (try? reader.bytes32(object["transactionHash"], field: "h")), "hash")
                } catch {
                    FuzzCheck.boundedDescription(error)
                }
            }
        }
    }
}
