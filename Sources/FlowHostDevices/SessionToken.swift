import FlowJSON

/// `additionalInfo.jwtJsonTokenInfo` of `onUserLoggedIn` (seeds 003 and 004
/// hand it to the notification and toggle screens): a JSON Web Token
/// (RFC 7519) in compact JWS form, signed with the issuer key (`alg`
/// `EdDSA`, RFC 8037; `kid` is the issuer's key id), so a backend the app
/// talks to can check who is logged in, on which device, since when and
/// with what, against `flowhost admin export-key --issuer`. It carries no
/// secret: claims `iss` ("flowhost"), `sub` (user id), `sid` (session id),
/// `dev` (device id), `iat`, `exp` (the session's absolute end; an earlier
/// logoff or timeout is not in the token) and `amr` (RFC 8176: `pwd`,
/// `bio` for the LDA).
public enum SessionToken {
    public static func make(
        issuer: ReceiptIssuer, userID: String, sessionID: String, deviceID: String, issuedAt: Int64, expiresAt: Int64, factors: [String]
    ) throws -> String {
        let (keyID, _) = try issuer.publicKey()
        // Header and claims written as bytes (no tree of JSON values made,
        // written out and freed for two small objects).
        var header: [UInt8] = []
        header.reserveCapacity(40 + keyID.utf8.count)
        append(#"{"alg":"EdDSA","typ":"JWT","kid":"#, to: &header)
        JSONStringText.append(keyID, to: &header)
        header.append(UInt8(ascii: "}"))
        var claims: [UInt8] = []
        claims.reserveCapacity(120 + userID.utf8.count + sessionID.utf8.count + deviceID.utf8.count)
        append(#"{"iss":"flowhost","sub":"#, to: &claims)
        JSONStringText.append(userID, to: &claims)
        append(#","sid":"#, to: &claims)
        JSONStringText.append(sessionID, to: &claims)
        append(#","dev":"#, to: &claims)
        JSONStringText.append(deviceID, to: &claims)
        append(#","iat":"#, to: &claims)
        claims.append(contentsOf: String(issuedAt).utf8)
        append(#","exp":"#, to: &claims)
        claims.append(contentsOf: String(expiresAt).utf8)
        append(#","amr":["#, to: &claims)
        for (index, factor) in factors.enumerated() {
            if index > 0 { claims.append(UInt8(ascii: ",")) }
            JSONStringText.append(factor == "password" ? "pwd" : factor == "lda" ? "bio" : factor, to: &claims)
        }
        append("]}", to: &claims)
        var signingInput = Base64.encodeURLSafe(header)
        signingInput.append(".")
        signingInput.append(Base64.encodeURLSafe(claims))
        let (_, signature) = try issuer.sign(Array(signingInput.utf8))
        signingInput.append(".")
        signingInput.append(Base64.encodeURLSafe(signature))
        return signingInput
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
