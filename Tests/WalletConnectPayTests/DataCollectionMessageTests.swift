import EthereumPrimitives
import Foundation
import Testing
import WalletConnectPay

/// What a wallet accepts from the hosted data-collection form: `IC_COMPLETE` and `IC_ERROR`, from the
/// form's origin only.
@Suite("Pay data-collection messages")
struct DataCollectionMessageTests {
    let form = testURL("https://pay.walletconnect.com/ic/pay_1?theme=dark")

    @Test("IC_COMPLETE and IC_ERROR from the form's origin are accepted, as an object's JSON or a string")
    func accepted() {
        let origin = "https://pay.walletconnect.com"
        #expect(DataCollectionMessage.accept(#"{"type":"IC_COMPLETE"}"#, origin: origin, formURL: form) == .complete)
        #expect(
            DataCollectionMessage.accept(#"{"type":"IC_ERROR","error":"name mismatch"}"#, origin: origin, formURL: form)
                == .error("name mismatch"))
        #expect(
            DataCollectionMessage.accept(#"{"type":"IC_ERROR"}"#, origin: origin, formURL: form)
                == .error("no error text"))
        #expect(DataCollectionMessage.complete.outcome == .submittedOnPage)
        #expect(DataCollectionMessage.error("x").outcome == .failed("x"))
    }

    @Test("a message from another origin is ignored, whatever it says")
    func wrongOrigin() {
        let complete = #"{"type":"IC_COMPLETE"}"#
        for origin in [
            "http://pay.walletconnect.com", "https://pay.walletconnect.com:8443", "https://evil.example",
            "https://pay.walletconnect.com.evil.example", "null", "", "http://127.0.0.1:8080",
        ] {
            #expect(DataCollectionMessage.accept(complete, origin: origin, formURL: form) == nil, "\(origin)")
        }
    }

    @Test("unknown types, non-objects, non-JSON and oversized data are ignored")
    func unknown() {
        let origin = "https://pay.walletconnect.com"
        for data in [
            #"{"type":"IC_READY"}"#, #"{"type":"ic_complete"}"#, #"{"kind":"IC_COMPLETE"}"#, #"["IC_COMPLETE"]"#,
            #""IC_COMPLETE""#, "IC_COMPLETE", "", "{",
            #"{"type":"IC_COMPLETE","pad":""# + String(repeating: "a", count: 20_000) + #""}"#,
        ] {
            #expect(DataCollectionMessage.accept(data, origin: origin, formURL: form) == nil, "\(data.prefix(40))")
        }
    }

    @Test("a page's origin is what a browser reports: lower case, the default port left out")
    func origins() {
        #expect(
            DataCollection.origin(of: testURL("HTTPS://Pay.WalletConnect.com:443/ic?x=1"))
                == "https://pay.walletconnect.com")
        #expect(DataCollection.origin(of: testURL("http://127.0.0.1:80/")) == "http://127.0.0.1")
        #expect(DataCollection.origin(of: testURL("http://127.0.0.1:8123/ic/p")) == "http://127.0.0.1:8123")
        #expect(
            DataCollection.origin(of: testURL("https://kyc.example.com:8443")) == "https://kyc.example.com:8443")
        #expect(DataCollection.origin(of: testURL("/relative")) == nil)
    }

    @Test("IC_ERROR's text ends the payment as dataCollectionFailed, abbreviated")
    func errorText() {
        let long = String(repeating: "é", count: 500)
        let error = PayError.dataCollectionFailed(optionId: "opt_1", message: EchoedText.abbreviated(long))
        #expect(error.description.hasPrefix("option opt_1: the data-collection page reported an error: \""))
        #expect(error.description.count < 200)
    }
}

/// `text` as a URL (a file URL of `/` when it does not parse, which no test expects).
func testURL(_ text: String) -> URL { URL(string: text) ?? URL(fileURLWithPath: "/") }
