import Foundation
import SignerKitHTTP
import Testing

@Suite("Retry-After and HTTP dates")
struct RetryAfterTests {
    let cap = Duration.seconds(2)

    @Test("delta-seconds: in range, capped, huge values without overflow, negatives as zero")
    func seconds() {
        #expect(RetryAfter.delay("1", cap: cap) == .seconds(1))
        #expect(RetryAfter.delay(" 0 ", cap: cap) == .zero)
        #expect(RetryAfter.delay("0.25", cap: cap) == .milliseconds(250))
        #expect(RetryAfter.delay("120", cap: cap) == cap)
        for huge in ["1e16", "9.3e15", "9223372036854775808", "1e308", "1e309", String(repeating: "9", count: 60)] {
            #expect(RetryAfter.delay(huge, cap: cap) == cap, "\(huge)")
        }
        #expect(RetryAfter.delay("-5", cap: cap) == .zero)
        #expect(RetryAfter.delay("-1e16", cap: cap) == .zero)
        for junk in ["soon", "", "0x10", "nan", "inf", "1e", "1..2", "1 2", "e5", String(repeating: "9", count: 80)] {
            #expect(RetryAfter.delay(junk, cap: cap) == nil, "\(junk)")
        }
    }

    @Test("HTTP dates: IMF-fixdate, RFC 850, asctime; past dates give zero; impossible dates are refused")
    func dates() throws {
        let imf = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(imf.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == imf)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == imf)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT")?.timeIntervalSince1970 == 951_782_400)
        #expect(HTTPDate.parse("Tue, 29 Feb 2100 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 31 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 24:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 99999 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.delay("Tue, 14 Nov 2023 22:13:21 GMT", now: now, cap: cap) == .seconds(1))
        #expect(RetryAfter.delay("Tue, 14 Nov 2023 22:15:00 GMT", now: now, cap: cap) == cap)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now, cap: cap) == .zero)
        #expect(RetryAfter.delay("Fri, 31 Dec 9999 23:59:59 GMT", now: now, cap: cap) == cap)
    }
}
