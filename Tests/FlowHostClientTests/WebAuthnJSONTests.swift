import FlowHostClient
import Foundation
import XCTest

/// WebAuthn's JSON encoding of a platform's raw results (base64url without padding).
final class WebAuthnJSONTests: XCTestCase {
    func testBase64URLHasNoPaddingAndTheURLAlphabet() {
        let bytes = Data([0xfb, 0xff, 0xbf, 0x01])
        XCTAssertEqual(WebAuthnJSON.base64URL(bytes), "-_-_AQ")
        XCTAssertEqual(WebAuthnJSON.data(base64URL: "-_-_AQ"), bytes)
        XCTAssertEqual(WebAuthnJSON.data(base64URL: "-_-_AQ=="), bytes)
        XCTAssertNil(WebAuthnJSON.data(base64URL: "+/+/AQ"), "standard base64 is not base64url")
        for count in 0..<8 {
            let data = Data((0..<count).map { UInt8($0 * 37 & 0xff) })
            XCTAssertEqual(WebAuthnJSON.data(base64URL: WebAuthnJSON.base64URL(data)), data)
        }
    }

    func testTheAnswersHaveToJSONsFields() {
        let id = Data([1, 2, 3, 250]), client = Data(#"{"type":"webauthn.get"}"#.utf8)
        let assertion = WebAuthnJSON.assertion(credentialID: id, clientDataJSON: client, authenticatorData: Data([9]), signature: Data([0x30]), userHandle: nil)
        XCTAssertEqual(assertion["id"], "AQID-g")
        XCTAssertEqual(assertion["rawId"], "AQID-g")
        XCTAssertEqual(assertion["type"], "public-key")
        XCTAssertEqual(assertion.value(at: "response.clientDataJSON")?.stringValue.flatMap(WebAuthnJSON.data(base64URL:)), client)
        XCTAssertEqual(assertion.value(at: "response.authenticatorData"), "CQ")
        XCTAssertEqual(assertion.value(at: "response.signature"), "MA")
        XCTAssertEqual(assertion.value(at: "response.userHandle"), .null)
        let registration = WebAuthnJSON.registration(credentialID: id, clientDataJSON: client, attestationObject: Data([0xa0]))
        XCTAssertEqual(registration.value(at: "response.attestationObject"), "oA")
        XCTAssertEqual(registration.value(at: "response.transports"), ["internal"])
    }
}
